import { createConnection } from 'node:net';
import type { ReachResult } from './checkDatabase.ts';
import { redact } from './checkDatabase.ts';

/** Send PING to a Redis URL and expect PONG (or an auth challenge, which still proves reachability). */
export function checkRedis(url: string, timeoutMs = 2000): Promise<ReachResult> {
  return new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      resolve({ ok: false, detail: `REDIS_URL ${redact(url)} is not a URL` });
      return;
    }
    const socket = createConnection({ host: parsed.hostname, port: Number(parsed.port || 6379) });
    const done = (result: ReachResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done({ ok: false, detail: `Redis at ${redact(url)} did not answer within ${timeoutMs} ms` }));
    socket.on('error', (error) => done({ ok: false, detail: `Redis at ${redact(url)} is not reachable: ${error.message}` }));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      const text = data.toString();
      done(text.startsWith('+PONG') || text.includes('NOAUTH')
        ? { ok: true, detail: `Redis reachable at ${redact(url)}` }
        : { ok: false, detail: `Redis at ${redact(url)} answered unexpectedly: ${text.trim()}` });
    });
  });
}
