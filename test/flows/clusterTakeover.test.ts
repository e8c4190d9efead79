/**
 * Three processes on one PostgreSQL database (and Redis for BullMQ): one is killed while record
 * flows with http steps run. Every run finishes (another process takes over what the killed one
 * held once its lease runs out), and the receiving server sees each step's Idempotency-Key once,
 * or again with the same key: never a step without its key, never another key for the same step.
 */
import t, { type Test } from 'tap';
import { ADMIN, postgresSite, type Site } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import { dropRedisKeys, redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { childConfig, eventually, hookServer, spawnFlowServer, type FlowServer } from './fixtures/flowCluster.ts';

const RELAY = 'test/flows/fixtures/relay';
const ORDERS = 21;
const ci = process.env.CI === 'true';
const pgDown = await postgresProblem(POSTGRES_URL);
const redisDown = await redisProblem();
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

async function signInAdmin(server: FlowServer): Promise<string> {
  const res = await server.send('POST', '/api/v1/auth/sign-in', undefined, { email: ADMIN.email, password: ADMIN.password });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  return String(res.body.token);
}

async function killOneOfThree(t: Test, site: Site, extra: Record<string, unknown>) {
  // Each request is answered after 400 ms: runs are in the middle of a step when the kill comes.
  const hooks = await hookServer(t, () => false, 400);
  const config = childConfig(site, [RELAY], {
    jobs: { leaseMs: 1000, pollMs: 100 },
    flows: { http: { allow: [`${hooks.url}/`] }, recoverAfterMs: 2000 },
  }, extra);
  // The first creates the tables; the other two boot on them together.
  const first = await spawnFlowServer(t, config);
  const servers = [first, ...await Promise.all([1, 2].map(() => spawnFlowServer(t, config)))];
  const tokens = await Promise.all(servers.map(signInAdmin));
  // A third of the orders written through each process, the one to be killed included.
  const created = await Promise.all(Array.from({ length: ORDERS }, (_, i) =>
    servers[i % 3]!.send('POST', '/api/v1/data/relay_order', tokens[i % 3], { title: `order ${i}`, hook: `${hooks.url}/o${i}` })));
  t.same(created.map((c) => c.status), created.map(() => 201), 'every order was written');
  t.ok(await hooks.waitFor(() => true, 6), 'steps are running');
  t.equal(await servers[1]!.kill(), 'SIGKILL', 'one process killed mid-run');

  const runs = await eventually(async () => {
    const rows = await site.query(site.ids[0]!, "select id, status, record from sys_flow_run where flow = 'relay'");
    return rows.length === ORDERS && rows.every((r) => r.status !== 'running' && r.status !== 'waiting') ? rows : undefined;
  }, 120_000);
  const all = runs ?? await site.query(site.ids[0]!, "select id, status, record from sys_flow_run where flow = 'relay'");
  t.same(all.map((r) => r.status), all.map(() => 'completed'), `every run completed (${all.length} of ${ORDERS})`);
  t.equal(all.length, ORDERS, 'one run per order');

  const byOrder = new Map(created.map((c, i) => [String(c.body.id), i]));
  let repeated = 0;
  for (const run of all) {
    const order = byOrder.get(String((json(run.record) as { id: string }).id))!;
    for (const step of ['announce', 'confirm']) {
      const keys = hooks.hits.filter((h) => h.path === `/o${order}/${step}`).map((h) => h.key);
      t.ok(keys.length >= 1, `order ${order} ${step}: sent`);
      t.same([...new Set(keys)], [`${String(run.id)}:${step}`], `order ${order} ${step}: ${keys.length} request(s), one key: its run and step`);
      repeated += keys.length - 1;
    }
  }
  t.comment(`${repeated} step request(s) repeated with their key after the kill`);
  t.equal(hooks.hits.filter((h) => h.key === null).length, 0, 'no request without a key');
}

t.test('three processes, one killed in the middle of record flows', async (t) => {
  await t.test('embedded queue (PostgreSQL)', { skip: pgDown !== null && !ci ? `PostgreSQL unreachable (${pgDown})` : false }, async (t) => {
    if (pgDown !== null) throw new Error(`PostgreSQL is required when CI=true: ${pgDown}`);
    await killOneOfThree(t, postgresSite(t, ['ftake']), {});
  });
  await t.test('BullMQ (PostgreSQL and Redis)', { skip: (pgDown ?? redisDown) !== null && !ci ? `PostgreSQL or Redis unreachable (${pgDown ?? redisDown})` : false }, async (t) => {
    if ((pgDown ?? redisDown) !== null) throw new Error(`PostgreSQL and Redis are required when CI=true: ${pgDown ?? redisDown}`);
    const site = postgresSite(t, ['ftakeb']);
    t.teardown(() => dropRedisKeys(site.ids[0]!));
    await killOneOfThree(t, site, { redis: { url: REDIS_URL } });
  });
});
