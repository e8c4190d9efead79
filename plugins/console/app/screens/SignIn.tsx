import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { loadSession } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

/** Email and password; a second factor or a forced password change follow as their own screens. */
export function SignIn({ reason }: { reason?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit(async () => {
    const answer = await api<{ twoFactorRequired?: boolean }>('/auth/sign-in', { method: 'POST', body: { email, password } });
    if (answer?.twoFactorRequired) throw new Error('This account has a second factor: sign in with it through the API (two-factor screens come with a later version of the console).');
    await loadSession();
  });
  return (
    <main class="auth-screen" id="main">
      <form class="card auth" onSubmit={submit.onSubmit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in</h1>
        {reason ? <p class="notice">{reason}</p> : null}
        <ErrorNotice error={submit.error} />
        <label for="signin-email">Email</label>
        <input id="signin-email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="signin-password">Password</label>
        <input id="signin-password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={submit.busy}>{submit.busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
