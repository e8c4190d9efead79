import type { FieldDoc } from './catalog.ts';

/** A pending action as `/ai/pending-actions` answers it (docs/ai.md, The approval queue). */
export interface PendingAction {
  id: string;
  status: 'pending' | 'applying' | 'applied' | 'failed' | 'rejected' | 'expired';
  kind: 'create' | 'update' | 'delete' | 'action';
  object: string | null;
  recordId: string | null;
  action: string | null;
  payload: Record<string, unknown> | null;
  expectedVersion: number | null;
  seen: Record<string, unknown> | null;
  conversationId: string;
  proposedBy: string;
  decidedBy: string | null;
  decidedAt: string | null;
  expiresAt: string;
  result: Record<string, unknown> | null;
  error: { code?: string; message?: string } | null;
  createdAt: string;
  canApprove: boolean;
  canReject: boolean;
  /** Names of the users it mentions, id -> name. */
  people: Record<string, string>;
}

export const ACTION_STATUS: Record<string, string> = {
  pending: 'Pending', applying: 'Applying', applied: 'Applied', failed: 'Failed', rejected: 'Rejected', expired: 'Expired',
};

/** Fields every record carries that a change never proposes. */
const BOOKKEEPING = new Set(['id', 'version', 'owner_id', 'created_at', 'updated_at', 'created_by', 'updated_by', 'deleted_at', 'deleted_by']);

/** "Create Project", "Update Project", "Delete Project", "Run close_note". */
export function describeAction(action: PendingAction, objectLabel: string): string {
  if (action.kind === 'action') return `Run ${action.action ?? 'an action'}${action.object ? ` on ${objectLabel}` : ''}`;
  return `${action.kind[0]!.toUpperCase()}${action.kind.slice(1)} ${objectLabel}`;
}

export interface DiffRow {
  field: string;
  /** The value as the model saw it (undefined: none, as for a create). */
  before: unknown;
  /** The value it proposes (undefined: none, as for a delete). */
  after: unknown;
  changed: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The record as the model saw it against what it proposes, field by field: the fields of the form
 * first (in its order), then any other the change or the record holds; bookkeeping left out.
 */
export function diffRows(action: PendingAction, fields: Record<string, FieldDoc>): DiffRow[] {
  const values = action.kind === 'action' ? {} : ((action.payload?.values ?? {}) as Record<string, unknown>);
  const seen = action.seen ?? {};
  const names = new Set<string>();
  for (const name of Object.keys(fields)) if (name in values || name in seen) names.add(name);
  for (const name of [...Object.keys(values), ...Object.keys(seen)]) if (!BOOKKEEPING.has(name)) names.add(name);
  return [...names].map((field) => {
    const before = action.seen ? seen[field] : undefined;
    if (action.kind === 'delete') return { field, before, after: undefined, changed: true };
    const proposed = field in values;
    const after = proposed ? values[field] : before;
    return { field, before, after, changed: proposed && (action.seen === null || !same(before, after)) };
  });
}
