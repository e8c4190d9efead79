import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { JobCount, JobInfo, JobState } from '../../capabilities/jobsQueue.ts';
import { backoffDelay } from './backoffDelay.ts';

/** The engine-owned table of jobs (declared as sys_job in ./system-app) and the side table of their data. */
export const JOB_TABLE = 'sys_job';
export const PAYLOAD_TABLE = 'sys_job_payload';
/** What the queue's own statements write: the data engine forgets remembered totals of these only. */
export const JOB_TABLES = { touches: [JOB_TABLE, PAYLOAD_TABLE] } as const;

/** Longest last error kept (the column's maxLength). */
const MAX_ERROR = 2000;

export interface NewJob {
  name: string;
  data: unknown;
  runAt: Date;
  maxAttempts: number;
  backoffType: 'exponential' | 'fixed';
  backoffDelay: number;
  priority: number;
  idempotencyKey: string | null;
  repeat: { key: string; every: number | null; pattern: string | null } | null;
}

/** A claimed job with what its handler and its completion need. */
export interface ClaimedJob {
  id: string;
  name: string;
  attempts: number;
  maxAttempts: number;
  backoffType: 'exponential' | 'fixed';
  backoffDelay: number;
  repeatKey: string | null;
  repeatEvery: number | null;
  repeatPattern: string | null;
  data: unknown;
}

type Row = Record<string, unknown>;

const iso = (d: Date) => d.toISOString();
const isoOrNull = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/** Creates the payload side table when missing (sys_job itself is synced from metadata by the data engine). */
export async function ensurePayloadTable(db: SideTableAccess): Promise<void> {
  if (await db.knex.schema.hasTable(PAYLOAD_TABLE)) return;
  await db.knex.schema.createTable(PAYLOAD_TABLE, (table) => {
    table.text('job_id').primary();
    table.text('data').notNullable();
  }).catch(async (error: unknown) => {
    // Another process created it first.
    if (!(await db.knex.schema.hasTable(PAYLOAD_TABLE))) throw error;
  });
}

/** Inserts a job; with an idempotency key already used, inserts nothing and answers the first job's id. */
/** Inserts the job and its data in `trx`; false when its idempotency key is taken. */
async function insertIn(trx: Knex.Transaction, id: string, job: NewJob, now: Date): Promise<boolean> {
  const state: JobState = job.runAt.getTime() > now.getTime() ? 'delayed' : 'waiting';
  const inserted = await trx(JOB_TABLE).insert({
    id, version: 1, created_at: iso(now), updated_at: iso(now),
    name: job.name, state, attempts: 0, max_attempts: job.maxAttempts,
    backoff_type: job.backoffType, backoff_delay: job.backoffDelay, priority: job.priority,
    run_at: iso(job.runAt), idempotency_key: job.idempotencyKey,
    repeat_key: job.repeat?.key ?? null, repeat_every: job.repeat?.every ?? null, repeat_pattern: job.repeat?.pattern ?? null,
  }).onConflict(['name', 'idempotency_key']).ignore().returning('id');
  if (inserted.length === 0) return false;
  await trx(PAYLOAD_TABLE).insert({ job_id: id, data: JSON.stringify(job.data ?? null) });
  return true;
}

/**
 * Queues the next occurrence of the running occurrence `currentId`, unless the schedule was stopped
 * meanwhile (stopSchedule cleared its repeat key): both take the occurrence's row, so a stop and
 * this never interleave and a stopped schedule is never queued again.
 */
export async function insertNextOccurrence(db: SideTableAccess, currentId: string, job: NewJob & { repeat: NonNullable<NewJob['repeat']> }, now: Date): Promise<boolean> {
  return db.writeTransaction(async (trx) => {
    const current = trx(JOB_TABLE).select('id').where({ id: currentId, repeat_key: job.repeat.key });
    const live = await (db.dialect === 'postgres' ? current.forUpdate() : current);
    if (live.length === 0) return false;
    return insertIn(trx, randomUUID(), job, now);
  });
}

/** Stops the running occurrences of a schedule from queueing a next one; answers how many ran. */
export async function stopSchedule(db: SideTableAccess, name: string, key: string): Promise<number> {
  return db.knex(JOB_TABLE).where({ name, repeat_key: key, state: 'active' }).update({ repeat_key: null });
}

