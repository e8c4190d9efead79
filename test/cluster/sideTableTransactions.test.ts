/**
 * Side-table transactions on a SQLite file another connection writes too (a worker of
 * `osr start --workers N`, another process): each takes the write lock at BEGIN
 * (`writeTransaction`, BEGIN IMMEDIATE), so one that reads before it writes is never refused with
 * SQLITE_BUSY because the other connection committed in between. Shown for the job queue's
 * transactions, an archive batch of a retention contract and a settings write: between the
 * transaction's read and its write, another connection on the file tries to write. With the lock
 * taken at BEGIN that attempt is the one told to wait (here: refused at once, its busy timeout 0)
 * and the transaction commits; begun with a plain BEGIN, the other connection's write went first
 * and the transaction failed at its write.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import type { DataDatabase, SideTableAccess } from '../../capabilities/dataDatabase.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { SettingsStore } from '../../capabilities/settingsStore.ts';
import { applyContract } from '../../plugins/lifecycle/applyContract.ts';
import { insertJob, insertNextOccurrence, JOB_TABLES, removePending, type NewJob } from '../../plugins/jobs/jobStore.ts';
import { settingsServiceOf } from '../../plugins/settings/index.ts';
import { sqliteSite } from '../auth/authHarness.ts';

const APP = { apps: ['test/data/fixtures/nested-app'] };

async function boot(t: Test, email?: Record<string, unknown>) {
  const site = sqliteSite(t, ['sidetx']);
  const rt = await site.boot({ config: APP, ...(email ? { email } : {}) });
  const environment = site.ids[0]!;
  const database = rt.runtime.kernel.service<DataDatabase>('data.database')!;
  // The other connection: another process on the file, told not to wait for the lock.
  const other = new Database(join(site.dataDir, `${environment}.db`), { timeout: 0 });
  t.teardown(() => other.close());
  other.exec('create table if not exists other_writes (n integer)');
  const statements: Array<{ sql: string }> = [];
  let armed: RegExp | null = null;
  const attempts: string[] = [];
  await database.withDatabase(environment, async ({ knex }) => {
    knex.on('query', (q: { sql: string }) => {
      statements.push(q);
      // Between the transaction's read and its write: the other connection writes now.
      if (armed && armed.test(q.sql)) {
        armed = null;
        try {
          other.prepare('insert into other_writes (n) values (1)').run();
          attempts.push('written');
        } catch (error) {
          attempts.push(String((error as { code?: string }).code));
        }
      }
    });
  });
  /** Runs `work`, the other connection trying to write when a statement matching `at` starts. */
  const interleaved = async <T>(at: RegExp, work: () => Promise<T>): Promise<{ result: T; attempt: string | undefined }> => {
    attempts.length = 0;
    armed = at;
    try {
      return { result: await work(), attempt: attempts[0] };
    } finally {
      armed = null;
    }
  };
  const side = <T>(work: (db: SideTableAccess) => Promise<T>) => database.withDatabase(environment, work, undefined, JOB_TABLES);
  const afterwards = () => other.prepare('insert into other_writes (n) values (2)').run().changes;
  return { rt, environment, database, other, interleaved, side, afterwards, statements };
}

const job = (name: string, repeat: NewJob['repeat'] = null): NewJob => ({
  name, data: { n: 1 }, runAt: new Date(Date.now() + 3_600_000), maxAttempts: 1, backoffType: 'fixed', backoffDelay: 0, priority: 0, idempotencyKey: null, repeat,
});

t.test('job queue transactions take the write lock at BEGIN', async (t) => {
  const { interleaved, side, afterwards, statements } = await boot(t);
  const repeat = { key: 'every-hour', every: 3_600_000, pattern: null };
  const first = await side((db) => insertJob(db, job('sidetx.repeat', repeat), new Date()));
  t.equal(first.added, true, 'a repeating job queued');
  statements.length = 0;
  const next = await interleaved(/^insert into [`"]sys_job[`"]/i, () => side((db) => insertNextOccurrence(db, first.id, { ...job('sidetx.repeat', repeat), repeat }, new Date())));
  t.equal(next.result, true, 'the next occurrence is queued after reading the current one');
  t.equal(next.attempt, 'SQLITE_BUSY', 'the other connection could not write in between');
  t.equal(statements.find((s) => /^begin/i.test(s.sql))?.sql, 'BEGIN IMMEDIATE;', 'the transaction began with the write lock');
  t.equal(afterwards(), 1, 'it writes once the transaction committed');

  await side((db) => insertJob(db, job('sidetx.pending'), new Date()));
  const removed = await interleaved(/^delete from sys_job /i, () => side((db) => removePending(db, (q) => q.where({ name: 'sidetx.pending' }))));
  t.equal(removed.result, 1, 'a pending job removed after reading it');
  t.equal(removed.attempt, 'SQLITE_BUSY', 'the other connection could not write in between');
  t.equal(afterwards(), 1, 'it writes once the transaction committed');
});

t.test('an archive batch of a retention contract takes the write lock at BEGIN', async (t) => {
  const { rt, environment, interleaved, side, afterwards } = await boot(t);
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: environment, principal: null, system: true };
  for (const code of ['a', 'b', 'c']) await engine.create('tag', { code }, system);
  const window = { name: 'test.tags', plugin: 'test', object: 'tag', description: 'tags', keepDays: 1, action: 'archive' as const, ageField: 'created_at', overridden: false };
  const applied = await interleaved(/^insert into [`"]osr_archive[`"]/i, () => side((db) => applyContract(db, window, { dryRun: false, now: new Date(Date.now() + 10 * 86_400_000), batchSize: 10, maxBatches: 2 })));
  t.same([applied.result.status, applied.result.rows], ['applied', 3], 'the three rows archived after reading them');
  t.equal(applied.attempt, 'SQLITE_BUSY', 'the other connection could not write in between');
  t.equal(afterwards(), 1, 'it writes once the transaction committed');
});

t.test('a settings write takes the write lock at BEGIN', async (t) => {
  // The mail plugin running: it reads the `email` namespace (a namespace nothing reads refuses writes).
  const { rt, environment, interleaved, afterwards } = await boot(t, { provider: 'log' });
  const service = settingsServiceOf(rt.runtime.kernel.service<SettingsStore>('settings.store')!)!;
  const body = { provider: 'smtp', from: 'noreply@example.com', smtp: { host: '127.0.0.1', port: 2525 } };
  const written = await interleaved(/^insert into [`"]osr_settings[`"]/i, () => service.write(environment, 'email', body, null));
  t.same([written.result.revision, written.result.values?.from], [1, 'noreply@example.com'], 'the settings written after reading the previous row');
  t.equal(written.attempt, 'SQLITE_BUSY', 'the other connection could not write in between');
  t.equal(afterwards(), 1, 'it writes once the transaction committed');
});
