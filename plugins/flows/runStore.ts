import { randomUUID } from 'node:crypto';
import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { FlowTrigger } from '../../capabilities/flowsRunner.ts';
import type { FlowRun, FlowRunAs, FlowRunStatus, FlowRunStep } from '../../metadata/flowTypes.ts';

/** The engine-owned table of runs (declared as sys_flow_run in ./system-app). */
export const RUN_TABLE = 'sys_flow_run';

/** A run as the runner keeps it: the API view plus what resuming needs. */
export interface StoredRun extends FlowRun {
  version: number;
  record: Record<string, unknown> | null;
  cancelRequested: boolean;
  waitJob: string | null;
  requestId: string | null;
  starter: StarterSnapshot | null;
}

/** Who a caller run acts as, kept on the run: its grants are resolved again whenever it resumes. */
export interface StarterSnapshot {
  kind: 'user' | 'apiKey' | 'system';
  userId: string;
  organizationId: string | null;
  email: string | null;
  isAdmin: boolean;
}

export interface NewRun {
  flow: string;
  trigger: FlowTrigger;
  runAs: FlowRunAs;
  startedBy: string | null;
  input: Record<string, unknown>;
  record: Record<string, unknown> | null;
  idempotencyKey: string | null;
  requestId: string | null;
  starter: StarterSnapshot | null;
}

type Row = Record<string, unknown>;

const json = (value: unknown) => JSON.stringify(value ?? null);
const parse = (raw: unknown): unknown => (typeof raw === 'string' ? JSON.parse(raw) : raw ?? null);
const isoOrNull = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

function toRun(row: Row): StoredRun {
  return {
    id: String(row.id),
    flow: String(row.flow),
    status: row.status as FlowRunStatus,
    input: (parse(row.input) as Record<string, unknown>) ?? {},
    steps: (parse(row.steps) as FlowRunStep[]) ?? [],
    startedAt: isoOrNull(row.started_at)!,
    endedAt: isoOrNull(row.ended_at),
    trigger: String(row.trigger),
    runAs: row.run_as as FlowRunAs,
    startedBy: (row.started_by as string | null) ?? null,
    error: (parse(row.error) as FlowRun['error']) ?? null,
    version: Number(row.version),
    record: (parse(row.record) as Record<string, unknown> | null) ?? null,
    cancelRequested: row.cancel_requested === true || Number(row.cancel_requested) === 1,
    waitJob: (row.wait_job as string | null) ?? null,
    requestId: (row.request_id as string | null) ?? null,
    starter: (parse(row.starter) as StarterSnapshot | null) ?? null,
  };
}

/** Inserts a run; with an idempotency key already used for the flow, inserts nothing and answers the first run. */
export async function insertRun(db: SideTableAccess, run: NewRun, now: Date): Promise<{ run: StoredRun; added: boolean }> {
  const id = randomUUID();
  const at = now.toISOString();
  const inserted = await db.knex(RUN_TABLE).insert({
    id, version: 1, created_at: at, updated_at: at, created_by: run.startedBy, updated_by: run.startedBy,
    flow: run.flow, status: 'running', trigger: run.trigger, run_as: run.runAs, started_by: run.startedBy, starter: run.starter === null ? null : json(run.starter),
    input: json(run.input), record: run.record === null ? null : json(run.record), steps: json([]), error: null,
    cancel_requested: db.dialect === 'sqlite' ? 0 : false, started_at: at, idempotency_key: run.idempotencyKey, request_id: run.requestId,
  }).onConflict(['flow', 'idempotency_key']).ignore().returning('id');
  if (inserted.length > 0) return { run: (await loadRun(db, id))!, added: true };
  const first = await db.knex(RUN_TABLE).where({ flow: run.flow, idempotency_key: run.idempotencyKey }).first();
  return { run: toRun(first as Row), added: false };
}

export async function loadRun(db: SideTableAccess, id: string): Promise<StoredRun | null> {
  const row = await db.knex(RUN_TABLE).where({ id }).first();
  return row ? toRun(row as Row) : null;
}

export interface RunChange {
  status?: FlowRunStatus;
  steps?: FlowRunStep[];
  error?: FlowRun['error'];
  endedAt?: Date | null;
  waitJob?: string | null;
}

/**
 * Writes a change to a run the caller read at `version`; false when the run changed since (another
 * process resumed it, or it was cancelled while waiting): then the caller stops.
 */
export async function updateRun(db: SideTableAccess, id: string, version: number, change: RunChange, now: Date): Promise<boolean> {
  const set: Row = { version: version + 1, updated_at: now.toISOString() };
  if (change.status !== undefined) set.status = change.status;
  if (change.steps !== undefined) set.steps = json(change.steps);
  if (change.error !== undefined) set.error = change.error === null ? null : json(change.error);
  if (change.endedAt !== undefined) set.ended_at = change.endedAt === null ? null : change.endedAt.toISOString();
  if (change.waitJob !== undefined) set.wait_job = change.waitJob;
  const count = await db.knex(RUN_TABLE).update(set).where({ id, version });
  return Number(count) === 1;
}

/**
 * Cancels a run: a waiting one at once (status cancelled), a running one at its next step
 * boundary (cancel_requested, which the runner reads before each step). Answers what it did.
 */
export async function requestCancel(db: SideTableAccess, id: string, now: Date): Promise<'cancelled' | 'requested' | 'finished' | 'unknown'> {
  const at = now.toISOString();
  const waiting = await db.knex(RUN_TABLE).update({ status: 'cancelled', ended_at: at, updated_at: at, version: db.knex.raw('version + 1') }).where({ id, status: 'waiting' });
  if (Number(waiting) === 1) return 'cancelled';
  const running = await db.knex(RUN_TABLE).update({ cancel_requested: db.dialect === 'sqlite' ? 1 : true, updated_at: at }).where({ id, status: 'running' });
  if (Number(running) === 1) return 'requested';
  return (await loadRun(db, id)) ? 'finished' : 'unknown';
}

/** Runs not finished (for re-queueing the ones whose job was never added), those unchanged since `before` when given. */
export async function unfinishedRuns(db: SideTableAccess, limit: number, before?: Date): Promise<StoredRun[]> {
  const query = db.knex(RUN_TABLE);
  if (!before) query.whereIn('status', ['running', 'waiting']);
  // Later checks: running runs, and waiting ones whose delayed job was never recorded on them.
  else query.where((q) => q.where('status', 'running').orWhere((w) => w.where('status', 'waiting').whereNull('wait_job'))).andWhere('updated_at', '<', before.toISOString());
  const rows = await query.orderBy('started_at').limit(limit);
  return (rows as Row[]).map(toRun);
}
