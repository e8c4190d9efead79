/**
 * Revocation across three real processes (`osr start --config`) on one PostgreSQL database, with
 * Redis and with PostgreSQL alone, while processes restart. Each trial mints an API key, presents
 * it to every running process (so each has it cached), revokes it through one of them, then
 * presents it to every process until each refuses it. Keys revoked in earlier trials are presented
 * again to every process, restarted ones included. No process accepts a key more than one second
 * after the revocation answered (a request sent later than that and answered 200 is a failure).
 */
import t, { type Test } from 'tap';
import { ADMIN } from '../auth/authHarness.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { dropSchema, environmentFor, POSTGRES_URL, requirePostgres } from '../reliability/reliabilityHarness.ts';
import { runtimeFiles, startRuntimeProcess, type RuntimeFiles, type RuntimeProcess } from '../reliability/spawnRuntime.ts';

const TRIALS = 30;
const RESTART_EVERY = 8;
const BOUND_MS = 1_000;

async function revocations(t: Test, redis: boolean): Promise<void> {
  const env = environmentFor(redis ? 'revr' : 'revp');
  t.teardown(() => dropSchema(env.schema));
  const config = {
    apps: [],
    environments: [{ id: env.id }],
    database: { url: POSTGRES_URL },
    auth: { secret: 'reliability-secret-0123456789-abcdefghij', admin: ADMIN },
    api: { requireAuth: true },
    ...(redis ? { redis: { url: REDIS_URL } } : {}),
  };
  const files: RuntimeFiles[] = [];
  for (let i = 0; i < 3; i++) files.push(await runtimeFiles(t, config));
  // The first boot creates the schema; the other two join it.
  const procs: Array<RuntimeProcess | null> = [await startRuntimeProcess(t, files[0]!)];
  procs.push(...await Promise.all([1, 2].map((i) => startRuntimeProcess(t, files[i]!))));
  const signIn = await procs[0]!.send('POST', '/api/v1/auth/sign-in', { email: ADMIN.email, password: ADMIN.password });
  t.equal(signIn.status, 200, 'the admin signs in');
  const admin = { authorization: `Bearer ${String(signIn.body.token)}` };

  const running = () => procs.filter((p): p is RuntimeProcess => p !== null && p.isRunning());
  const present = async (p: RuntimeProcess, key: string) => (await p.send('GET', '/api/v1/keys', undefined, { 'x-api-key': key }).catch(() => null))?.status ?? null;
  const late: string[] = [];
  const revoked: Array<{ key: string; at: number; trial: number }> = [];
  let restarts = 0;
  let restarting: Promise<void> = Promise.resolve();
  // Each revoked key once more on every process once its second has passed: a refusal must not flip back.
  const recheck = async (all: boolean) => {
    if (all) await new Promise((resolve) => setTimeout(resolve, BOUND_MS));
    const due = revoked.filter((r) => Date.now() - r.at > BOUND_MS);
    revoked.splice(0, due.length);
    await Promise.all(running().map(async (p) => {
      for (const old of due) {
        const sent = Date.now() - old.at;
        if ((await present(p, old.key)) === 200) late.push(`trial ${old.trial}: ${p.url} accepted the key again ${sent} ms after the revocation answered`);
      }
    }));
  };

  for (let trial = 0; trial < TRIALS; trial++) {
    // A restart under way in the background every few trials: SIGKILL, then a new process on the same port.
    if (trial % RESTART_EVERY === RESTART_EVERY - 1) {
      await restarting;
      const slot = trial % 3;
      const victim = procs[slot]!;
      procs[slot] = null;
      await victim.kill('SIGKILL');
      restarting = startRuntimeProcess(t, files[slot]!).then((p) => {
        procs[slot] = p;
        restarts++;
      });
    }
    const live = running();
    const through = live[trial % live.length]!;
    const minted = await through.send('POST', '/api/v1/keys', { name: `k${trial}` }, admin);
    if (minted.status !== 201) throw new Error(`minting answered ${minted.status}: ${minted.text}`);
    const key = String(minted.body.key);
    const warm = await Promise.all(live.map((p) => present(p, key)));
    if (warm.some((s) => s !== 200)) throw new Error(`trial ${trial}: the fresh key answered ${warm.join(', ')}`);

    const revoker = live[(trial + 1) % live.length]!;
    const revoke = await revoker.send('DELETE', `/api/v1/keys/${String(minted.body.id)}`, undefined, admin);
    const at = Date.now();
    if (revoke.status !== 204) throw new Error(`revoking answered ${revoke.status}: ${revoke.text}`);
    revoked.push({ key, at, trial });

    // Every process, until each refuses; then every key revoked more than a second ago, once more.
    await Promise.all(running().map(async (p) => {
      for (;;) {
        const sent = Date.now() - at;
        const status = await present(p, key);
        if (status === 401) return;
        if (status === 200 && sent > BOUND_MS) {
          late.push(`trial ${trial} (${redis ? 'redis' : 'postgres'}): ${p.url} accepted the key ${sent} ms after the revocation answered`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }));
    await recheck(false);
  }
  await restarting;
  await recheck(true);
  t.ok(restarts >= 3, `processes restarted during the trials (${restarts})`);
  t.same(late, [], `no process accepts a key more than ${BOUND_MS} ms after its revocation, in ${TRIALS} trials`);
  await Promise.all(running().map((p) => p.kill('SIGTERM')));
}

t.test('revocation holds in every process within a second, while processes restart', async (t) => {
  await requirePostgres(t);
  await t.test('PostgreSQL alone (LISTEN/NOTIFY)', (t) => revocations(t, false));
  const redisDown = await redisProblem();
  if (redisDown !== null && process.env.CI === 'true') throw new Error(`Redis is required when CI=true but is unreachable: ${redisDown}`);
  await t.test('with Redis', { skip: redisDown ?? false }, (t) => revocations(t, true));
});
