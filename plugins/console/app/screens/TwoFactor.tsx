import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { loadSession, session } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

/**
 * The second step of a password sign-in for an account with a second factor: the code of the
 * authenticator app (`POST /auth/two-factor/verify-totp`) or one of the backup codes
 * (`/auth/two-factor/verify-backup-code`), sent with the cookie the first step set.
 */
export function TwoFactor() {
  const [backup, setBackup] = useState(false);
  const [code, setCode] = useState('');
  const submit = useSubmit(async () => {
    const path = backup ? '/auth/two-factor/verify-backup-code' : '/auth/two-factor/verify-totp';
    await api(path, { method: 'POST', body: { code: backup ? code.trim() : code.replace(/\s+/g, '') } });
    await loadSession();
  });
  const switchTo = (next: boolean) => {
    setBackup(next);
    setCode('');
  };
  return (
    <main class="auth-screen" id="main">
      <form class="card auth" onSubmit={submit.onSubmit} aria-labelledby="second-factor-title">
        <h1 id="second-factor-title">Two-factor authentication</h1>
        <p>{backup ? 'Enter one of your backup codes. Each works once.' : 'Enter the 6-digit code your authenticator app shows.'}</p>
        <ErrorNotice error={submit.error} />
        <label for="second-factor-code">{backup ? 'Backup code' : 'Authentication code'}</label>
        <input
          key={backup ? 'backup' : 'totp'} id="second-factor-code" required autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)}
          {...(backup ? { spellcheck: false } : { inputMode: 'numeric', pattern: '[0-9 ]{6,7}', maxLength: 7 })}
        />
        <button type="submit" class="primary" disabled={submit.busy}>{submit.busy ? 'Checking…' : 'Verify'}</button>
        <button type="button" class="link" id="second-factor-switch" onClick={() => switchTo(!backup)}>
          {backup ? 'Use the authenticator app instead' : 'Use a backup code instead'}
        </button>
        <button type="button" class="link" onClick={() => { session.value = { status: 'signedOut' }; }}>Back to sign-in</button>
      </form>
    </main>
  );
}
