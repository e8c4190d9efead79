/**
 * Realtime across processes on one PostgreSQL database with Redis (and with LISTEN/NOTIFY alone):
 * a write through process A reaches a stream on process B, a rolled-back write reaches nobody,
 * per-record order holds, and a session revoked through A ends B's stream within a second.
 * Then real processes: `kill -9` of the one a client is connected to, the client resumes on the
 * other with Last-Event-ID and misses no change made meanwhile; past the window it gets `reset`.
 */
import t, { type Test } from 'tap';
import { bearer, postgresSite, signIn } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { runtimeFiles, startRuntimeProcess } from '../reliability/spawnRuntime.ts';
import { openStream, type SseEvent, type SseStream } from './sseClient.ts';

const APP = ['metadata/apps/crm'];
const listening = { listen: true, port: 0, host: '127.0.0.1' };
const ofRecord = (id: string) => (e: SseEvent) => e.data?.record?.id === id || e.data?.id === id;

async function pair(t: Test, redis: boolean): Promise<void> {
  const site = postgresSite(t, [redis ? 'rtredis' : 'rtpg']);
  const config = { apps: APP, server: listening, plugins: { crm: { enabled: true }, auth: { rateLimit: { enabled: false } } }, ...(redis ? { redis: { url: REDIS_URL } } : {}) };
  const a = await site.boot({ config: config as never });
  const b = await site.boot({ config: config as never });
  const baseB = b.runtime.http().url()!.replace(/\/$/, '');
  const admin = await signIn(a);
  const streams: SseStream[] = [];
  t.teardown(() => streams.forEach((s) => s.close()));
  const subscriber = await signIn(b);
  const stream = await openStream(`${baseB}/api/v1/realtime?objects=task`, bearer(subscriber.token));
  streams.push(stream);
  t.equal(stream.status, 200, 'a stream on B');
  await stream.next((e) => e.event === 'ready');
  // B says it follows task; A announces task's changes from then on.
  await new Promise((resolve) => setTimeout(resolve, 300));

  const created = await a.inject({ method: 'POST', url: '/api/v1/data/task', headers: bearer(admin.token), payload: { subject: 'from A' } });
  t.equal(created.statusCode, 201, 'a task written through A');
  const id = created.json().id as string;
  const event = await stream.next(ofRecord(id));
  t.equal(event.event, 'created', 'reaches the stream on B');
  t.equal(event.data.record.subject, 'from A', 'with the record');

  for (let i = 1; i <= 20; i++) {
    const res = await a.inject({ method: 'PATCH', url: `/api/v1/data/task/${id}`, headers: bearer(admin.token), payload: { subject: `v${i}` } });
    if (res.statusCode !== 200) t.fail(`update ${i}: ${res.statusCode}`);
  }
  await stream.next((e) => ofRecord(id)(e) && e.data.record?.subject === 'v20');
  const versions = stream.events.filter((e) => ofRecord(id)(e) && e.data.record).map((e) => Number(e.data.record.version));
  t.same(versions, [...versions].sort((x, y) => x - y), `per-record order holds (${versions.length} events, versions ${versions[0]}..${versions.at(-1)})`);
  t.equal(new Set(versions).size, versions.length, 'no version twice');

  const batch = await a.inject({ method: 'POST', url: '/api/v1/batch', headers: bearer(admin.token), payload: { operations: [
    { id: 'x', method: 'POST', object: 'task', body: { subject: 'ROLLED-BACK-A' } },
    { id: 'y', method: 'POST', object: 'task', body: { nope: true } },
  ] } });
  t.not(batch.statusCode, 200, 'a batch that fails as a whole');
  const after = await a.inject({ method: 'POST', url: '/api/v1/data/task', headers: bearer(admin.token), payload: { subject: 'after' } });
  await stream.next(ofRecord(after.json().id as string));
  t.notOk(JSON.stringify(stream.events).includes('ROLLED-BACK-A'), 'the rolled-back write reached nobody');

  // Revocation through A ends the stream on B within a second.
  const out = await a.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(subscriber.token), payload: {} });
  t.equal(out.statusCode, 200, 'the subscriber signed out through A');
  const started = Date.now();
  const end = await stream.next((e) => e.event === 'error', 3_000);
  t.equal(end.data.code, 'UNAUTHENTICATED', 'B ended the stream');
  t.ok(Date.now() - started <= 1_000, `within a second (${Date.now() - started} ms)`);
}

