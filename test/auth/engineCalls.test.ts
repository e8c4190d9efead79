/**
 * The auth engine's async-local storages are off while no call into it runs (engineCalls.ts): on
 * Node 20 an enabled storage makes every promise of the process run its hooks. Observed in a
 * child process (fixtures/engineCallsProbe.ts), since the test runner tracks promises itself.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { engineCall, engineCalls, runningEngineCalls } from '../../plugins/auth/engineCalls.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

t.test('after each call into the engine, no promise of the process is tracked', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/auth/fixtures/engineCallsProbe.ts'], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 120_000,
  });
  const seen = JSON.parse(stdout.trim().split('\n').pop()!);
  t.equal(seen.before, false, 'the probe process tracks nothing before the runtime starts');
  t.equal(seen.started, false, 'nor once the engine started (a first admin was created through it)');
  t.same(seen.signIn, [200, false], 'sign-in (the engine handler)');
  t.same(seen.session, [200, 'admin@example.com', false], 'a session read with a bearer token the principal cache had not seen');
  t.same(seen.createUser, [201, false], 'an admin call through the engine api');
  t.same(seen.storages, [false, false, false], 'each of the engine storages is off');
  t.same(seen.inside, [200, true], 'while a counted call runs, its storages are on');
  t.equal(seen.after, false, 'and off once it ended');
});

t.test('a call that throws or rejects is no longer counted', async (t) => {
  await t.rejects(engineCall(async () => {
    throw new Error('refused');
  }), /refused/);
  await t.rejects(engineCall(() => {
    throw new Error('thrown at once');
  }), /thrown at once/);
  t.equal(runningEngineCalls(), 0);
  t.equal(await engineCall(async () => runningEngineCalls()), 1, 'counted while it runs');
});

t.test('a facade forwards counted calls once its target resolves, and is no promise', async (t) => {
  let resolveTarget!: (value: { twice(n: number): Promise<number> }) => void;
  const target = new Promise<{ twice(n: number): Promise<number> }>((resolve) => (resolveTarget = resolve));
  const facade = engineCalls(() => target);
  t.equal(await Promise.resolve(facade), facade, 'awaiting the facade gives the facade');
  const answer = facade.twice(21);
  t.equal(runningEngineCalls(), 1, 'a call waiting for its target is counted');
  resolveTarget({ twice: async (n) => n * 2 });
  t.equal(await answer, 42);
  t.equal(runningEngineCalls(), 0);
  t.equal(facade.twice, facade.twice, 'each method is made once');
});
