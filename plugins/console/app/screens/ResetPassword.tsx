import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href, location } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';

/**
 * Where a password-reset link leads (`/console/reset-password?token=`, the link's redirect): a new
 * password, set with `POST /auth/reset-password`; the user then signs in with it.
 */
export function ResetPassword() {
  const query = location.value.query;
  const token = query.get('token') ?? '';
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState(false);
  const submit = useSubmit(async () => {
    if (next !== again) throw new Error('The two new passwords differ.');
    await api('/auth/reset-password', { method: 'POST', body: { token, newPassword: next } });
    setDone(true);
  });
  const broken = query.get('error') !== null || token === '';
  return (
    <main class="auth-screen" id="main">
      <form class="card auth" onSubmit={submit.onSubmit} aria-labelledby="reset-title">
        <h1 id="reset-title">Set a new password</h1>
        {done ? (
          <p class="notice success" role="status">Your password is set. <a href={href('/')}>Sign in</a> with it.</p>
        ) : broken ? (
          <p class="notice error" role="alert">This link is not valid any more (it works once, for a limited time): ask for a new one.</p>
        ) : (
          <>
            <ErrorNotice error={submit.error} />
            <label for="reset-password">New password</label>
            <input id="reset-password" type="password" autoComplete="new-password" required minLength={8} value={next} onInput={(e) => setNext(e.currentTarget.value)} />
            <label for="reset-repeat">New password again</label>
            <input id="reset-repeat" type="password" autoComplete="new-password" required minLength={8} value={again} onInput={(e) => setAgain(e.currentTarget.value)} />
            <button type="submit" class="primary" disabled={submit.busy}>{submit.busy ? 'Saving…' : 'Set password'}</button>
          </>
        )}
      </form>
    </main>
  );
}
