import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { DataDatabase, DatabaseWork } from '../../capabilities/dataDatabase.ts';
import type { FlowsRunner, FlowStartOptions } from '../../capabilities/flowsRunner.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import { CodedError, codedError } from '../../kernel/errors.ts';
import type { ResolvedAction } from '../../metadata/actionTypes.ts';
import type { FlowRun, FlowRunStep, FlowScope, ResolvedFlow, ResolvedFlowStep } from '../../metadata/flowTypes.ts';
import { validateActionInput } from '../actions/validateActionInput.ts';
import { runStep, type StepDeps } from './runStep.ts';
import { insertRun, loadRun, requestCancel, unfinishedRuns, updateRun, type StarterSnapshot, type StoredRun } from './runStore.ts';

/** The job that runs (and resumes) a flow run; its data is `{ runId }`. */
export const RUN_JOB = 'flows.run';
/** Who system runs act as: `updated_by` / `created_by` of what they write, and `startedBy` null on the run. */
export const SYSTEM_USER = 'system';

interface Log {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

export interface RunnerDeps extends StepDeps {
  flows: () => ResolvedFlow[];
  database: DataDatabase;
  queue: JobsQueue;
  grants: AccessGrants;
  jobAttempts: number;
  log: Log;
  now?: () => Date;
}

export interface Runner extends FlowsRunner {
  /** The job handler. */
  execute(environmentId: string, runId: string): Promise<void>;
  /** Starts record flows inside the write that fired them (the run row commits with the write). */
  startForRecord(flow: ResolvedFlow, record: DataRecord, environmentId: string, within: DataEngine): Promise<void>;
  /**
   * Queues unfinished runs whose job was never added (a crash between the write and the queue),
   * and fails those whose job is dead; with `idleMs`, only runs unchanged for that long. At ready,
   * and then periodically in every process.
   */
  recover(environmentId: string, idleMs?: number): Promise<number>;
  /** The run's job went dead (out of attempts, or interrupted too often): the run fails with the reason. */
  jobDead(environmentId: string, runId: string, reason: string): Promise<boolean>;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Principals of system runs, by the flow acting through them: a record flow's own writes do not start it again. */
export const writers = new WeakMap<object, string>();

export function systemPrincipal(environmentId: string): Principal {
  return { kind: 'system', userId: SYSTEM_USER, environmentId, organizationId: null, isAdmin: true, positions: [], permissionSets: [], permissions: [] };
}

function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof CodedError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: (error as Error)?.message ?? String(error) };
}

/** The public view of a run. */
export function publicRun(run: StoredRun): FlowRun {
  const { version: _v, record: _r, cancelRequested: _c, waitJob: _w, requestId: _q, starter: _s, ...rest } = run;
  return rest;
}

