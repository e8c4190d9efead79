import type { DataDatabase, SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { JobHandler, JobsQueue } from '../../capabilities/jobsQueue.ts';
import { codedError } from '../../kernel/errors.ts';
import { checkRepeat, newJob } from './jobOptions.ts';
import { countJobs, deadJobs, getJob, insertJob, JOB_TABLES, removePending, retryDead, stopSchedule } from './jobStore.ts';
import { nextSlot } from './nextSlot.ts';

/**
 * jobs.queue over the environments' databases (sys_job). `wake` tells this process's runner that a
 * job was added; other processes find it at their next poll.
 */
export function createEmbeddedQueue(deps: {
  database: DataDatabase;
  defaultEnvironment: string;
  handlers: ReadonlyMap<string, JobHandler>;
  handle: JobsQueue['handle'];
  wake: () => void;
}): JobsQueue {
  const { database, handlers } = deps;
  const db = <T>(environmentId: string | undefined, work: (db: SideTableAccess) => Promise<T>) => database.withDatabase(environmentId ?? deps.defaultEnvironment, work, undefined, JOB_TABLES);
  const known = (name: string) => {
    if (!handlers.has(name)) throw codedError('JOB_UNKNOWN_NAME', { name });
  };

  return {
    backend: 'embedded',
    handle: deps.handle,
    async add(name, data, options = {}) {
      known(name);
      const now = new Date();
      const job = newJob(name, data, options, now);
      const result = await db(options.environmentId, (d) => insertJob(d, { ...job, repeat: null }, now));
      if (result.added && job.runAt.getTime() <= now.getTime()) deps.wake();
      return result;
    },
    async schedule(name, key, repeat, data, options = {}) {
      known(name);
      const spec = checkRepeat(key, repeat);
      const now = new Date();
      const job = newJob(name, data, options, now);
      // A changed schedule replaces the pending occurrence of the old one.
      await db(options.environmentId, (d) => removePending(d, (q) => q.where({ name, repeat_key: key }).andWhere((w) => {
        if (spec.pattern) w.whereNot({ repeat_pattern: spec.pattern }).orWhereNull('repeat_pattern');
        else w.whereNot({ repeat_every: spec.every }).orWhereNull('repeat_every');
      })));
      const at = nextSlot(spec, now);
      await db(options.environmentId, (d) => insertJob(d, { ...job, runAt: at, idempotencyKey: `repeat:${key}:${at.getTime()}`, repeat: { key, ...spec } }, now));
    },
    async unschedule(name, key, environmentId) {
      // A running occurrence first loses its key, so it queues no next one; then the pending ones go.
      await db(environmentId, (d) => stopSchedule(d, name, key));
      return db(environmentId, (d) => removePending(d, (q) => q.where({ name, repeat_key: key })));
    },
    async cancel(id, environmentId) {
      return (await db(environmentId, (d) => removePending(d, (q) => q.where({ id })))) > 0;
    },
    get: (id, environmentId) => db(environmentId, (d) => getJob(d, id, environmentId ?? deps.defaultEnvironment)),
    counts: (environmentId) => db(environmentId, (d) => countJobs(d)),
    dead: (environmentId, limit = 100) => db(environmentId, (d) => deadJobs(d, environmentId ?? deps.defaultEnvironment, Math.min(Math.max(1, limit), 1000))),
    async retry(id, environmentId) {
      const found = await db(environmentId, (d) => retryDead(d, id, new Date()));
      if (found === null) throw codedError('NOT_FOUND', { what: `Job ${id}` });
      if (found !== 'dead') throw codedError('JOB_NOT_DEAD', { id, state: found });
      deps.wake();
      return (await this.get(id, environmentId))!;
    },
  };
}
