import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { OnceSecret } from '../components/OnceSecret.tsx';
import { formatValue } from '../format.ts';
import { useList } from '../useList.ts';
import { useSubmit } from '../useSubmit.ts';

interface ApiKey { id: string; name: string | null; start: string | null; createdAt: string; expiresAt: string | null; lastUsedAt: string | null; scopes: string[] | null }

const SCOPES = [
  { scope: 'data:read', label: 'Read data (data:read)' },
  { scope: 'data:write', label: 'Write data (data:write)' },
  { scope: 'actions:execute', label: 'Run actions (actions:execute)' },
];
const LIFETIMES = [
  { value: '', label: 'Never expires' },
  { value: String(30 * 86_400), label: '30 days' },
  { value: String(90 * 86_400), label: '90 days' },
  { value: String(365 * 86_400), label: '365 days' },
];
const when = (value: string | null) => (value ? formatValue(value, undefined, 'at_at') : '');

/**
 * The signed-in user's API keys (`/keys`): mint one with scopes, its secret shown once with a copy
 * button; list them without secrets; revoke one (its next request is 401).
 */
export function ApiKeys() {
  const { items, error, reload } = useList<ApiKey>('/keys');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['data:read']);
  const [lifetime, setLifetime] = useState('');
  const [minted, setMinted] = useState<{ name: string; key: string } | null>(null);
  const mint = useSubmit(async () => {
    const answer = await api<ApiKey & { key: string }>('/keys', {
      method: 'POST',
      body: { ...(name ? { name } : {}), ...(scopes.length > 0 ? { scopes } : {}), ...(lifetime ? { expiresIn: Number(lifetime) } : {}) },
    });
    setMinted({ name: answer.name ?? answer.start ?? 'key', key: answer.key });
    setName('');
    reload();
  });
  const revoke = useSubmit(async (id: string) => {
    await api(`/keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
    reload();
  });
  const toggle = (scope: string, on: boolean) => setScopes(on ? [...scopes, scope] : scopes.filter((s) => s !== scope));
  return (
    <section class="api-keys">
      <header class="screen-head"><h1>API keys</h1></header>
      <p>A key acts as you, within the scopes it was minted with: a key with <code>data:read</code> only reads, whatever you may do.</p>
      {minted ? (
        <OnceSecret title={`API key ${minted.name}`} value={minted.key} note="It is shown this once: copy it now. Only its hash is kept." onClose={() => setMinted(null)} />
      ) : null}
      <form class="panel-form" onSubmit={mint.onSubmit} aria-labelledby="mint-title">
        <h2 id="mint-title">Mint a key</h2>
        <ErrorNotice error={mint.error} />
        <label for="key-name">Name</label>
        <input id="key-name" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset class="checks">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s.scope}><input type="checkbox" name="scope" value={s.scope} checked={scopes.includes(s.scope)} onChange={(e) => toggle(s.scope, e.currentTarget.checked)} /> {s.label}</label>
          ))}
        </fieldset>
        {scopes.length === 0 ? <p class="notice warning">Without a scope the key may do everything you may.</p> : null}
        <label for="key-lifetime">Expires</label>
        <select id="key-lifetime" value={lifetime} onChange={(e) => setLifetime(e.currentTarget.value)}>
          {LIFETIMES.map((l) => <option key={l.value} value={l.value}>{l.label}</option>)}
        </select>
        <button type="submit" class="primary" disabled={mint.busy}>{mint.busy ? 'Minting…' : 'Mint key'}</button>
      </form>
      <h2>Your keys</h2>
      <ErrorNotice error={error ?? revoke.error} />
      {items && items.length === 0 ? <p class="empty">You have no API key.</p> : null}
      {items && items.length > 0 ? (
        <div class="table-wrap">
          <table id="keys">
            <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {items.map((k) => (
                <tr key={k.id} data-id={k.id}>
                  <td>{k.name ?? ''}</td>
                  <td><code>{k.start ?? ''}</code></td>
                  <td>{k.scopes ? k.scopes.join(', ') : 'all (acts as you)'}</td>
                  <td>{when(k.createdAt)}</td>
                  <td>{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                  <td>{when(k.lastUsedAt)}</td>
                  <td><button type="button" class="danger" disabled={revoke.busy} aria-label={`Revoke ${k.name ?? k.start ?? 'key'}`} onClick={() => void revoke.run(k.id)}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
