import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useSubmit } from '../useSubmit.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/**
 * Sign-in by a mailed link (`POST /auth/sign-in/magic-link`): the link brings the user back to the
 * address they were on, signed in; a used or expired link comes back with `?error=`.
 */
export function MagicLinkForm({ email, onEmail, onBack }: { email: string; onEmail(email: string): void; onBack(): void }) {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useSubmit(async () => {
    const here = `${window.location.pathname}${window.location.search}`;
    await api('/auth/sign-in/magic-link', { method: 'POST', body: { email: email.trim(), callbackURL: here, errorCallbackURL: here } });
    setSentTo(email.trim());
  });
  return (
    <form class="auth" onSubmit={send.onSubmit} aria-labelledby="magic-title">
      <h1 id="magic-title">Sign in with a link</h1>
      {sentTo ? (
        <p class="notice success" role="status">
          If <strong>{sentTo}</strong> has an account, a sign-in link is on its way. Open it in this browser; it works once, for a few minutes.
        </p>
      ) : <p>We email you a link that signs you in.</p>}
      <ErrorNotice error={send.error} />
      <label for="magic-email">Email</label>
      <input id="magic-email" type="email" autoComplete="username" required value={email} onInput={(e) => onEmail(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled={send.busy}>{send.busy ? 'Sending…' : sentTo ? 'Send another link' : 'Email me a link'}</button>
      <button type="button" class="link" onClick={onBack}>Sign in with a password instead</button>
    </form>
  );
}
