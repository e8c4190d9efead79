import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { MagicLinkForm } from '../components/MagicLinkForm.tsx';
import { passkeysSupported, signInWithPasskey } from '../passkeys.ts';
import { location, navigate } from '../route.ts';
import { loadSession, session } from '../session.ts';
import { signInMethods } from '../signInMethods.ts';
import { useSubmit } from '../useSubmit.ts';

/** Why a followed sign-in link came back (`?error=` of the API's redirect), in words. */
function linkError(code: string | null): string | null {
  if (!code) return null;
  if (code === 'INVALID_TOKEN' || code === 'EXPIRED_TOKEN') return 'That sign-in link is used or expired: ask for a new one.';
  return `The sign-in link did not sign you in (${code}).`;
}

/**
 * Email and password, and, where the server offers them, a passkey or a mailed link; a second
 * factor and a forced password change follow as their own screens.
 */
export function SignIn({ reason }: { reason?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [byLink, setByLink] = useState(false);
  const [linkProblem] = useState(() => linkError(location.value.query.get('error')));
  const methods = signInMethods.value;
  useEffect(() => {
    // The link's error is read once; the address goes back to the page the user asked for.
    const { path, query } = location.value;
    if (!query.has('error')) return;
    query.delete('error');
    query.delete('error_description');
    const rest = query.toString();
    navigate(`${path}${rest ? `?${rest}` : ''}`, { replace: true });
  }, []);
  const submit = useSubmit(async () => {
    const answer = await api<{ twoFactorRequired?: boolean; methods?: string[] }>('/auth/sign-in', { method: 'POST', body: { email, password } });
    if (answer?.twoFactorRequired) {
      session.value = { status: 'secondFactor', methods: answer.methods ?? ['totp'] };
      return;
    }
    await loadSession();
  });
  const passkey = useSubmit(async () => {
    await signInWithPasskey();
    await loadSession();
  });
  const offerPasskey = methods?.passkey === true && passkeysSupported();
  return (
    <main class="auth-screen" id="main">
      <div class="card auth">
        {byLink ? <MagicLinkForm email={email} onEmail={setEmail} onBack={() => setByLink(false)} /> : (
          <form class="auth" onSubmit={submit.onSubmit} aria-labelledby="signin-title">
            <h1 id="signin-title">Sign in</h1>
            {reason ? <p class="notice">{reason}</p> : null}
            {linkProblem ? <p class="notice error" role="alert">{linkProblem}</p> : null}
            <ErrorNotice error={submit.error ?? passkey.error} />
            <label for="signin-email">Email</label>
            <input id="signin-email" type="email" autoComplete="username webauthn" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            <label for="signin-password">Password</label>
            <input id="signin-password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            <button type="submit" class="primary" disabled={submit.busy}>{submit.busy ? 'Signing in…' : 'Sign in'}</button>
          </form>
        )}
        {!byLink && (offerPasskey || methods?.magicLink) ? (
          <div class="auth-alternatives">
            <p class="or">or</p>
            {offerPasskey ? (
              <button type="button" id="signin-passkey" disabled={passkey.busy} onClick={() => void passkey.run()}>
                {passkey.busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
              </button>
            ) : null}
            {methods?.magicLink ? <button type="button" id="signin-magic-link" onClick={() => setByLink(true)}>Email me a sign-in link</button> : null}
          </div>
        ) : null}
      </div>
    </main>
  );
}
