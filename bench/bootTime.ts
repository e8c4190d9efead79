import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_APP_DIR, REPO_ROOT } from './benchObject.ts';
import type { DatabaseTarget } from './databaseTarget.ts';
import { freePort } from '../test/harness/freePort.ts';

export interface BootResult {
  /** Spawn to the first 200 of /api/v1/health on an empty database (tables created at boot). */
  freshMs: number;
  /** Same, database already in place: median of the runs. */
  warmMs: number;
  warmRunsMs: number[];
  /**
   * Spawn to the first answer of the identity engine (`GET /api/v1/auth/get-session`), which starts
   * after the server listens: on the empty database, and the median of the warm runs.
   */
  freshIdentityMs: number;
  warmIdentityMs: number;
}

interface BootTimes {
  healthMs: number;
  identityMs: number;
}


/** Environment of the child without variables that would override the config file. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'OS_DATA_DIR', 'OS_AUTH_SECRET', 'AUTH_SECRET', 'OS_ENVIRONMENT_ID', 'OS_PROJECT_ID', 'NODE_ENV', 'LOG_LEVEL']) delete env[key];
  return env;
}

/** `node bin/osr.js start` with every first-party plugin, the example plugin, the CRM and bench apps. */
async function bootOnce(configFile: string, port: number): Promise<BootTimes> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/osr.js'), 'start', '--config', configFile], {
    cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  try {
    for (;;) {
      if (exited) throw new Error('the runtime exited during boot (see its output above)');
      if (performance.now() - started > 30_000) throw new Error('the runtime did not answer /api/v1/health within 30 s');
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.status === 200, () => false);
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const healthMs = performance.now() - started;
    // A request the identity engine answers waits for it to start.
    const session = await fetch(`http://127.0.0.1:${port}/api/v1/auth/get-session`);
    await session.text();
    if (session.status !== 200) throw new Error(`GET /api/v1/auth/get-session answered ${session.status}`);
    return { healthMs, identityMs: performance.now() - started };
  } finally {
    if (!exited) {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    }
  }
}

export async function measureBoot(target: DatabaseTarget, warmRuns = 5): Promise<BootResult> {
  const dir = mkdtempSync(join(tmpdir(), 'osr-boot-'));
  try {
    const port = await freePort();
    const environmentId = `boot-${process.pid}`;
    const config = {
      apps: [join(REPO_ROOT, 'metadata/apps/crm'), BENCH_APP_DIR],
      dataDir: dir,
      server: { port, host: '127.0.0.1', logRequests: false },
      // The auth plugin is not in the runtime yet; once it is, boot with requireAuth true.
      api: { requireAuth: false },
      auth: { secret: 'bench-boot-secret-0123456789-abcdefghijkl' },
      log: { level: 'warn' },
      environments: [{ id: environmentId }],
      ...(target.driver === 'postgres' ? { database: { url: target.url } } : {}),
      plugins: {
        crm: { enabled: true },
        hello: { path: join(REPO_ROOT, 'examples/hello-plugin'), grants: ['http.routes'], greeting: 'bench' },
      },
    };
    const configFile = join(dir, 'runtime.config.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const fresh = await bootOnce(configFile, port);
    const warm: BootTimes[] = [];
    for (let i = 0; i < warmRuns; i++) warm.push(await bootOnce(configFile, port));
    const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
    return {
      freshMs: Math.round(fresh.healthMs),
      warmMs: median(warm.map((w) => w.healthMs)),
      warmRunsMs: warm.map((w) => Math.round(w.healthMs)),
      freshIdentityMs: Math.round(fresh.identityMs),
      warmIdentityMs: median(warm.map((w) => w.identityMs)),
    };
  } finally {
    if (target.driver === 'postgres') await dropBootSchema(target.url, `env_boot_${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function dropBootSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
