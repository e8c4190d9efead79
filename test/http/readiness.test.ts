/**
 * Readiness means booted: /api/v1/health answers 503 while a later plugin's ready phase still runs
 * (other routes are served meanwhile), 200 once every phase is done; and a process that listens
 * never fails its boot because a phase outlasted its timeout.
 */
import pino from 'pino';
import t from 'tap';
import { definePlugin } from '../../kernel/index.ts';
import { freePort } from '../harness/freePort.ts';
import { boot, routesPlugin } from './fixtures.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A plugin after http whose ready phase lasts until the test releases it, far past its 150 ms timeout. */
function latePlugin() {
  const entered = deferred();
  const release = deferred();
  const plugin = routesPlugin('late', [{
    method: 'GET', path: '/ping', public: true, summary: 'Answers while the boot runs',
    handler: () => ({ pong: true }),
  }], {
    timeoutMs: 150,
    async ready() {
      entered.resolve();
      await release.promise;
    },
  });
  return { plugin, entered, release };
}

async function get(url: string): Promise<{ status: number; retryAfter: string | null; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

t.test('a slow late ready phase: /health is 503 until booted, requests are served, and the process boots', async (t) => {
  const { plugin, entered, release } = latePlugin();
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const port = await freePort();
  let outcome: 'booting' | 'booted' | 'failed' = 'booting';
  let failure: unknown = null;
  const booting = boot([plugin], { server: { listen: true, port, host: '127.0.0.1' } }, logger);
  booting.then(() => (outcome = 'booted'), (error: unknown) => { outcome = 'failed'; failure = error; });
  t.teardown(async () => {
    release.resolve();
    const rt = await booting.catch(() => null);
    await rt?.close();
  });
  await entered.promise;
  const base = `http://127.0.0.1:${port}/api/v1`;

  const starting = await get(`${base}/health`);
  t.equal(starting.status, 503, 'not ready while a phase runs');
  t.equal(starting.body.error.code, 'SERVICE_UNAVAILABLE');
  t.equal(starting.body.error.message, 'The server is unavailable: it is still starting (boot phases are running). Retry shortly.');
  t.equal(starting.retryAfter, '1');

  // Requests keep arriving past the phase's timeout (150 ms): they are served, the boot goes on.
  for (let i = 0; i < 10; i++) {
    const ping = await get(`${base}/ping`);
    t.same([ping.status, ping.body], [200, { pong: true }], `request ${i} is served during the boot`);
    await sleep(60);
  }
  t.equal(outcome, 'booting', `the boot still waits for the late phase (${String(failure)})`);
  t.equal((await get(`${base}/health`)).status, 503, 'still not ready past the timeout');
  const warned = lines.map((l) => JSON.parse(l)).find((l) => l.code === 'KERNEL_PHASE_TIMEOUT');
  t.same(warned && [warned.level, warned.plugin, warned.phase, warned.timeoutMs], [40, 'late', 'ready', 150], 'the timeout is logged as a warning');

  release.resolve();
  const rt = await booting;
  t.equal(outcome, 'booted');
  const ready = await get(`${base}/health`);
  t.equal(ready.status, 200, 'ready once every phase is done');
  t.equal(ready.body.status, 'ok');
  t.same(rt.runtime.kernel.states().map((s) => [s.name, s.status]), [['http', 'ready'], ['late', 'ready']]);
});

t.test('without a listening server, a ready phase past its timeout still fails the boot', async (t) => {
  const { plugin, release } = latePlugin();
  t.teardown(() => release.resolve());
  const error = await boot([plugin]).then(() => null, (e: unknown) => e as { failures?: Array<{ code: string; message: string }> });
  t.same(error?.failures?.map((f) => f.code), ['KERNEL_PHASE_TIMEOUT'], 'nothing is served: the boot fails as before');
});

t.test('a late phase that throws after the timeout still fails the boot with its reason', async (t) => {
  const port = await freePort();
  const plugin = definePlugin({
    name: 'broken', version: '1.0.0', kernel: '^16.0.0', requires: ['http.routes'], timeoutMs: 100,
    register() {},
    async ready() {
      await sleep(400);
      throw new Error('the late phase broke');
    },
  });
  const error = await boot([plugin], { server: { listen: true, port, host: '127.0.0.1' } }).then(() => null, (e: unknown) => e as { failures?: Array<{ code: string; message: string }> });
  t.same(error?.failures?.map((f) => f.code), ['KERNEL_PHASE_FAILED']);
  t.match(error?.failures?.[0]?.message, /Plugin 'broken' failed in ready: the late phase broke/);
});
