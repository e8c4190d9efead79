/**
 * The credential cache's race (principalCache.ts): a check in flight when the "changed" signal
 * arrives must not store what it read before. Two runtimes on one PostgreSQL database (the events
 * bus over LISTEN/NOTIFY, then over Redis). Each trial holds runtime B's check of a fresh API key
 * between its two reads (the key, then its owner: the test locks the owner's table), revokes the
 * key in the database and sends the signal through runtime A's bus, waits until B has heard it,
 * then lets the check finish. The key is then presented to B again: refused, in every trial.
 */
import t, { type Test } from 'tap';
import pg from 'pg';
import type { EventsBus } from '../../capabilities/eventsBus.ts';
import { bearer, postgresSite, signIn } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';

const TRIALS = 200;

async function race(t: Test, redis: boolean): Promise<void> {
  const site = postgresSite(t, ['race']);
  const environment = site.ids[0]!;
  const config = redis ? { redis: { url: REDIS_URL } } : {};
  const a = await site.boot({ config });
  const b = await site.boot({ config });
  const admin = (await signIn(a)).token;
  const busA = a.runtime.kernel.service<EventsBus>('events.bus')!;
  const busB = b.runtime.kernel.service<EventsBus>('events.bus')!;
  t.equal(busB.transport, redis ? 'redis' : 'postgres', 'the bus crosses processes');
  let heard = 0;
  busB.subscribe('principals.changed', () => heard++);
  const schema = `env_${environment.replace(/-/g, '_')}`;
  const locker = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
  await locker.connect();
  t.teardown(() => locker.end());
  const waitFor = async (check: () => Promise<boolean> | boolean, what: string) => {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  let accepted = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const minted = (await a.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin), payload: { name: `race-${trial}` } })).json() as { id: string; key: string };
    await locker.query('begin');
    await locker.query('lock table sys_user in access exclusive mode');
    // B checks the key: it reads the key (valid), then waits for the owner's row.
    const inFlight = b.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } });
    await waitFor(async () => (await locker.query('select count(*)::int as n from pg_locks where not granted')).rows[0].n > 0, 'the check to wait on the lock');
    // The revocation: the key deleted, the signal sent, and heard by B while its check is under way.
    await locker.query('delete from sys_api_key where id = $1', [minted.id]);
    await locker.query('commit');
    const before = heard;
    busA.publish('principals.changed', { environmentId: environment });
    await waitFor(() => heard > before, 'B to hear the signal');
    await inFlight;
    const after = await b.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } });
    if (after.statusCode !== 401) accepted++;
  }
  t.equal(accepted, 0, `no revoked key accepted after the signal in ${TRIALS} trials`);
}

t.test('a revocation heard during a credential check is not undone by it', async (t) => {
  const problem = await postgresProblem(POSTGRES_URL);
  const ci = process.env.CI === 'true';
  if (problem !== null && ci) throw new Error(`PostgreSQL is required when CI=true but is unreachable: ${problem}`);
  await t.test('PostgreSQL LISTEN/NOTIFY', { skip: problem !== null ? `PostgreSQL unreachable (${problem})` : false }, (t) => race(t, false));
  const redisDown = await redisProblem();
  if (redisDown !== null && ci) throw new Error(`Redis is required when CI=true but is unreachable: ${redisDown}`);
  await t.test('Redis pub/sub', { skip: problem ?? redisDown ?? false }, (t) => race(t, true));
});
