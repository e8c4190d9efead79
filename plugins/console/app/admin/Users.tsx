import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { OnceSecret } from '../components/OnceSecret.tsx';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { listUsers, statusOf, when, type AdminUser, type UserPage } from './adminApi.ts';

const PAGE = 50;

/** The environment's users by email (search, pages of 50), and a new user with a one-time password shown once. */
export function Users() {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<UserPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    listUsers({ search: applied, limit: PAGE, offset }).then((p) => { if (live) { setPage(p); setError(null); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [applied, offset, tick]);

  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'generate' | 'given'>('generate');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<{ user: AdminUser; temporaryPassword?: string } | null>(null);
  const create = useSubmit(async () => {
    const body = { email, ...(name ? { name } : {}), ...(mode === 'generate' ? { generatePassword: true } : { password }) };
    setCreated(await api<{ user: AdminUser; temporaryPassword?: string }>('/auth/admin/create-user', { method: 'POST', body }));
    setEmail('');
    setName('');
    setPassword('');
    setTick((n) => n + 1);
  });

  return (
    <section class="admin-users">
      <header class="screen-head">
        <h1>Users</h1>
        <div class="actions"><a class="button" href={href('/admin/import-users')}>Import users</a></div>
      </header>
      {created ? (
        created.temporaryPassword ? (
          <OnceSecret
            title={`One-time password of ${created.user.email}`}
            value={created.temporaryPassword}
            note="It is shown this once: give it to the user, who must choose a new password at first sign-in."
            onClose={() => setCreated(null)}
          />
        ) : <p class="notice success" role="status">{created.user.email} was created. <button type="button" class="link" onClick={() => setCreated(null)}>Close</button></p>
      ) : null}
      <form class="panel-form" onSubmit={create.onSubmit} aria-labelledby="new-user-title">
        <h2 id="new-user-title">New user</h2>
        <ErrorNotice error={create.error} />
        <label for="new-user-email">Email</label>
        <input id="new-user-email" type="email" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="new-user-name">Name</label>
        <input id="new-user-name" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset class="checks">
          <legend>Password</legend>
          <label><input type="radio" name="password-mode" value="generate" checked={mode === 'generate'} onChange={() => setMode('generate')} /> A one-time password, shown once; the user chooses its own at first sign-in</label>
          <label><input type="radio" name="password-mode" value="given" checked={mode === 'given'} onChange={() => setMode('given')} /> A password I give</label>
        </fieldset>
        {mode === 'given' ? (
          <>
            <label for="new-user-password">Password</label>
            <input id="new-user-password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </>
        ) : null}
        <button type="submit" class="primary" id="create-user" disabled={create.busy}>{create.busy ? 'Creating…' : 'Create user'}</button>
      </form>

      <form role="search" class="inline-form" onSubmit={(e) => { e.preventDefault(); setOffset(0); setApplied(search.trim()); }}>
        <label for="user-search">Email contains</label>
        <input id="user-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={error} />
      {page ? <p class="total">{page.total} {page.total === 1 ? 'user' : 'users'}</p> : null}
      {page && page.users.length > 0 ? (
        <div class="table-wrap">
          <table id="users">
            <thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {page.users.map((u) => (
                <tr key={u.id} data-id={u.id}>
                  <td><a href={href(`/admin/users/${encodeURIComponent(u.id)}`)}>{u.email}</a></td>
                  <td>{u.name}</td>
                  <td>{u.role ?? 'user'}</td>
                  <td class="status">{statusOf(u)}</td>
                  <td>{when(u.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {page && page.users.length === 0 ? <p class="empty">No user matches.</p> : null}
      {page && page.total > PAGE ? (
        <nav class="pager" aria-label="Pages of users">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
          <span>{offset + 1}–{Math.min(offset + PAGE, page.total)} of {page.total}</span>
          <button type="button" disabled={offset + PAGE >= page.total} onClick={() => setOffset(offset + PAGE)}>Next</button>
        </nav>
      ) : null}
    </section>
  );
}
