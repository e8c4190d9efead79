/**
 * A BullMQ flow run whose process is killed twice in the middle of a step (real child processes,
 * PostgreSQL and Redis): with the flows' five attempts it completes, each try of the step sending
 * the same Idempotency-Key; with one attempt it is failed with the reason. Never left running.
 */
import t, { type Test } from 'tap';
import { ADMIN, postgresSite, type Site } from '../auth/authHarness.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { dropRedisKeys, redisProblem, REDIS_URL, requireRedis } from '../jobs/jobsHarness.ts';
import { childConfig, eventually, hookServer, spawnFlowServer, type FlowServer, type Hit } from './fixtures/flowCluster.ts';

const RELAY = 'test/flows/fixtures/relay';
/** A json column: parsed already on PostgreSQL. */
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
const ci = process.env.CI === 'true';
const down = (await redisProblem()) ?? (await postgresProblem(POSTGRES_URL));
const skip = down !== null && !ci ? `Redis or PostgreSQL unreachable (${down}); set CI=true to make this a failure` : false;

interface RunRow { id: string; status: string; error: unknown; steps: unknown }

async function runOf(site: Site): Promise<RunRow | undefined> {
  const rows = await site.query(site.ids[0]!, "select id, status, error, steps from sys_flow_run where flow = 'relay'");
  return rows[0] as unknown as RunRow | undefined;
}

/** Starts a relay run in a first process, kills it and a second one while the step's request is held; a third boots. */
async function killTwice(t: Test, jobAttempts: number) {
  await requireRedis(t);
  if (down !== null) throw new Error(`PostgreSQL or Redis is required when CI=true: ${down}`);
  const site = postgresSite(t, ['fstall']);
  t.teardown(() => dropRedisKeys(site.ids[0]!));
  const announce = (h: Hit) => h.path.endsWith('/announce');
  // The first two tries of the step are held until their process dies; the third is answered.
  const hooks = await hookServer(t, (hit, hits) => announce(hit) && hits.filter(announce).length <= 2);
  const config = childConfig(site, [RELAY], {
    jobs: { leaseMs: 1000 },
    flows: { http: { allow: [`${hooks.url}/`] }, jobAttempts },
  }, { redis: { url: REDIS_URL } });

  const began = Date.now();
  const at = (what: string) => t.comment(`${what} at ${Date.now() - began} ms`);
  const first = await spawnFlowServer(t, config);
  at('first booted');
  const token = await signInAdmin(first);
  const order = await first.send('POST', '/api/v1/data/relay_order', token, { title: 'one', hook: `${hooks.url}/o1` });
  t.equal(order.status, 201, JSON.stringify(order.body));
  t.ok(await hooks.waitFor(announce, 1), 'the step reached the server in the first process');
  t.equal(await first.kill(), 'SIGKILL');

  at('first killed');
  const second = await spawnFlowServer(t, config);
  at('second booted');
  t.ok(await hooks.waitFor(announce, 2), 'another process took the run over');
  t.equal(await second.kill(), 'SIGKILL');

  at('second killed');
  const third = await spawnFlowServer(t, config);
  at('third booted');
  const run = await eventually(async () => {
    const row = await runOf(site);
    return row && row.status !== 'running' ? row : undefined;
  });
  at('run ended');
  t.teardown(() => third.kill());
  return { run, hooks, order: order.body as { id: string }, site };
}

async function signInAdmin(server: FlowServer): Promise<string> {
  const res = await server.send('POST', '/api/v1/auth/sign-in', undefined, { email: ADMIN.email, password: ADMIN.password });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  return String(res.body.token);
}

t.test('BullMQ: a run interrupted twice', { skip }, async (t) => {
  await t.test('with five attempts it completes, every try of a step with one key', async (t) => {
    const { run, hooks, order } = await killTwice(t, 5);
    t.equal(run?.status, 'completed', JSON.stringify(run));
    const steps = json(run!.steps) as Array<{ id: string; status: string }>;
    t.same(steps.map((s) => [s.id, s.status]), [['announce', 'completed'], ['mark', 'completed'], ['confirm', 'completed']]);
    const announced = hooks.hits.filter((h) => h.path === '/o1/announce');
    t.same(announced.map((h) => h.key), [`${run!.id}:announce`, `${run!.id}:announce`, `${run!.id}:announce`], 'three tries of the step, one key');
    t.same(announced.map((h) => JSON.parse(h.body)), [{ order: order.id }, { order: order.id }, { order: order.id }]);
    t.same(hooks.hits.filter((h) => h.path === '/o1/confirm').map((h) => h.key), [`${run!.id}:confirm`], 'the next step once, with its own key');
  });

  await t.test('with one attempt it is failed with the reason', async (t) => {
    const { run, hooks, site } = await killTwice(t, 1);
    t.equal(run?.status, 'failed', JSON.stringify(run));
    const error = json(run!.error) as { code: string; message: string };
    t.equal(error.code, 'FLOW_RUN_JOB_DEAD');
    t.match(error.message, /^The job running this run of flow 'relay' failed for good: interrupted 2 times, more than its 1 attempt\(s\) allow/);
    t.equal(hooks.hits.filter((h) => h.path === '/o1/announce').length, 2, 'no third try');
    const ended = await site.query(site.ids[0]!, "select ended_at from sys_flow_run where flow = 'relay'");
    t.ok(ended[0]?.ended_at, 'the failed run has its end time');
  });
});
