import { codedError } from '../../kernel/errors.ts';

/**
 * A call to Redis on a request's path, bounded (plugins.jobs.enqueueTimeoutMs): past the bound it
 * fails with JOBS_BACKEND_TIMEOUT naming the operation, so no request waits on a hung Redis longer.
 * The call itself goes on; what it does when Redis answers is not undone.
 */
export async function withinTimeout<T>(work: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(codedError('JOBS_BACKEND_TIMEOUT', { timeoutMs, operation })), timeoutMs);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