export async function insertJob(db: SideTableAccess, job: NewJob, now: Date): Promise<{ id: string; added: boolean }> {
  const id = randomUUID();
  const added = await db.writeTransaction((trx) => insertIn(trx, id, job, now));
  if (added) return { id, added };
  const first = await db.knex(JOB_TABLE).select('id').where({ name: job.name, idempotency_key: job.idempotencyKey }).first();
  return { id: String(first!.id), added: false };
}

/**
 * Claims up to `limit` due jobs of the given names for `worker` until `leaseUntil`: waiting, delayed
 * or failed jobs whose time has come, and active jobs whose lease ran out (their process died).
 * One statement; on PostgreSQL the candidates are locked with SKIP LOCKED, so two processes never
 * claim the same job; SQLite has one writer.
 */
export async function claimJobs(db: SideTableAccess, worker: string, names: readonly string[], limit: number, now: Date, leaseUntil: Date): Promise<ClaimedJob[]> {
  if (names.length === 0 || limit <= 0) return [];
  const marks = names.map(() => '?').join(', ');
  const lock = db.dialect === 'postgres' ? 'for update skip locked' : '';
  const nowIso = iso(now);
  const result = await db.knex.raw(
    `update ${JOB_TABLE} set state = 'active', attempts = attempts + 1, locked_by = ?, locked_until = ?, started_at = ?, updated_at = ?, version = version + 1
     where id in (
       select id from ${JOB_TABLE}
       where name in (${marks}) and ((state in ('waiting', 'delayed', 'failed') and run_at <= ?) or (state = 'active' and locked_until < ?))
       order by priority, run_at, id limit ? ${lock})
     returning id, name, attempts, max_attempts, backoff_type, backoff_delay, repeat_key, repeat_every, repeat_pattern`,
    [worker, iso(leaseUntil), nowIso, nowIso, ...names, nowIso, nowIso, limit],
  );
  const rows: Row[] = db.dialect === 'postgres' ? result.rows : result;
  if (rows.length === 0) return [];
  const payloads = await db.knex(PAYLOAD_TABLE).select('job_id', 'data').whereIn('job_id', rows.map((r) => String(r.id)));
  const data = new Map(payloads.map((p: Row) => [String(p.job_id), String(p.data)]));
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    backoffType: r.backoff_type === 'fixed' ? 'fixed' : 'exponential',
    backoffDelay: Number(r.backoff_delay),
    repeatKey: (r.repeat_key as string | null) ?? null,
    repeatEvery: r.repeat_every === null || r.repeat_every === undefined ? null : Number(r.repeat_every),
    repeatPattern: (r.repeat_pattern as string | null) ?? null,
    data: JSON.parse(data.get(String(r.id)) ?? 'null'),
  }));
}

/** Extends the lease of jobs this worker still holds. */
export async function renewLeases(db: SideTableAccess, worker: string, ids: readonly string[], leaseUntil: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.knex(JOB_TABLE).update({ locked_until: iso(leaseUntil) }).whereIn('id', [...ids]).andWhere({ state: 'active', locked_by: worker });
}

/** Marks a job done, if this worker still holds it (one statement; its data goes at the next sweep). */
export async function completeJob(db: SideTableAccess, worker: string, id: string, now: Date): Promise<void> {
  await db.knex(JOB_TABLE).update({ state: 'completed', finished_at: iso(now), updated_at: iso(now), locked_by: null, locked_until: null, version: db.knex.raw('version + 1') })
    .where({ id, state: 'active', locked_by: worker });
}

/** Records a failed attempt: `failed` (a retry at its backoff time) or `dead`; null when this worker no longer held the job. */
export async function failJob(db: SideTableAccess, worker: string, job: ClaimedJob, error: unknown, now: Date): Promise<JobState | null> {
  const dead = job.attempts >= job.maxAttempts;
  const state: JobState = dead ? 'dead' : 'failed';
  const runAt = dead ? now : new Date(now.getTime() + backoffDelay(job.backoffType, job.backoffDelay, job.attempts));
  const count = await db.knex(JOB_TABLE).update({
    state, run_at: iso(runAt), finished_at: dead ? iso(now) : null, updated_at: iso(now),
    last_error: errorText(error), locked_by: null, locked_until: null, version: db.knex.raw('version + 1'),
  }).where({ id: job.id, state: 'active', locked_by: worker });
  return Number(count) === 1 ? state : null;
}

