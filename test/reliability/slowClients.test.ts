/**
 * Slow clients (slowloris: headers or a body trickling in a byte at a time, or a connection that
 * sends nothing) do not keep others from being served quickly, and the server cuts them off once
 * server.requestTimeoutMs has passed, instead of holding the sockets open.
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { bootCrm, sleep } from './reliabilityHarness.ts';

const REQUEST_TIMEOUT_MS = 1500;
/** How late after the deadline a cut may come (the server checks its connections periodically). */
const SLACK_MS = 1500;
const SLOW_CLIENTS = 12;

interface SlowClient {
  socket: Socket;
  openedAt: number;
  /** When the server closed it, or null while open. */
  closedAfterMs: number | null;
  received: string;
  /** Whether it sends anything (a request line, headers or a body). */
  sends: boolean;
}

/** A socket that sends `head`, then one byte of `trickle` every `everyMs` until closed (nothing at all when both are empty). */
function slowClient(port: number, head: string, trickle: string, everyMs: number): SlowClient {
  const socket = connect(port, '127.0.0.1');
  const client: SlowClient = { socket, openedAt: Date.now(), closedAfterMs: null, received: '', sends: head !== '' || trickle !== '' };
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed && trickle !== '') socket.write(trickle[i++ % trickle.length]!);
  }, everyMs);
  socket.on('connect', () => {
    if (head !== '') socket.write(head);
  });
  socket.on('data', (data) => { client.received += data.toString(); });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearInterval(timer);
    client.closedAfterMs = Date.now() - client.openedAt;
  });
  return client;
}

t.test('slow clients are cut off and do not starve others', async (t) => {
  const crm = await bootCrm(t, 'sqlite', 'slow', { server: { listen: true, port: 0, host: '127.0.0.1', requestTimeoutMs: REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: 1000 } });
  const base = crm.rt.runtime.http().url()!;
  const port = Number(new URL(base).port);
  const clients: SlowClient[] = [];
  for (let i = 0; i < SLOW_CLIENTS; i++) {
    const kind = i % 3;
    if (kind === 0) clients.push(slowClient(port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'abcdefgh', 1000));
    else if (kind === 1) clients.push(slowClient(port, 'POST /api/v1/data/account HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"', 'slow', 1000));
    else clients.push(slowClient(port, '', '', 1000));
  }
  t.teardown(() => clients.forEach((c) => c.socket.destroy()));
  await sleep(200);

  // Normal traffic while the slow sockets hang on.
  const latencies: number[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    const started = Date.now();
    const res = await fetch(`${base}${i % 2 ? '/api/v1/health' : '/api/v1/data/account?limit=5'}`);
    await res.text();
    statuses.push(res.status);
    latencies.push(Date.now() - started);
    await sleep(20);
  }
  t.same([...new Set(statuses)], [200], 'every normal request is served');
  t.ok(Math.max(...latencies) < 500, `normal requests stay fast (slowest ${Math.max(...latencies)} ms)`);

  const deadline = REQUEST_TIMEOUT_MS + SLACK_MS;
  const until = Date.now() + deadline + 500;
  while (Date.now() < until && clients.some((c) => c.closedAfterMs === null)) await sleep(50);
  const open = clients.filter((c) => c.closedAfterMs === null).length;
  t.equal(open, 0, `every slow client is cut off (${open} of ${clients.length} still open after ${deadline + 500} ms)`);
  const late = clients.filter((c) => c.closedAfterMs !== null && c.closedAfterMs > deadline);
  t.same(late.map((c) => c.closedAfterMs), [], `none is cut later than ${deadline} ms`);
  const early = clients.filter((c) => c.closedAfterMs !== null && c.closedAfterMs < REQUEST_TIMEOUT_MS - 100);
  t.same(early.map((c) => c.closedAfterMs), [], 'none is cut before the configured timeout');
  const senders = clients.filter((c) => c.sends);
  t.same(senders.filter((c) => c.received === '').map((c) => c.closedAfterMs), [], `every client that sent something (${senders.length}) is answered before the cut`);
  // A connection that sent nothing is closed by whichever comes first, the idle timeout (no answer)
  // or the request deadline (a 408): both are right.
  const answered = clients.filter((c) => c.received !== '');
  t.same(answered.filter((c) => !/^HTTP\/1\.1 408 /.test(c.received) || !c.received.includes('"code":"REQUEST_TIMEOUT"')).map((c) => c.received.slice(0, 300)), [], 'with 408 REQUEST_TIMEOUT in the envelope');

  const after = await fetch(`${base}/api/v1/health`);
  t.equal(after.status, 200, 'the server still serves');
});
