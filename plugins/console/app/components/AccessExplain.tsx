import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { noticeAuthError } from '../session.ts';
import { ErrorNotice } from './ErrorNotice.tsx';
import { UserPicker, type PickedUser } from './UserPicker.tsx';

interface Decision { allowed: boolean; reasons: Array<{ effect: 'grant' | 'deny'; source: string; name?: string; detail?: string }> }
interface Explanation { positions: string[]; permissionSets: string[]; read: Decision; edit: Decision }

/**
 * "Why can this person see it": for a user picked by search, the answer of `GET /access/explain`
 * for the record (read and edit, allowed or not, and each reason). Admins only, as the route is;
 * asked again when `revision` changes (a share made or revoked).
 */
export function AccessExplain({ object, id, revision }: { object: string; id: string; revision: unknown }) {
  const [user, setUser] = useState<PickedUser | null>(null);
  const [answer, setAnswer] = useState<Explanation | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!user) return;
    let live = true;
    setAnswer(null);
    api<Explanation>('/access/explain', { query: { userId: user.id, object, recordId: id } }).then(
      (a) => { if (live) { setAnswer(a); setError(null); } },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [user?.id, object, id, revision]);
  return (
    <section class="explain" aria-labelledby="explain-title">
      <h2 id="explain-title">Why can this person see it?</h2>
      <UserPicker id="explain-user" label="Person" onPick={setUser} />
      <ErrorNotice error={error} />
      {user && answer ? (
        <div id="explain-answer" data-user={user.id}>
          <p><strong>{user.name}</strong> <span class="muted">{user.email}</span></p>
          {(['read', 'edit'] as const).map((op) => (
            <div key={op} class="decision" data-operation={op} data-allowed={String(answer[op].allowed)}>
              <p><strong>{op === 'read' ? 'Read' : 'Edit'}: {answer[op].allowed ? 'allowed' : 'not allowed'}</strong></p>
              <ul>
                {answer[op].reasons.map((r, i) => (
                  <li key={i} data-effect={r.effect} data-source={r.source}>
                    {r.effect === 'grant' ? 'Grants' : 'Denies'} · {r.source}{r.name ? ` ${r.name}` : ''}{r.detail ? `: ${r.detail}` : ''}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {answer.positions.length || answer.permissionSets.length ? (
            <p class="muted">Positions: {answer.positions.join(', ') || 'none'}; permission sets: {answer.permissionSets.join(', ') || 'none'}</p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
