import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import type { FieldGrants } from './accessModel.ts';

interface Named { id: string; email: string; name: string }
interface ModeChange { gained: Named[]; gainedCount: number; lost: Named[]; lostCount: number }
export interface FieldPreviewAnswer {
  users: number;
  admins: number;
  changes: Array<{ field: string; read: ModeChange; edit: ModeChange }>;
}

/**
 * The answer of `POST /access/field-preview` for the fields as they are in the editor, asked again
 * a moment after each change and after each save (`revision`: the set's version).
 */
export function useFieldPreview(setId: string | null, fields: FieldGrants, revision: number): { answer: FieldPreviewAnswer | null; error: unknown; busy: boolean } {
  const [state, setState] = useState<{ answer: FieldPreviewAnswer | null; error: unknown; busy: boolean }>({ answer: null, error: null, busy: true });
  const key = JSON.stringify(fields);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, busy: true }));
    const timer = setTimeout(() => {
      api<FieldPreviewAnswer>('/access/field-preview', { method: 'POST', body: { ...(setId ? { permissionSet: setId } : {}), fields } }).then(
        (answer) => { if (live) setState({ answer, error: null, busy: false }); },
        (error) => { if (live) setState({ answer: null, error, busy: false }); },
      );
    }, 250);
    return () => { live = false; clearTimeout(timer); };
  }, [setId, key, revision]);
  return state;
}

function Who({ kind, label, users, count }: { kind: string; label: string; users: Named[]; count: number }) {
  if (count === 0) return null;
  return (
    <li data-kind={kind} class={kind.endsWith('lost') ? 'loses' : 'gains'}>
      <strong>{label}</strong> ({count}): {users.map((u) => (u.name && u.name !== u.email ? `${u.email} (${u.name})` : u.email)).join(', ')}{count > users.length ? `, and ${count - users.length} more` : ''}
    </li>
  );
}

/** Before saving: which users gain or lose which field, as the server computes it. */
export function FieldPreview({ setId, fields, revision }: { setId: string | null; fields: FieldGrants; revision: number }) {
  const { answer, error, busy } = useFieldPreview(setId, fields, revision);
  return (
    <section class="field-preview" aria-labelledby="preview-title" aria-busy={busy}>
      <h2 id="preview-title">Before you save: who gains or loses a field</h2>
      <p class="muted">A field named in any permission set is hidden from everyone who holds no set granting it; removing its last mention opens it to everyone. Object permissions and row security still decide which records each user reads.</p>
      <ErrorNotice error={error} />
      {answer ? (
        <div id="field-preview" aria-live="polite">
          <p class="muted">{answer.users} {answer.users === 1 ? 'user' : 'users'} compared; {answer.admins} {answer.admins === 1 ? 'admin reads' : 'admins read'} every field.</p>
          {answer.changes.length === 0 ? <p class="no-change">With these field permissions no user gains or loses a field.</p> : (
            <ul class="preview-list">
              {answer.changes.map((c) => (
                <li key={c.field} data-field={c.field}>
                  <code>{c.field}</code>
                  <ul>
                    <Who kind="read-lost" label="No longer read it" users={c.read.lost} count={c.read.lostCount} />
                    <Who kind="read-gained" label="Will read it" users={c.read.gained} count={c.read.gainedCount} />
                    <Who kind="edit-lost" label="No longer edit it" users={c.edit.lost} count={c.edit.lostCount} />
                    <Who kind="edit-gained" label="Will edit it" users={c.edit.gained} count={c.edit.gainedCount} />
                  </ul>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </section>
  );
}
