import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { currentUser, noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { isBanned, statusOf, when, type AdminUser } from './adminApi.ts';

interface Session { id: string; token: string; createdAt: string; expiresAt: string; ipAddress?: string | null; userAgent?: string | null; impersonatedBy?: string | null }

/** One user: ban and unban, a password reset (a mailed link, or a password set here), its sessions to end. */
export function UserPage({ id }: { id: string }) {
  const [user, setUser] = useState<AdminUser | null>(null);
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [done, setDone] = useState('');
  useEffect(() => {
    let live = true;
    Promise.all([
      api<AdminUser>('/auth/admin/get-user', { query: { id } }),
      api<{ sessions: Session[] }>('/auth/admin/list-user-sessions', { method: 'POST', body: { userId: id } }),
    ]).then(([u, s]) => { if (live) { setUser(u); setSessions(s.sessions); setError(null); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [id, tick]);
  const after = (message: string) => { setDone(message); setTick((n) => n + 1); };

  const [reason, setReason] = useState('');
  const [days, setDays] = useState('');
  const ban = useSubmit(async () => {
    await api('/auth/admin/ban-user', { method: 'POST', body: { userId: id, ...(reason ? { banReason: reason } : {}), ...(days ? { banExpiresIn: Math.round(Number(days) * 86_400) } : {}) } });
    setReason('');
    after('Banned: every session of the user ended, and its API keys are refused.');
  });
  const unban = useSubmit(async () => {
    await api('/auth/admin/unban-user', { method: 'POST', body: { userId: id } });
    after('Unbanned: the user can sign in again.');
  });
  const mailReset = useSubmit(async () => {
    await api('/auth/request-password-reset', { method: 'POST', body: { email: user!.email, redirectTo: href('/reset-password') } });
    after(`A reset link was mailed to ${user!.email} (outside production, the Outbox shows it).`);
  });
  const [password, setPassword] = useState('');
  const setOne = useSubmit(async () => {
    await api('/auth/admin/set-user-password', { method: 'POST', body: { userId: id, newPassword: password } });
    setPassword('');
    after('The password is set: tell the user.');
  });
  const endOne = useSubmit(async (token: string) => {
    await api('/auth/admin/revoke-user-session', { method: 'POST', body: { sessionToken: token } });
    after('The session ended.');
  });
  const endAll = useSubmit(async () => {
    await api('/auth/admin/revoke-user-sessions', { method: 'POST', body: { userId: id } });
    after('Every session of the user ended.');
  });

  if (!user) return <section><p class="crumbs"><a href={href('/admin/users')}>Users</a></p><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const self = currentUser()?.id === user.id;
  return (
    <section class="admin-user">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/admin/users')}>Users</a></p>
        <h1>{user.email}</h1>
        <div class="actions"><a class="button" href={href(`/admin/assignments?user=${encodeURIComponent(user.id)}`)}>Assignments</a></div>
      </header>
      <dl class="facts">
        <dt>Name</dt><dd>{user.name}</dd>
        <dt>Role</dt><dd>{user.role ?? 'user'}</dd>
        <dt>Status</dt><dd id="user-status">{statusOf(user)}{isBanned(user) && user.banReason ? ` (${user.banReason})` : ''}{isBanned(user) && user.banExpires ? `, until ${when(user.banExpires)}` : ''}</dd>
        <dt>Created</dt><dd>{when(user.createdAt)}</dd>
      </dl>
      {done ? <p class="notice success" role="status">{done}</p> : null}
      <ErrorNotice error={error ?? ban.error ?? unban.error ?? mailReset.error ?? setOne.error ?? endOne.error ?? endAll.error} />

      <h2>Ban</h2>
      {isBanned(user) ? (
        <button type="button" id="unban" disabled={unban.busy} onClick={() => void unban.run()}>Unban</button>
      ) : self ? <p class="muted">You cannot ban yourself.</p> : (
        <form class="inline-form" onSubmit={ban.onSubmit}>
          <label for="ban-reason">Reason</label>
          <input id="ban-reason" maxLength={200} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          <label for="ban-days">Days (empty: until unbanned)</label>
          <input id="ban-days" type="number" min={1} max={3650} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          <button type="submit" class="danger" id="ban" disabled={ban.busy}>Ban</button>
        </form>
      )}

      <h2>Password</h2>
      <div class="inline-form">
        <button type="button" id="mail-reset" disabled={mailReset.busy} onClick={() => void mailReset.run()}>Mail a reset link</button>
      </div>
      <form class="inline-form" onSubmit={setOne.onSubmit}>
        <label for="set-password">New password</label>
        <input id="set-password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" id="set-password-button" disabled={setOne.busy}>Set password</button>
      </form>

      <h2>Sessions</h2>
      {sessions && sessions.length === 0 ? <p class="empty">No open session.</p> : null}
      {sessions && sessions.length > 0 ? (
        <>
          <div class="table-wrap">
            <table id="sessions">
              <thead><tr><th scope="col">Started</th><th scope="col">Expires</th><th scope="col">Address</th><th scope="col">Browser</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {sessions.map((s, i) => (
                  <tr key={s.id} data-id={s.id}>
                    <td>{when(s.createdAt)}</td>
                    <td>{when(s.expiresAt)}</td>
                    <td>{s.ipAddress ?? ''}</td>
                    <td title={s.userAgent ?? ''}>{s.userAgent ?? ''}{s.impersonatedBy ? ' (impersonation)' : ''}</td>
                    <td><button type="button" disabled={endOne.busy} aria-label={`End session ${i + 1}`} onClick={() => void endOne.run(s.token)}>End</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <button type="button" class="danger" id="end-all" disabled={endAll.busy} onClick={() => void endAll.run()}>End every session</button>
        </>
      ) : null}
    </section>
  );
}
