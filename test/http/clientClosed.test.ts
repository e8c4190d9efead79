/** A request whose client went away before its answer is logged as such, not as a failure of the server. */
import t from 'tap';
import { request } from 'node:http';
import pino from 'pino';
import { codedError } from '../../kernel/index.ts';
import { boot, routesPlugin } from './fixtures.ts';

let release: () => void = () => undefined;
const closedSeen = new Promise<void>((resolve) => {
  release = resolve;
});
const probe = routesPlugin('probe', [
  {
    method: 'GET', path: '/slow', public: true, summary: 'Answers 503 once its client has gone',
    handler: (req) => new Promise((_resolve, reject) => {
      req.raw.socket.once('close', () => {
        release();
        reject(codedError('SERVICE_UNAVAILABLE', { service: 'The query', reason: 'its request was closed before it finished' }));
      });
    }),
  },
  {
    method: 'GET', path: '/slowfault', public: true, summary: 'Fails with a fault once its client has gone',
    handler: (req) => new Promise((_resolve, reject) => {
      req.raw.socket.once('close', () => setTimeout(() => reject(new Error('a fault of the server')), 10));
    }),
  },
  { method: 'GET', path: '/down', public: true, summary: 'Answers 503', handler: () => { throw codedError('SERVICE_UNAVAILABLE', { service: 'The query', reason: 'the database is down' }); } },
]);

const logged: Array<{ level: number; msg?: string; reqId?: string; code?: string }> = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
const rt = await boot([probe], { server: { listen: true, port: 0, host: '127.0.0.1' } }, logger);
t.teardown(() => rt.close());

t.test('a 5xx for a client that closed its connection is logged at info, a 5xx with the client there at error', async (t) => {
  const url = new URL('/api/v1/slow', rt.runtime.http().url()!);
  const sent = request(url, { headers: { 'x-request-id': 'req-closed-1' } });
  sent.on('error', () => undefined);
  sent.end();
  // Gone before any answer.
  await new Promise((resolve) => setTimeout(resolve, 100));
  sent.destroy();
  await closedSeen;
  await new Promise((resolve) => setTimeout(resolve, 50));
  const closed = logged.filter((l) => l.reqId === 'req-closed-1' && l.level >= 30);
  t.same(closed.map((l) => [l.level, l.msg, l.code]), [[30, 'request closed by its client', 'SERVICE_UNAVAILABLE']], 'one info line naming the code');

  const fault = request(new URL('/api/v1/slowfault', rt.runtime.http().url()!), { headers: { 'x-request-id': 'req-fault-1' } });
  fault.on('error', () => undefined);
  fault.end();
  await new Promise((resolve) => setTimeout(resolve, 100));
  fault.destroy();
  for (let i = 0; i < 50 && !logged.some((l) => l.reqId === 'req-fault-1' && l.level >= 30); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(logged.filter((l) => l.reqId === 'req-fault-1' && l.level >= 30).map((l) => [l.level, l.msg]), [[50, 'request failed']], 'a fault of the server stays an error though its client is gone');

  const down = await rt.inject({ method: 'GET', url: '/api/v1/down', headers: { 'x-request-id': 'req-down-1' } });
  t.equal(down.statusCode, 503, 'answered 503');
  t.same(logged.filter((l) => l.reqId === 'req-down-1' && l.level >= 30).map((l) => [l.level, l.msg]), [[50, 'request failed']], 'an error line when its client is there');
});
