import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { loadSession, type User } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

interface Setup {
  totpURI: string;
  backupCodes: string[];
}

/** The secret of an `otpauth://totp/...?secret=` URI, in groups of four for typing it by hand. */
function secretOf(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret') ?? '';
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The user's second factor: set up (`POST /auth/two-factor/enable` with the password: the TOTP URI,
 * its secret and the backup codes), confirmed with a first code (`/auth/two-factor/verify-totp`),
 * or turned off (`/auth/two-factor/disable`).
 */
export function TwoFactorSettings({ user }: { user: User }) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [setup, setSetup] = useState<Setup | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const start = useSubmit(async () => {
    setSetup(await api<Setup>('/auth/two-factor/enable', { method: 'POST', body: { password } }));
    setPassword('');
    setDone(null);
  });
  const confirm = useSubmit(async () => {
    await api('/auth/two-factor/verify-totp', { method: 'POST', body: { code: code.replace(/\s+/g, '') } });
    await loadSession();
    setSetup(null);
    setCode('');
    setDone('Two-factor authentication is on: signing in now asks for a code.');
  });
  const turnOff = useSubmit(async () => {
    await api('/auth/two-factor/disable', { method: 'POST', body: { password } });
    await loadSession();
    setPassword('');
    setDone('Two-factor authentication is off.');
  });
  const passwordField = (
    <>
      <label for="two-factor-password">Your password</label>
      <input id="two-factor-password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
    </>
  );
  return (
    <section class="card settings" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor authentication</h2>
      {done ? <p class="notice success" role="status">{done}</p> : null}
      {setup ? (
        <form class="stack" onSubmit={confirm.onSubmit}>
          <p>Add this account to your authenticator app with the key below (or open the link on a device that has the app), then enter the code it shows.</p>
          <p><span class="muted">Key </span><code id="totp-secret" class="secret">{secretOf(setup.totpURI)}</code></p>
          <p><a id="totp-uri" href={setup.totpURI}>Open in an authenticator app</a></p>
          <details>
            <summary>The key as a URI</summary>
            <code class="secret">{setup.totpURI}</code>
          </details>
          <p>Backup codes: each signs you in once if you lose the app. Keep them somewhere safe; they are not shown again.</p>
          <ul class="backup-codes" aria-label="Backup codes">{setup.backupCodes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
          <ErrorNotice error={confirm.error} />
          <label for="two-factor-code">Code from the app</label>
          <input id="two-factor-code" required inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <div class="form-actions">
            <button type="submit" class="primary" id="two-factor-confirm" disabled={confirm.busy}>Turn on</button>
            <button type="button" onClick={() => setSetup(null)}>Cancel</button>
          </div>
        </form>
      ) : user.twoFactorEnabled ? (
        <form class="stack" onSubmit={turnOff.onSubmit}>
          <p id="two-factor-state">On: signing in asks for a code from your authenticator app or a backup code.</p>
          <ErrorNotice error={turnOff.error} />
          {passwordField}
          <div class="form-actions"><button type="submit" class="danger" disabled={turnOff.busy}>Turn off</button></div>
        </form>
      ) : (
        <form class="stack" onSubmit={start.onSubmit}>
          <p id="two-factor-state">Off. With it on, signing in also asks for a code from an authenticator app.</p>
          <ErrorNotice error={start.error} />
          {passwordField}
          <div class="form-actions"><button type="submit" class="primary" id="two-factor-start" disabled={start.busy}>Set up two-factor authentication</button></div>
        </form>
      )}
    </section>
  );
}
