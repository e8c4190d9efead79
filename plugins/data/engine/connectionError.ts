import { codedError, isCodedError, type CodedError } from '../../../kernel/errors.ts';

/** SQLSTATE classes and codes meaning the server or the connection went away, not the request. */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// pg reports a dropped socket by message only.
const UNAVAILABLE_MESSAGE = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable/;

/**
 * A driver error that says the database cannot be reached right now (a terminated or refused
 * connection, a full pool, a locked SQLite file) as SERVICE_UNAVAILABLE, so the client gets a 503
 * it may retry instead of a 500. The details never carry the driver's message, which quotes SQL.
 */
export function connectionError(error: unknown): CodedError | null {
  if (isCodedError(error) || typeof error !== 'object' || error === null) return null;
  const e = error as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  let reason: string | null = null;
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_MESSAGE.test(message)) reason = 'the connection to it was lost or refused';
  else if (e.name === 'KnexTimeoutError') reason = 'no connection became free in time';
  // statement_timeout (plugins.data.queryTimeoutMs) outside a read, e.g. a write waiting for a lock.
  else if (code === '57014') reason = 'a statement ran past the time budget';
  else if (code === 'OSR_READ_WORKERS_BUSY') reason = 'its read workers are still stopping earlier queries';
  else if (code.startsWith('SQLITE_BUSY')) reason = 'it is locked by another writer';
  return reason === null ? null : codedError('SERVICE_UNAVAILABLE', { service: 'The database', reason });
}

/**
 * The same engine (or `data.database` service), its driver connection errors turned into SERVICE_UNAVAILABLE at the boundary.
 * Every method is wrapped, so one added to the engine later is covered too.
 */
export function mapConnectionErrors<T extends object>(engine: T): T {
  const map = (error: unknown): never => {
    throw connectionError(error) ?? error;
  };
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(engine)) {
    if (typeof value !== 'function') {
      wrapped[key] = value;
      continue;
    }
    wrapped[key] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = (value as (...a: unknown[]) => unknown).apply(engine, args);
      } catch (error) {
        // A method that answers without waiting (getNow) throws its driver errors directly.
        return map(error);
      }
      // knex hands back thenables (a transaction object), not always native promises.
      return typeof (result as PromiseLike<unknown> | null)?.then === 'function' ? Promise.resolve(result).catch(map) : result;
    };
  }
  return wrapped as unknown as T;
}
