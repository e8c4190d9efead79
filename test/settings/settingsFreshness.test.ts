/**
 * The settings cache follows the rule every cache shares (capabilities/cacheFreshness.ts): runtime
 * B hears the events bus (PostgreSQL LISTEN, or the Redis subscriber on a SQLite data directory)
 * through a proxy that stops forwarding without closing. Once B no longer trusts its bus, a
 * settings change made in runtime A, whose message B never hears, is read by B from the database
 * at once, not served from what it remembered (which its 30-second lifetime would otherwise keep).
 */
import t, { type Test } from 'tap';
import type { SettingsStore } from '../../capabilities/settingsStore.ts';
import { settingsServiceOf } from '../../plugins/settings/index.ts';
import { bearer, postgresSite, signIn, sqliteSite, type Site } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { freezeProxy } from '../harness/freezeProxy.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';

interface Health { details: { signals: Array<{ path: string; live: boolean }> } }
const trusted = async (rt: TestRuntime) => {
  const signals = ((await rt.inject({ url: '/api/v1/health' })).json() as Health).details.signals;
  return signals.length > 0 && signals.every((s) => s.live);
};
/**
 * Whether B's events bus itself is not proven live: the path the settings cache trusts. On
 * PostgreSQL the proxy also freezes the data plugin's own LISTEN, whose heartbeat may be found
 * overdue first: health then says "not trusted" while the bus's heartbeat is still in its window.
 */
const busDown = async (rt: TestRuntime) => {
  const signals = ((await rt.inject({ url: '/api/v1/health' })).json() as Health).details.signals;
  const bus = signals.filter((s) => s.path.startsWith('events ('));
  return bus.length > 0 && bus.every((s) => !s.live);
};

async function until(check: () => Promise<boolean>, ms: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

async function frozen(t: Test, site: Site, path: 'postgres' | 'redis'): Promise<void> {
  const target = new URL(path === 'postgres' ? POSTGRES_URL : REDIS_URL);
  const proxy = await freezeProxy(t, { host: target.hostname, port: Number(target.port || (path === 'postgres' ? 5432 : 6379)) }, path === 'postgres' ? /listen /i : /subscribe/i);
  const through = new URL(target);
  through.host = `127.0.0.1:${proxy.port}`;
  const shared = path === 'redis' ? { redis: { url: REDIS_URL } } : {};
  const a = await site.boot({ email: {}, config: { apps: [], ...shared } });
  const b = await site.boot({ email: {}, config: { apps: [], ...(path === 'redis' ? { redis: { url: through.toString() } } : { database: { url: through.toString() } }) } });
  const environment = site.ids[0]!;
  const admin = (await signIn(a)).token;
  const setFrom = async (from: string) => {
    const res = await a.inject({ method: 'PUT', url: '/api/v1/settings/email', headers: bearer(admin), payload: { from } });
    t.equal(res.statusCode, 200, `A sets from = ${from}`);
  };
  const store = settingsServiceOf(b.runtime.kernel.service<SettingsStore>('settings.store')!)!;
  const fromInB = async () => (await store.read(environment, 'email'))?.values.from;

  t.ok(await until(() => trusted(b), 30_000) !== null, 'B trusts its bus at first (a heartbeat can lag past its window on a saturated machine)');
  await setFrom('first@example.com');
  t.ok(await until(async () => (await fromInB()) === 'first@example.com', 2_000) !== null, 'B reads the first settings (and remembers them)');
  await setFrom('second@example.com');
  t.ok(await until(async () => (await fromInB()) === 'second@example.com', 1_000) !== null, 'a change is heard by B within a second while the bus works');

  proxy.freeze();
  t.ok(await until(() => busDown(b), 5_000) !== null, 'B stops trusting its bus');
  await setFrom('third@example.com');
  t.equal(await fromInB(), 'third@example.com', 'B reads the change it never heard of from the database');

  proxy.thaw();
  t.ok(await until(() => trusted(b), 15_000) !== null, 'B trusts its bus again');
  await setFrom('fourth@example.com');
  t.ok(await until(async () => (await fromInB()) === 'fourth@example.com', 1_000) !== null, 'and hears changes again');
}

t.test('settings are never served from memory while the bus is not trusted', async (t) => {
  const ci = process.env.CI === 'true';
  const pgDown = await postgresProblem(POSTGRES_URL);
  if (pgDown !== null && ci) throw new Error(`PostgreSQL is required when CI=true but is unreachable: ${pgDown}`);
  await t.test('PostgreSQL, its LISTEN connection frozen', { skip: pgDown ?? false }, (t) => frozen(t, postgresSite(t, ['setfresh']), 'postgres'));
  const redisDown = await redisProblem();
  if (redisDown !== null && ci) throw new Error(`Redis is required when CI=true but is unreachable: ${redisDown}`);
  await t.test('SQLite with Redis, its subscriber frozen', { skip: redisDown ?? false }, (t) => frozen(t, sqliteSite(t, ['setfresh']), 'redis'));
});
