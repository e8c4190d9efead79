/** Graceful shutdown in process: requests in flight finish, late ones get the envelope, drain precedes stop. */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import t from 'tap';
import { boot, routesPlugin } from '../http/fixtures.ts';

/** Promise.withResolvers arrived in Node 22. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** A plugin whose route takes 300 ms and which records what it sees while stopping. */
function slowPlugin() {
  const seen = { entered: deferred(), handlerDone: false, doneAtStop: null as boolean | null };
  const plugin = routesPlugin('slow', [{
    method: 'GET', path: '/slow', public: true, summary: 'Takes 300 ms',
    handler: async () => {
      seen.entered.resolve();
      await new Promise((resolve) => setTimeout(resolve, 300));
      seen.handlerDone = true;
      return { done: true };
    },
  }], {
    drain() {},
    stop() {
      seen.doneAtStop = seen.handlerDone;
    },
  });
  return { plugin, seen };
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject).end();
  });
}

/** A raw connection: what was received, and whether the server closed it. */
function rawConnection(url: URL) {
  const socket = connect(Number(url.port), url.hostname);
  const state = { data: '', closed: deferred() };
  socket.on('data', (chunk) => { state.data += chunk; });
  socket.on('close', () => state.closed.resolve());
  return { socket, state };
}

t.test('SIGTERM while a request is in flight: it completes with 200, then drain, then stop, then exit 0', async (t) => {
  const { plugin, seen } = slowPlugin();
  const rt = await boot([plugin], { server: { listen: true, port: 0 } });
  t.teardown(() => rt.close());
  const kernel = rt.runtime.kernel;
  const exits: number[] = [];
  const exited = deferred();
  kernel.installSignalHandlers((code) => {
    exits.push(code);
    exited.resolve();
  });

  const response = get(`${rt.runtime.http().url()}/api/v1/slow`);
  await seen.entered.promise;
  const ready = kernel.timeline.length;
  process.emit('SIGTERM', 'SIGTERM');

  t.same(await response, { status: 200, body: '{"done":true}' }, 'the request in flight is answered');
  await exited.promise;
  t.same(exits, [0], 'exit code 0');
  t.same(kernel.timeline.slice(ready), ['slow:drain', 'http:drain', 'slow:stop'], 'every drain before any stop, in reverse order');
  t.equal(seen.doneAtStop, true, 'the handler had finished before stop ran');
  t.same(kernel.states().map((s) => [s.name, s.status]), [['http', 'stopped'], ['slow', 'stopped']]);
  t.equal(process.listenerCount('SIGTERM') > 0 && process.listeners('SIGTERM').some((l) => l.name === 'onSignal'), false, 'the handlers are released');
});

t.test('during drain: a late request gets a 503 envelope, and connections close without waiting for keep-alive', async (t) => {
  const { plugin, seen } = slowPlugin();
  // A keep-alive timeout far beyond the test's budget: shutdown must not wait for it.
  const rt = await boot([plugin], { server: { listen: true, port: 0, keepAliveTimeoutMs: 60_000 } });
  t.teardown(() => rt.close());
  const url = new URL(rt.runtime.http().url()!);

  const busy = rawConnection(url);
  busy.socket.write('GET /api/v1/slow HTTP/1.1\r\nHost: test\r\n\r\n');
  const late = rawConnection(url);
  late.socket.write('GET /api/v1/health HTTP/1.1\r\nHost: test\r\n');
  await seen.entered.promise;

  const started = Date.now();
  const stopping = rt.runtime.stop();
  await new Promise((resolve) => setTimeout(resolve, 30));
  late.socket.write('\r\n');
  await stopping;
  await Promise.all([busy.state.closed.promise, late.state.closed.promise]);
  t.ok(Date.now() - started < 2000, `stopped in ${Date.now() - started} ms`);

  t.match(busy.state.data, /^HTTP\/1\.1 200 OK\r\n/, 'the request in flight is answered');
  t.match(busy.state.data, /\r\nconnection: close\r\n/i, 'and told the connection closes');
  t.match(busy.state.data, /\r\n\r\n\{"done":true\}$/);

  t.match(late.state.data, /^HTTP\/1\.1 503 Service Unavailable\r\n/, 'the late request is refused');
  const body = JSON.parse(late.state.data.slice(late.state.data.indexOf('\r\n\r\n') + 4)) as unknown;
  t.same(body, {
    error: {
      code: 'SERVICE_UNAVAILABLE',
      message: 'The server is unavailable: it is shutting down. Retry shortly.',
      details: { service: 'The server', reason: 'it is shutting down' },
    },
  }, 'with the error envelope');
});
