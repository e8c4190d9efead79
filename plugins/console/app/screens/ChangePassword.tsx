import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { loadSession, signOut } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

/** PASSWORD_EXPIRED as a screen: nothing else opens until the one-time password is replaced. */
export function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const submit = useSubmit(async () => {
    if (next !== again) throw new Error('The two new passwords differ.');
    await api('/auth/change-password', { method: 'POST', body: { currentPassword: current, newPassword: next } });
    await loadSession();
  });
  return (
    <main class="auth-screen" id="main">
      <form class="card auth" onSubmit={submit.onSubmit} aria-labelledby="change-title">
        <h1 id="change-title">Choose a new password</h1>
        <p>Your password must be changed before you go on.</p>
        <ErrorNotice error={submit.error} />
        <label for="current-password">Current password</label>
        <input id="current-password" type="password" autoComplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
        <label for="new-password">New password</label>
        <input id="new-password" type="password" autoComplete="new-password" required minLength={8} value={next} onInput={(e) => setNext(e.currentTarget.value)} />
        <label for="repeat-password">New password again</label>
        <input id="repeat-password" type="password" autoComplete="new-password" required minLength={8} value={again} onInput={(e) => setAgain(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={submit.busy}>{submit.busy ? 'Saving…' : 'Change password'}</button>
        <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>
      </form>
    </main>
  );
}