export function createFlowsRunner(deps: RunnerDeps): Runner {
  const now = deps.now ?? (() => new Date());
  let byName: Map<string, ResolvedFlow> | null = null;
  const all = () => (byName ??= new Map(deps.flows().map((f) => [f.name, f])));
  const db = <T>(environmentId: string, work: (db: DatabaseWork) => Promise<T>, within?: DataEngine) => deps.database.withDatabase(environmentId, work, within);

  async function queueRun(environmentId: string, runId: string, key: string, runAt?: Date): Promise<string> {
    const { id } = await deps.queue.add(RUN_JOB, { runId }, { environmentId, idempotencyKey: key, attempts: deps.jobAttempts, backoff: 1000, ...(runAt ? { runAt } : {}) });
    return id;
  }

  function validate(flow: ResolvedFlow, input: unknown): Record<string, unknown> {
    const checked = validateActionInput({ object: null, input: flow.input } as unknown as ResolvedAction, input ?? {});
    if (!checked.ok) {
      const errors = checked.problems;
      throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
    }
    return checked.input;
  }

  async function start(name: string, input: unknown, options: FlowStartOptions) {
    const flow = all().get(name);
    if (!flow) throw codedError('NOT_FOUND', { what: `Flow '${name.slice(0, 64)}'`, flow: name.slice(0, 64) });
    if (!options.principal && flow.runAs !== 'system') throw codedError('UNAUTHENTICATED');
    const checked = validate(flow, input);
    const principal = options.principal;
    const starter: StarterSnapshot | null = principal && flow.runAs === 'caller'
      ? { kind: principal.kind, userId: principal.userId, organizationId: principal.organizationId ?? null, email: principal.email ?? null, isAdmin: principal.isAdmin }
      : null;
    const { run } = await db(options.environmentId, (d) => insertRun(d, {
      flow: flow.name, trigger: options.trigger, runAs: flow.runAs,
      startedBy: principal && principal.kind !== 'system' ? principal.userId : null,
      input: checked, record: options.record ?? null,
      idempotencyKey: options.idempotencyKey ?? null, requestId: options.requestId ?? null, starter,
    }, now()));
    if (run.status === 'running') await queueRun(options.environmentId, run.id, `${run.id}:start`);
    return { runId: run.id, status: run.status };
  }

  /** The data context and principal a run acts with: the starter's grants resolved now, or the system. */
  async function actor(run: StoredRun, environmentId: string): Promise<{ data: DataContext; principal: Principal }> {
    if (run.runAs === 'system' || !run.starter) {
      const principal = systemPrincipal(environmentId);
      writers.set(principal, run.flow);
      return { data: { environmentId, principal, system: true, ...(run.requestId ? { requestId: run.requestId } : {}) }, principal };
    }
    const s = run.starter;
    const principal = await deps.grants.resolve({ kind: s.kind, userId: s.userId, environmentId, organizationId: s.organizationId, email: s.email, isAdmin: s.isAdmin, positions: [], permissionSets: [], permissions: [] });
    return { data: { environmentId, principal, ...(run.requestId ? { requestId: run.requestId } : {}) }, principal };
  }

  async function execute(environmentId: string, runId: string): Promise<void> {
    let run = await db(environmentId, (d) => loadRun(d, runId));
    if (!run || TERMINAL.has(run.status)) return;
    const flow = all().get(run.flow);
    const save = async (change: Parameters<typeof updateRun>[3]): Promise<boolean> => {
      const ok = await db(environmentId, (d) => updateRun(d, runId, run!.version, change, now()));
      if (ok) run = { ...run!, version: run!.version + 1, ...(change.steps ? { steps: change.steps } : {}), ...(change.status ? { status: change.status } : {}) };
      return ok;
    };
    if (!flow) {
      await save({ status: 'failed', error: { code: 'NOT_FOUND', message: `flow '${run.flow}' is no longer declared` }, endedAt: now() });
      return;
    }
    const steps: FlowRunStep[] = [...run.steps];
    // A cancel asked while the run was going into its wait stops it here, at the wait's end.
    if (run.status === 'waiting' && run.cancelRequested) {
      await save({ status: 'cancelled', endedAt: now(), waitJob: null });
      return;
    }
    if (run.status === 'waiting') {
      const at = steps.findIndex((s) => s.status === 'waiting');
      const until = at >= 0 ? new Date(String((steps[at]!.output as { until?: string } | null)?.until ?? 0)) : now();
      if (until.getTime() > now().getTime()) {
        // Woken early (a clock ahead of this one): wait again for the rest.
        await queueRun(environmentId, runId, `${runId}:${steps[at]!.id}:again:${until.getTime()}`, until);
        return;
      }
      if (at >= 0) steps[at] = { ...steps[at]!, status: 'completed' };
      // Waiting -> running once: a cancel or another process resuming it first wins.
      if (!(await save({ status: 'running', steps, waitJob: null }))) return;
    }
    const { data, principal } = await actor(run, environmentId);
    const user = run.runAs === 'system' || !run.starter
      ? { id: SYSTEM_USER, positions: [], organizationId: null }
      : { id: principal.userId, positions: principal.positions, organizationId: principal.organizationId ?? null };
    const recorded = new Map(steps.map((s) => [s.id, s]));
    const scope = (): FlowScope => ({
      input: run!.input,
      steps: Object.fromEntries(steps.filter((s) => s.status === 'completed').map((s) => [s.id, { status: s.status, output: s.output }])),
      record: run!.record,
      context: { now: now(), user },
    });
    const record = async (entry: FlowRunStep, change: Parameters<typeof updateRun>[3] = {}): Promise<boolean> => {
      const i = steps.findIndex((s) => s.id === entry.id);
      if (i >= 0) steps[i] = entry; else steps.push(entry);
      recorded.set(entry.id, entry);
      return save({ ...change, steps: [...steps] });
    };

    /** Walks the steps, replaying those recorded; 'done', or 'stop' (waiting, failed, cancelled, or taken over). */
    const walk = async (list: readonly ResolvedFlowStep[]): Promise<'done' | 'stop'> => {
      for (const step of list) {
        const done = recorded.get(step.id);
        if (done?.status === 'completed') {
          if (step.type === 'branch') {
            const taken = (done.output as { branch?: string } | null)?.branch === 'then' ? step.then ?? [] : step.else ?? [];
            if ((await walk(taken)) === 'stop') return 'stop';
          }
          continue;
        }
        // A step boundary: a cancel asked meanwhile stops the run here; a run changed elsewhere is not ours any more.
        const fresh = await db(environmentId, (d) => loadRun(d, runId));
        if (!fresh || fresh.version !== run!.version || TERMINAL.has(fresh.status)) return 'stop';
        if (fresh.cancelRequested) {
          await save({ status: 'cancelled', endedAt: now() });
          return 'stop';
        }
        try {
          if (step.type === 'wait') {
            const until = step.seconds !== undefined ? new Date(now().getTime() + step.seconds * 1000) : new Date(String(step.until!.evaluate(scope())));
            if (Number.isNaN(until.getTime())) throw codedError('VALIDATION_ERROR', { summary: `step '${step.id}': until is not a date` });
            if (until.getTime() <= now().getTime()) {
              if (!(await record({ id: step.id, status: 'completed', output: { until: until.toISOString() }, error: null }))) return 'stop';
              continue;
            }
            // A delayed job resumes the run; nothing sleeps meanwhile. The step is recorded first, so a
            // job that runs before this write lands finds the run still running and stops (version check).
            if (!(await record({ id: step.id, status: 'waiting', output: { until: until.toISOString() }, error: null }, { status: 'waiting' }))) return 'stop';
            const job = await queueRun(environmentId, runId, `${runId}:${step.id}:wait`, until);
            await db(environmentId, (d) => d.knex('sys_flow_run').update({ wait_job: job }).where({ id: runId, status: 'waiting' }));
            return 'stop';
          }
          if (step.type === 'branch') {
            const holds = step.when!.evaluate(scope()) === true;
            if (!(await record({ id: step.id, status: 'completed', output: { branch: holds ? 'then' : 'else' }, error: null }))) return 'stop';
            if ((await walk(holds ? step.then ?? [] : step.else ?? [])) === 'stop') return 'stop';
            continue;
          }
          const output = await runStep(deps, step, { runId, flow: flow!, scope: scope(), data, principal, environmentId });
          if (!(await record({ id: step.id, status: 'completed', output: output ?? null, error: null }))) return 'stop';
        } catch (error) {
          const failure = errorOf(error);
          await record({ id: step.id, status: 'failed', output: null, error: failure }, { status: 'failed', error: { ...failure, message: `step '${step.id}': ${failure.message}` }, endedAt: now() });
          deps.log.warn({ flow: flow!.name, runId, step: step.id, code: failure.code }, 'flows: a step failed');
          return 'stop';
        }
      }
      return 'done';
    };

    if ((await walk(flow.steps)) === 'done') await save({ status: 'completed', endedAt: now() });
  }

  /** The run's job is dead: the run fails with the reason (unless it finished or changed meanwhile, retried). */
  async function jobDead(environmentId: string, runId: string, reason: string): Promise<boolean> {
    for (let tries = 0; tries < 3; tries++) {
      const run = await db(environmentId, (d) => loadRun(d, runId));
      if (!run || TERMINAL.has(run.status)) return false;
      const error = codedError('FLOW_RUN_JOB_DEAD', {
        flow: run.flow, reason,
        fix: 'see the reason; start the flow again once its cause is fixed, or allow more attempts (plugins.flows.jobAttempts)',
      });
      const ok = await db(environmentId, (d) => updateRun(d, runId, run.version, { status: 'failed', error: { code: error.code, message: error.message }, endedAt: now(), waitJob: null }, now()));
      if (ok) {
        deps.log.warn({ flow: run.flow, runId, reason }, 'flows: a run failed: its job is dead');
        return true;
      }
    }
    return false;
  }

  return {
    list: () => [...all().values()],
    get: (name) => all().get(name),
    start,
    async getRun(environmentId, runId) {
      const run = await db(environmentId, (d) => loadRun(d, runId));
      return run ? publicRun(run) : null;
    },
    async cancel(environmentId, runId) {
      const run = await db(environmentId, (d) => loadRun(d, runId));
      if (!run) return null;
      const outcome = await db(environmentId, (d) => requestCancel(d, runId, now()));
      const after = await db(environmentId, (d) => loadRun(d, runId));
      if (outcome === 'cancelled' && after?.waitJob) await deps.queue.cancel(after.waitJob, environmentId).catch(() => false);
      return after ? publicRun(after) : null;
    },
    execute,
    async startForRecord(flow, record, environmentId, within) {
      const { run, added, committed } = await db(environmentId, async (d) => ({ ...await insertRun(d, {
        flow: flow.name, trigger: 'record', runAs: 'system', startedBy: null, input: {}, record,
        idempotencyKey: null, requestId: null, starter: null,
      }, now()), committed: d.whenCommitted() }), within);
      // The job is queued once the write committed: queued before, a worker could look for the run
      // before it exists and end the job with nothing done. A rolled-back write leaves no run to
      // queue; a crash in between leaves a running run without a job, which recover() queues at boot.
      if (!added) return;
      void committed.then((ok) => ok ? queueRun(environmentId, run.id, `${run.id}:start`) : undefined)
        .catch((error) => deps.log.warn({ flow: flow.name, runId: run.id, err: (error as Error).message }, 'flows: could not queue a record run'));
    },
    async recover(environmentId, idleMs) {
      const runs = await db(environmentId, (d) => unfinishedRuns(d, 1000, idleMs === undefined ? undefined : new Date(now().getTime() - idleMs)));
      let queued = 0;
      for (const run of runs) {
        // The same keys as the first queueing: a run whose job exists (or existed) queues nothing.
        const waiting = run.status === 'waiting' ? run.steps.find((s) => s.status === 'waiting') : undefined;
        const until = waiting ? new Date(String((waiting.output as { until?: string } | null)?.until ?? 0)) : undefined;
        const key = waiting ? `${run.id}:${waiting.id}:wait` : `${run.id}:start`;
        const { id, added } = await deps.queue.add(RUN_JOB, { runId: run.id }, { environmentId, idempotencyKey: key, attempts: deps.jobAttempts, backoff: 1000, ...(until && !Number.isNaN(until.getTime()) ? { runAt: until } : {}) });
        if (added) {
          queued += 1;
          continue;
        }
        // Its job exists: a dead one ran out of attempts while the process that saw it die did not record it on the run.
        const job = await deps.queue.get(id, environmentId);
        if (job?.state === 'dead') await jobDead(environmentId, run.id, job.lastError ?? 'the job is dead');
      }
      return queued;
    },
    jobDead,
  };
}
