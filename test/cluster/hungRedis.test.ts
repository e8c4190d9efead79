/**
 * A hung Redis (stopped with SIGSTOP: connections stay open, nothing answers) does not hold a
 * sign-in: the shared rate-limit count gives up within its timeout (REDIS_REQUEST_TIMEOUT_MS) and
 * the process counts alone meanwhile. A Redis server of the test's own, on a port of its own.
 */
import t from 'tap';
import { postgresSite, signIn } from '../auth/authHarness.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { ownRedisServer } from '../harness/ownRedisServer.ts';
import { postgresProblem } from '../harness/postgresProblem.ts';

t.test('sign-in answers within a second while Redis hangs', async (t) => {
  const problem = await postgresProblem(POSTGRES_URL);
  if (problem !== null) throw new Error(`PostgreSQL is required: ${problem}`);
  const server = await ownRedisServer(t);
  const url = server.url;
  const site = postgresSite(t, ['hungredis']);
  const rt = await site.boot({ config: { redis: { url } } });
  // A sign-in's own cost (the password hash) on this machine, with Redis answering.
  const signInMs = async () => {
    const started = Date.now();
    const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'admin@example.com', password: 'admin-password-1' } });
    return { ms: Date.now() - started, status: res.statusCode };
  };
  await signIn(rt);
  const baseline = Math.max((await signInMs()).ms, (await signInMs()).ms);
  server.hang();
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { ms, status } = await signInMs();
    waits.push(ms - baseline);
    t.equal(status, 200, `sign-in ${i} succeeds while Redis hangs`);
  }
  t.ok(waits.every((ms) => ms < 1_000), `none waits a second on Redis (${waits.join(', ')} ms beyond the ${baseline} ms a sign-in takes)`);
  server.resume();
});