async function killAndResume(t: Test): Promise<void> {
  const environment = `rtkill${process.pid}`;
  const schema = `env_${environment}`;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  t.teardown(async () => {
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });
  const config = {
    apps: [new URL('../../metadata/apps/crm', import.meta.url).pathname], database: { url: POSTGRES_URL }, environments: [{ id: environment }], redis: { url: REDIS_URL }, api: { requireAuth: true },
    auth: { secret: 'realtime-kill-secret-0123456789-abcdefghij', admin: { email: 'admin@example.com', password: 'admin-password-0123456789' } },
    plugins: { crm: { enabled: true }, auth: { rateLimit: { enabled: false } }, realtime: { replay: { size: 1000, ageMs: 60_000 } } },
  };
  const files1 = await runtimeFiles(t, config);
  const p1 = await startRuntimeProcess(t, files1, 60_000);
  const files2 = await runtimeFiles(t, { ...config, dataDir: files1.dir });
  const p2 = await startRuntimeProcess(t, files2, 60_000);
  const signInTo = async (url: string) => {
    const res = await fetch(`${url}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'admin-password-0123456789' }) });
    return (await res.json()) as { token: string };
  };
  const first = await signInTo(p1.url);
  t.ok(first.token, 'signed in on process 1');
  const token = first.token;
  const write = async (url: string, subject: string) => {
    const res = await fetch(`${url}/api/v1/data/task`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify({ subject }) });
    if (res.status !== 201) throw new Error(`write ${subject}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const one = await openStream(`${p1.url}/api/v1/realtime?objects=task`, bearer(token));
  t.equal(one.status, 200, 'a stream on process 1');
  await one.next((e) => e.event === 'ready');
  // Process 2 learns that task is followed before it writes.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const seenId = await write(p2.url, 'seen');
  const seen = await one.next(ofRecord(seenId));
  await p1.kill('SIGKILL');
  const missed = [await write(p2.url, 'missed-1'), await write(p2.url, 'missed-2'), await write(p2.url, 'missed-3')];
  const resumed = await openStream(`${p2.url}/api/v1/realtime?objects=task`, { ...bearer(token), 'last-event-id': seen.id! });
  t.equal(resumed.status, 200, 'the client reconnects to process 2');
  for (const id of missed) t.equal((await resumed.next(ofRecord(id))).event, 'created', 'a change made while it was away is replayed');
  const ready = await resumed.next((e) => e.event === 'ready');
  t.equal(ready.data.resumed, true, 'resumed');
  resumed.close();
  const tooOld = await openStream(`${p2.url}/api/v1/realtime?objects=task`, { ...bearer(token), 'last-event-id': 'kx0-00000000-0' });
  t.equal((await tooOld.next((e) => e.event === 'reset' || e.event === 'ready')).event, 'reset', 'past the window: reset');
  tooOld.close();
}

t.test('realtime across processes', async (t) => {
  const ci = process.env.CI === 'true';
  const problem = await postgresProblem(POSTGRES_URL);
  const redisDown = await redisProblem();
  if (ci && (problem !== null || redisDown !== null)) throw new Error(`PostgreSQL and Redis are required when CI=true: ${problem ?? redisDown}`);
  await t.test('PostgreSQL + Redis, two runtimes', { skip: problem ?? redisDown ?? false }, (t) => pair(t, true));
  await t.test('PostgreSQL LISTEN/NOTIFY alone, two runtimes', { skip: problem ?? false }, (t) => pair(t, false));
  await t.test('kill -9 of the process a client is connected to', { skip: problem ?? redisDown ?? false }, (t) => killAndResume(t));
});
