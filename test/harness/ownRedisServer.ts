/**
 * A redis-server of a test's own, on a free port, for tests that stop it (SIGSTOP) or kill it:
 * the shared Redis is never touched. Resolves once it accepts connections; ended (and its folder
 * removed) at the test's teardown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort } from './freePort.ts';

export interface OwnRedisServer {
  port: number;
  url: string;
  process: ChildProcess;
  /** SIGSTOP: connections stay open, nothing answers. */
  hang(): void;
  /** SIGCONT. */
  resume(): void;
}

export async function ownRedisServer(t: Pick<Test, 'teardown'>): Promise<OwnRedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'osr-redis-'));
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  t.teardown(() => {
    server.kill('SIGCONT');
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  // Up once it accepts a connection (a client made before that would keep trying to connect).
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: server,
    hang: () => server.kill('SIGSTOP'),
    resume: () => server.kill('SIGCONT'),
  };
}
