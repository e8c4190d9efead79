/**
 * The identity database's PostgreSQL pool: a connection the server terminates while the auth
 * engine holds it (checked out, between statements) must not end the process; the engine's next
 * statement on it fails, and the pool serves the next one from a new connection.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { openAuthDatabase } from '../../plugins/auth/openAuthDatabase.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';

const problem = await postgresProblem(POSTGRES_URL);
const skip = problem !== null && process.env.CI !== 'true' ? `PostgreSQL unreachable at ${POSTGRES_URL} (${problem})` : false;

t.test('a held connection terminated by the server', { skip }, async (t) => {
  if (problem !== null) throw new Error(`PostgreSQL is required when CI=true but is unreachable: ${problem}`);
  const schema = `auth_term_${process.pid}_${randomBytes(3).toString('hex')}`;
  const db = await openAuthDatabase({ id: 'term', label: 'term', databaseUrl: POSTGRES_URL, schema });
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  t.teardown(async () => {
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
    await db.close();
  });
  const pool = db.engineHandle as pg.Pool;
  const held = await pool.connect();
  const pid = (await held.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  // Terminated between two statements: the server's notice arrives while nothing is waiting on it.
  await admin.query('select pg_terminate_backend($1)', [pid]);
  for (let i = 0; i < 50 && (held as unknown as { _queryable: boolean })._queryable !== false; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal((held as unknown as { _queryable: boolean })._queryable, false, 'the held connection heard that it was terminated (and the process is still here)');
  await t.rejects(held.query('select 1'), 'its next statement fails');
  held.release();
  t.same(await db.query('select 1 as one'), [{ one: 1 }], 'the next statement runs on a new connection');
});
