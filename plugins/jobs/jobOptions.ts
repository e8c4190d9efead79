import type { AddJobOptions, RepeatSpec } from '../../capabilities/jobsQueue.ts';
import { codedError } from '../../kernel/errors.ts';
import { parseCron } from './cronPattern.ts';
import type { NewJob } from './jobStore.ts';

/** Job names: what handlers are registered under; letters first, then letters, digits and . _ - (no colon: BullMQ keys use it) */
export const JOB_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,199}$/;

export const MAX_ATTEMPTS = 100;
/** A job carries references, not documents: its data stays small in every backend. */
export const MAX_DATA = 256_000;
const MAX_PRIORITY = 2_097_152;
/** A repeat faster than this would be a busy loop, not a schedule. */
export const MIN_EVERY_MS = 100;

const invalid = (reason: string) => codedError('JOB_OPTIONS_INVALID', { reason });

export function checkName(name: unknown): string {
  if (typeof name !== 'string' || !JOB_NAME.test(name)) throw invalid(`the job name must match ${JOB_NAME} (got ${JSON.stringify(name)?.slice(0, 60)})`);
  return name;
}

/** Checks and fills the options of add(); a bad value is a coded error that says what to send. */
export function newJob(name: string, data: unknown, options: AddJobOptions, now: Date): Omit<NewJob, 'repeat'> {
  const attempts = options.attempts ?? 3;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) throw invalid(`attempts must be an integer from 1 to ${MAX_ATTEMPTS}`);
  const backoff = typeof options.backoff === 'number' ? { type: 'exponential' as const, delay: options.backoff } : { type: options.backoff?.type ?? 'exponential', delay: options.backoff?.delay ?? 1000 };
  if (backoff.type !== 'exponential' && backoff.type !== 'fixed') throw invalid("backoff.type must be 'exponential' or 'fixed'");
  if (!Number.isInteger(backoff.delay) || backoff.delay < 0) throw invalid('backoff delay must be a whole number of milliseconds, 0 or more');
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority) || priority < 0 || priority > MAX_PRIORITY) throw invalid(`priority must be an integer from 0 to ${MAX_PRIORITY}`);
  let runAt = now;
  if (options.runAt !== undefined) {
    runAt = new Date(options.runAt);
    if (Number.isNaN(runAt.getTime())) throw invalid('runAt must be a date or an ISO 8601 string');
  } else if (options.delay !== undefined) {
    if (!Number.isFinite(options.delay) || options.delay < 0) throw invalid('delay must be a number of milliseconds, 0 or more');
    runAt = new Date(now.getTime() + options.delay);
  }
  const key = options.idempotencyKey ?? null;
  if (key !== null && (typeof key !== 'string' || key.length === 0 || key.length > 200)) throw invalid('idempotencyKey must be a string of 1 to 200 characters');
  let json: string | undefined;
  try {
    json = JSON.stringify(data ?? null);
  } catch (error) {
    throw invalid(`data must be JSON-serializable (${(error as Error).message})`);
  }
  if (json === undefined) throw invalid('data must be JSON-serializable');
  if (json.length > MAX_DATA) throw invalid(`data is ${json.length} characters of JSON; at most ${MAX_DATA} (keep large content in a record and pass its id)`);
  return { name, data: data ?? null, runAt, maxAttempts: attempts, backoffType: backoff.type, backoffDelay: backoff.delay, priority, idempotencyKey: key === null ? null : `key:${key}` };
}

export function checkRepeat(key: string, repeat: RepeatSpec): { every: number | null; pattern: string | null } {
  if (typeof key !== 'string' || key.length === 0 || key.length > 100) throw invalid('the schedule key must be a string of 1 to 100 characters');
  if (repeat.pattern !== undefined) {
    try {
      parseCron(repeat.pattern);
    } catch (error) {
      throw invalid((error as Error).message);
    }
    return { every: null, pattern: repeat.pattern };
  }
  if (!Number.isInteger(repeat.every) || repeat.every! < MIN_EVERY_MS) throw invalid(`repeat needs every (an integer of at least ${MIN_EVERY_MS} ms) or pattern (5-field cron)`);
  return { every: repeat.every!, pattern: null };
}