/** Gives an unfinished job back at drain: waiting again, the attempt not counted. */
export async function handBack(db: SideTableAccess, worker: string, ids: readonly string[], now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  return db.knex(JOB_TABLE).update({ state: 'waiting', run_at: iso(now), updated_at: iso(now), locked_by: null, locked_until: null, attempts: db.knex.raw('attempts - 1'), version: db.knex.raw('version + 1') })
    .whereIn('id', [...ids]).andWhere({ state: 'active', locked_by: worker });
}

/** The first line of an error's message, bounded; never its stack or the job's data. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 1)}…` : text;
}

function toInfo(row: Row, environmentId: string): JobInfo {
  return {
    id: String(row.id),
    name: String(row.name),
    state: row.state as JobState,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    priority: Number(row.priority),
    runAt: isoOrNull(row.run_at)!,
    startedAt: isoOrNull(row.started_at),
    finishedAt: isoOrNull(row.finished_at),
    lastError: (row.last_error as string | null) ?? null,
    repeatKey: (row.repeat_key as string | null) ?? null,
    createdAt: isoOrNull(row.created_at)!,
    environmentId,
  };
}

const INFO_COLUMNS = ['id', 'name', 'state', 'attempts', 'max_attempts', 'priority', 'run_at', 'started_at', 'finished_at', 'last_error', 'repeat_key', 'created_at'];

export async function getJob(db: SideTableAccess, id: string, environmentId: string): Promise<JobInfo | null> {
  const row = await db.knex(JOB_TABLE).select(INFO_COLUMNS).where({ id }).first();
  return row ? toInfo(row, environmentId) : null;
}

export async function countJobs(db: SideTableAccess): Promise<JobCount[]> {
  const rows: Row[] = await db.knex(JOB_TABLE).select('name', 'state').count({ count: '*' }).groupBy('name', 'state').orderBy(['name', 'state']);
  return rows.map((r) => ({ name: String(r.name), state: r.state as JobState, count: Number(r.count) }));
}

export async function deadJobs(db: SideTableAccess, environmentId: string, limit: number): Promise<JobInfo[]> {
  const rows: Row[] = await db.knex(JOB_TABLE).select(INFO_COLUMNS).where({ state: 'dead' }).orderBy('finished_at', 'desc').limit(limit);
  return rows.map((r) => toInfo(r, environmentId));
}

/** Dead -> waiting with attempts reset; answers the state it found (null: unknown id). */
export async function retryDead(db: SideTableAccess, id: string, now: Date): Promise<JobState | null> {
  const n = await db.knex(JOB_TABLE).update({ state: 'waiting', attempts: 0, run_at: iso(now), finished_at: null, updated_at: iso(now), version: db.knex.raw('version + 1') })
    .where({ id, state: 'dead' });
  if (n > 0) return 'dead';
  const row = await db.knex(JOB_TABLE).select('state').where({ id }).first();
  return row ? (row.state as JobState) : null;
}

/** Removes jobs that have not started; answers how many. */
export async function removePending(db: SideTableAccess, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  return db.writeTransaction(async (trx) => {
    const rows: Row[] = await where(trx(JOB_TABLE).select('id')).whereIn('state', ['waiting', 'delayed', 'failed']);
    if (rows.length === 0) return 0;
    // The state is checked again by the delete: a job claimed meanwhile keeps its row and its data.
    const candidates = rows.map((r) => String(r.id));
    const result = await trx.raw(
      `delete from ${JOB_TABLE} where id in (${candidates.map(() => '?').join(', ')}) and state in ('waiting', 'delayed', 'failed') returning id`,
      candidates,
    );
    const ids = (db.dialect === 'postgres' ? result.rows as Row[] : result as Row[]).map((r) => String(r.id));
    if (ids.length > 0) await trx(PAYLOAD_TABLE).whereIn('job_id', ids).delete();
    return ids.length;
  });
}

/** Drops the data of completed jobs, and deletes those finished before `before` (dead ones stay until retried). */
export async function sweepCompleted(db: SideTableAccess, before: Date): Promise<number> {
  await db.knex(PAYLOAD_TABLE).whereIn('job_id', db.knex(JOB_TABLE).select('id').where({ state: 'completed' })).delete();
  return db.knex(JOB_TABLE).where({ state: 'completed' }).andWhere('finished_at', '<', iso(before)).delete();
}
