/**
 * A change heard on the events bus (Redis) before the database's own write signal (PostgreSQL
 * NOTIFY): the process that hears it must not answer its streams from what it remembered before
 * the write. The change carries the writer's read-your-writes token; a process that has not heard
 * that write reads the record from the database.
 *
 * Made deterministic here: the row is changed in PostgreSQL with its triggers off (no NOTIFY at
 * all, so the process keeps its remembered page), and the change is published on Redis as another
 * process would, with a token the process has not heard.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import t from 'tap';
import { bearer, postgresSite, signIn } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { openStream, type SseEvent } from './sseClient.ts';

const APP = ['metadata/apps/crm'];
const ofRecord = (id: string) => (e: SseEvent) => e.data?.record?.id === id || e.data?.id === id;

t.test('a change heard before the write signal is read from the database', async (t) => {
  const ci = process.env.CI === 'true';
  const problem = (await postgresProblem(POSTGRES_URL)) ?? (await redisProblem());
  if (problem !== null && ci) throw new Error(`PostgreSQL and Redis are required when CI=true: ${problem}`);
  if (problem !== null) return void t.comment(`skipped: ${problem}`);

  const site = postgresSite(t, ['rtstale']);
  const environmentId = site.ids[0]!;
  const config = { apps: APP, server: { listen: true, port: 0, host: '127.0.0.1' }, redis: { url: REDIS_URL }, plugins: { crm: { enabled: true }, auth: { rateLimit: { enabled: false } } } };
  const b = await site.boot({ config: config as never });
  const base = b.runtime.http().url()!.replace(/\/$/, '');
  const admin = await signIn(b);
  const stream = await openStream(`${base}/api/v1/realtime?objects=task`, bearer(admin.token));
  t.teardown(() => stream.close());
  t.equal(stream.status, 200, 'a stream');
  await stream.next((e) => e.event === 'ready');

  const created = await b.inject({ method: 'POST', url: '/api/v1/data/task', headers: bearer(admin.token), payload: { subject: 'first' } });
  t.equal(created.statusCode, 201, 'a task');
  const id = created.json().id as string;
  t.equal((await stream.next(ofRecord(id))).data.record.subject, 'first', 'its creation streamed');
  // The change another process hears carries the token the write's answer carries: one that counts this write.
  const listener = new Redis(REDIS_URL);
  t.teardown(() => listener.disconnect());
  const told: Array<Record<string, unknown>> = [];
  listener.on('message', (_channel: string, message: string) => {
    const parsed = JSON.parse(message) as { topic?: string; data?: Record<string, unknown> };
    if (parsed.topic === 'records.changed' && parsed.data?.recordId === id) told.push(parsed.data);
  });
  await listener.subscribe('osr:events');
  const updated = await b.inject({ method: 'PATCH', url: `/api/v1/data/task/${id}`, headers: bearer(admin.token), payload: { subject: 'second' } });
  t.equal(updated.statusCode, 200, 'updated');
  const answered = updated.headers['x-osr-write-token'];
  t.match(answered, /^[\w-]+\.\d+$/, 'the answer carries a write token');
  for (let i = 0; i < 100 && told.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(told[0]?.token, answered, 'the change on the bus carries the same token');
  const second = await stream.next((e) => ofRecord(id)(e) && e.data.record?.subject === 'second');
  const version = Number(second.data.record.version);

  // The row changes in the database with no trigger, so no NOTIFY: B keeps what it read.
  const client = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=env_${environmentId.replace(/-/g, '_')}` });
  await client.connect();
  t.teardown(() => client.end());
  await client.query('set session_replication_role = replica');
  const changed = await client.query('update task set subject = $1, version = version + 1 where id = $2 returning version', ['third, unheard', id]);
  t.equal(Number(changed.rows[0].version), version + 1, 'the row changed in PostgreSQL');

  // Another process's change message, with a token of a write B has not heard.
  const redis = new Redis(REDIS_URL);
  t.teardown(() => redis.disconnect());
  const change = { id: `${Date.now().toString(36)}-other-0`, object: 'task', recordId: id, op: 'updated', version: version + 1, at: Date.now(), token: 'otherprocess.1' };
  await redis.publish('osr:events', JSON.stringify({ origin: randomUUID(), topic: 'records.changed', environmentId, data: change }));
  const third = await stream.next((e) => ofRecord(id)(e) && e.data.record?.version === version + 1, 3_000).catch(() => null);
  t.equal(third?.data.record.subject ?? null, 'third, unheard', 'the stream gets the record as the database holds it');
});
