/**
 * Oversized bodies get 413 PAYLOAD_TOO_LARGE in the envelope, on every write route, whether the
 * size is declared up front, streamed in chunks, or only announced; the server keeps serving.
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { bootCrm, envelopeProblems, toReply, type Reply } from './reliabilityHarness.ts';

const LIMIT = 64 * 1024;

/**
 * A raw HTTP/1.1 request over a socket: the head, then `chunks` written one by one (as chunked
 * transfer encoding unless a Content-Length is given). Resolves with the first response.
 */
function rawRequest(url: string, method: string, chunks: string[], contentLength?: number): Promise<Reply> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = '';
    const finish = () => {
      const at = raw.indexOf('\r\n\r\n');
      if (at === -1) return reject(new Error(`no response: ${JSON.stringify(raw.slice(0, 200))}`));
      const head = raw.slice(0, at);
      let body = raw.slice(at + 4);
      if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve(toReply(Number(head.split(' ')[1]), body, {}));
    };
    socket.on('data', (data) => {
      raw += data.toString();
      // One response is enough; the server may keep the connection open.
      const at = raw.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(raw.slice(0, at))?.[1];
      if (at !== -1 && length !== undefined && raw.length >= at + 4 + Number(length)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('close', finish);
    // The server may answer and close before the whole body is written; that is the point.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const framing = contentLength === undefined ? 'transfer-encoding: chunked' : `content-length: ${contentLength}`;
    socket.write(`${method} ${pathname} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`);
    for (const chunk of chunks) {
      if (socket.destroyed) break;
      socket.write(contentLength === undefined ? `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n` : chunk);
    }
    if (contentLength === undefined && !socket.destroyed) socket.write('0\r\n\r\n');
  });
}

function assertTooLarge(t: Test, reply: Reply, what: string): void {
  t.equal(reply.status, 413, `${what}: 413`);
  t.same(envelopeProblems(reply), [], `${what}: the envelope`);
  t.match(reply.body, { error: { code: 'PAYLOAD_TOO_LARGE', details: { limit: LIMIT } } }, `${what}: the code and the limit`);
}

t.test('bodies over server.bodyLimit', async (t) => {
  const crm = await bootCrm(t, 'sqlite', 'limit', { server: { bodyLimit: LIMIT, listen: true, port: 0, host: '127.0.0.1' } });
  const base = crm.rt.runtime.http().url()!;
  const big = JSON.stringify({ name: 'Big', description: 'x'.repeat(LIMIT + 10) });
  const account = await crm.send('POST', '/api/v1/data/account', { name: 'Small' });
  t.equal(account.status, 201, 'a small body is accepted');

  assertTooLarge(t, await crm.send('POST', '/api/v1/data/account', big, { 'content-type': 'application/json' }), 'create');
  assertTooLarge(t, await crm.send('PATCH', `/api/v1/data/account/${String(account.body.id)}`, big, { 'content-type': 'application/json' }), 'update');
  assertTooLarge(t, await crm.send('POST', '/api/v1/data/account/query', JSON.stringify({ where: { name: { $in: Array(LIMIT / 4).fill('abcd') } } }), { 'content-type': 'application/json' }), 'query');

  const chunk = `"${'y'.repeat(8 * 1024)}",`;
  const streamed = await rawRequest(`${base}/api/v1/data/account`, 'POST', ['{"name":"Streamed","tags":[', ...Array(20).fill(chunk), '""]}']);
  assertTooLarge(t, streamed, 'a chunked body without Content-Length');

  const announced = await rawRequest(`${base}/api/v1/data/account`, 'POST', ['{"name":"x"'], 50 * 1024 * 1024);
  assertTooLarge(t, announced, 'a Content-Length over the limit, before the body is sent');

  const under = await crm.send('POST', '/api/v1/data/account', JSON.stringify({ name: 'Under', description: 'z'.repeat(30_000) }), { 'content-type': 'application/json' });
  t.equal(under.status, 201, 'a body under the limit is read and stored');

  const health = await fetch(`${base}/api/v1/health`);
  t.equal(health.status, 200, 'the server keeps serving');
});
