/**
 * Two runtime processes on one PostgreSQL database: a change committed in one is seen by the
 * other's caches within a second, over LISTEN/NOTIFY and again over Redis pub/sub.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { freePort } from '../harness/freePort.ts';
import { dropSchema, requirePostgres } from '../reliability/reliabilityHarness.ts';
import { dropRedisKeys, environmentFor, POSTGRES_URL, redisProblem, REDIS_URL, requireRedis } from './jobsHarness.ts';
import { spawnJobServer, type JobServer } from './spawnJobServer.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const pgCase = (await databaseCases()).find((c) => c.name === 'postgres')!;
const redisDown = await redisProblem();
const ci = process.env.CI === 'true';

async function call(server: JobServer, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function signIn(server: JobServer, email: string, password: string): Promise<string> {
  const res = await call(server, 'POST', '/auth/sign-in', undefined, { email, password });
  if (res.status !== 200) throw new Error(`sign-in ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

for (const transport of ['postgres', 'redis'] as const) {
  const skip = pgCase.skip || (transport === 'redis' && redisDown !== null && !ci ? `Redis unreachable at ${REDIS_URL} (${redisDown}); set CI=true to make this a failure` : false);
  t.test(`${transport}: a permission set removed in process A stops a member's read in process B within one second`, { skip }, async (t) => {
    await requirePostgres(t);
    if (transport === 'redis') await requireRedis(t);
    const env = environmentFor(`x${transport[0]}`);
    const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-'));
    t.teardown(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(env.schema);
      if (transport === 'redis') await dropRedisKeys(env.id);
    });
    const settings = {
      JOBS_ENV: env.id, JOBS_DATA_DIR: dataDir, DATABASE_URL: POSTGRES_URL, JOBS_REQUIRE_AUTH: 'true', JOBS_ADMIN: JSON.stringify(ADMIN),
      ...(transport === 'redis' ? { REDIS_URL } : {}),
    };
    const a = await spawnJobServer(t, { ...settings, JOBS_PORT: String(await freePort()) });
    const b = await spawnJobServer(t, { ...settings, JOBS_PORT: String(await freePort()) });

    const admin = await signIn(a, ADMIN.email, ADMIN.password);
    const created = await call(a, 'POST', '/auth/admin/create-user', admin, { email: 'member@example.com', password: 'member-password-1', mustChangePassword: false });
    t.equal(created.status, 201);
    const set = await call(a, 'POST', '/data/sys_permission_set', admin, { name: 'job_reader', objects: { sys_job: { read: true } } });
    t.equal(set.status, 201);
    const grant = await call(a, 'POST', '/data/sys_user_permission_set', admin, { user_id: created.body.user.id, permission_set: set.body.id });
    t.equal(grant.status, 201);

    const member = await signIn(b, 'member@example.com', 'member-password-1');
    t.equal((await call(b, 'GET', '/data/sys_job', member)).status, 200, 'B lets the member read (and caches the grant)');
    t.equal((await call(b, 'GET', '/data/sys_job', member)).status, 200, 'still, from the cache');

    const removed = await call(a, 'DELETE', `/data/sys_user_permission_set/${grant.body.id}`, admin);
    t.ok(removed.status === 200 || removed.status === 204, `removed in A (${removed.status})`);
    const since = Date.now();
    let status = 200;
    while (Date.now() - since < 3000) {
      status = (await call(b, 'GET', '/data/sys_job', member)).status;
      if (status === 403) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const elapsed = Date.now() - since;
    t.equal(status, 403, 'B refuses the read');
    t.ok(elapsed < 1000, `within one second (${elapsed} ms)`);

    await Promise.all([a.send({ cmd: 'stop' }), b.send({ cmd: 'stop' })]);
  });
}
