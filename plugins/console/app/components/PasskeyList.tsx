import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { passkeysSupported, registerPasskey } from '../passkeys.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

interface Passkey {
  id: string;
  name?: string | null;
  createdAt?: string;
  deviceType?: string;
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The user's passkeys (`GET /auth/passkey/list-user-passkeys`): add one with this browser's authenticator, remove one. */
export function PasskeyList() {
  const [items, setItems] = useState<Passkey[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const load = async () => {
    try {
      setItems(await api<Passkey[]>('/auth/passkey/list-user-passkeys'));
      setLoadError(null);
    } catch (error) {
      noticeAuthError(error);
      setLoadError(error);
    }
  };
  useEffect(() => { void load(); }, []);
  const add = useSubmit(async () => {
    await registerPasskey(name.trim() || 'Passkey');
    setName('');
    await load();
  });
  const remove = useSubmit(async (id: string) => {
    await api('/auth/passkey/delete-passkey', { method: 'POST', body: { id } });
    await load();
  });
  const supported = passkeysSupported();
  return (
    <section class="card settings" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>A passkey signs you in without a password, with this device's screen lock or a security key.</p>
      <ErrorNotice error={loadError ?? remove.error} />
      {items && items.length === 0 ? <p class="empty">You have no passkey yet.</p> : null}
      <ul class="passkey-list">
        {(items ?? []).map((p) => (
          <li key={p.id} data-id={p.id}>
            <span><strong>{p.name || 'Passkey'}</strong>{p.createdAt ? <span class="muted"> added {when.format(new Date(p.createdAt))}</span> : null}</span>
            <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(p.id)} aria-label={`Remove passkey ${p.name || 'Passkey'}`}>Remove</button>
          </li>
        ))}
      </ul>
      {supported ? (
        <form class="stack" onSubmit={add.onSubmit}>
          <ErrorNotice error={add.error} />
          <label for="passkey-name">Name of the new passkey</label>
          <input id="passkey-name" placeholder="e.g. Work laptop" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <div class="form-actions"><button type="submit" class="primary" id="passkey-add" disabled={add.busy}>{add.busy ? 'Waiting for the authenticator…' : 'Add a passkey'}</button></div>
        </form>
      ) : <p class="notice">This browser cannot create passkeys.</p>}
    </section>
  );
}
