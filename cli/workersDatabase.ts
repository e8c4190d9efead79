import { codedError } from '../kernel/errors.ts';
import type { ResolvedEnvironment } from '../runtime/loadConfig.ts';

/** The file a `sqlite:` URL names as the data and auth plugins open it; `:memory:` for `sqlite::memory:` or no path. */
export function sqliteFilename(url: string): string | null {
  const trimmed = url.trim();
  if (!trimmed.startsWith('sqlite:')) return null;
  return trimmed.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || ':memory:';
}

/** What a worker of `osr start --workers N` does about its databases: serve with the others, or alone. */
export type WorkersPlan = { alone: false } | { alone: true; line: string };

/**
 * Workers share their databases; an in-memory SQLite database lives inside the one process that
 * opened it, so N workers would be N databases (a record written through one, missing in the next).
 * `--workers N` asked for explicitly is then refused (WORKERS_IN_MEMORY_DATABASE); the default
 * (one per core) serves with one worker and says so.
 */
export function workersPlan(environments: readonly Pick<ResolvedEnvironment, 'id' | 'databaseUrl'>[], workers: number, asked: boolean): WorkersPlan {
  if (workers <= 1) return { alone: false };
  const memory = environments.find((env) => sqliteFilename(env.databaseUrl) === ':memory:');
  if (!memory) return { alone: false };
  if (asked) {
    throw codedError('WORKERS_IN_MEMORY_DATABASE', {
      workers, environment: memory.id, url: memory.databaseUrl.trim(),
      fix: 'start with --workers 1, or give the environment a SQLite file (sqlite:./data/app.db) or PostgreSQL, which every worker shares',
    });
  }
  return {
    alone: true,
    line: `osr: environment '${memory.id}' uses an in-memory SQLite database (${memory.databaseUrl.trim()}), which lives inside one process: serving with one worker instead of ${workers} (a SQLite file or PostgreSQL serves with every core)`,
  };
}
