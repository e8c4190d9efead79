import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildMcpWorld } from './mcpWorld.ts';

const run = promisify(execFile);
const CLI = new URL('../../node_modules/.bin/conformance', import.meta.url).pathname;

/**
 * A local gateway in front of the runtime that adds the agent's API key to every request, as a
 * client's credential store would: the conformance tool sends no credential of its own. Host and
 * Origin pass through unchanged, so the runtime's own checks are what the scenarios test.
 */
function keyGateway(target: string, key: string): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forward = request({
      host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${key}` },
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

t.test('the conformance server scenarios that apply pass', async (t) => {
  await eachBackend(t, ['mcpconf'], async (t, site) => {
    if (site.backend === 'postgres') {
      t.pass('protocol scenarios touch no data: SQLite is enough');
      return;
    }
    const w = await buildMcpWorld(t, site);
    const gateway = await keyGateway(w.origin, (await w.mintKey('owner')).key);
    t.teardown(() => new Promise<void>((resolve) => gateway.close(() => resolve())));
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/api/v1/mcp`;
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
      const result = await run(CLI, ['server', '--url', url, '--scenario', scenario], { timeout: 60_000 }).then(
        (ok) => ({ code: 0, out: ok.stdout + ok.stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, out: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
      );
      t.equal(result.code, 0, `${scenario}: the conformance tool exits 0`, { output: result.out.slice(0, 3000) });
      t.match(result.out, /Passed: (\d+)\/\1, 0 failed/, `${scenario}: every check passed`);
    }
    gateway.closeAllConnections();
  });
});
