import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ReachResult {
  ok: boolean;
  detail: string;
}

/** Open the configured database and run `SELECT 1`, without touching any table. */
export async function checkDatabase(url: string, timeoutMs = 3000): Promise<ReachResult> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    // A check creates nothing: a missing file only needs a writable place to be created at start.
    if (file !== ':memory:' && !existsSync(file)) {
      const dir = nearestExisting(dirname(file));
      try {
        accessSync(dir, constants.W_OK);
        return { ok: true, detail: `SQLite file ${file} will be created at first start` };
      } catch {
        return { ok: false, detail: `SQLite file ${file} cannot be created: ${dir} is not writable` };
      }
    }
    try {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(file, { fileMustExist: file !== ':memory:' });
      db.prepare('select 1').get();
      db.close();
      return { ok: true, detail: `SQLite file ${file} opens` };
    } catch (error) {
      return { ok: false, detail: `SQLite file ${file} cannot be opened: ${(error as Error).message}` };
    }
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
    try {
      await client.connect();
      const { rows } = await client.query<{ version: string }>('select version() as version');
      return { ok: true, detail: `PostgreSQL reachable (${rows[0]?.version.split(' ').slice(0, 2).join(' ')})` };
    } catch (error) {
      return { ok: false, detail: `PostgreSQL at ${redact(url)} is not reachable: ${(error as Error).message}` };
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return { ok: false, detail: `unsupported database URL ${redact(url)}: use sqlite:PATH or postgres://...` };
}

function nearestExisting(dir: string): string {
  let current = dir;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

/** A URL without its password, for messages (Redis URLs often have no user: `redis://:secret@host`). */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}
