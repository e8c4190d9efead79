/**
 * Jobs per second through each backend with 1 and 2 runtime processes (not a timed test).
 * `node --import tsx bench/jobsThroughput.ts [--jobs 2000]`: each process is the jobs tests' job
 * server (test/jobs/fixtures/jobServer.ts); every job's handler inserts one row (job_effect), and
 * the clock runs from the moment all jobs become due until the last row is in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '2000' } } });
const JOBS = Number(values.jobs);
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = new URL('..', import.meta.url).pathname;

interface Server { send(c: object): Promise<any>; stop(): Promise<void> } // eslint-disable-line @typescript-eslint/no-explicit-any

async function start(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/jobs/fixtures/jobServer.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value));
  await next();
  return {
    async send(c) { child.stdin!.write(`${JSON.stringify(c)}\n`); return next(); },
    async stop() { child.stdin!.write('{"cmd":"stop"}\n'); await new Promise((r) => child.on('exit', r)); },
  };
}

async function run(backend: 'embedded-sqlite' | 'embedded-postgres' | 'bullmq', processes: number): Promise<number> {
  const id = `bench-${backend.replace(/[^a-z]/g, '')}-${processes}-${process.pid}`;
  const schema = `env_${id.replace(/-/g, '_')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-jobs-bench-'));
  const env = {
    JOBS_ENV: id, JOBS_DATA_DIR: dataDir, JOBS_OPTIONS: JSON.stringify({ pollMs: 50, concurrency: 8 }),
    ...(backend !== 'embedded-sqlite' ? { DATABASE_URL: POSTGRES_URL } : {}),
    ...(backend === 'bullmq' ? { REDIS_URL } : {}),
  };
  const servers: Server[] = [];
  for (let i = 0; i < processes; i++) servers.push(await start(env));
  const count = backend === 'embedded-sqlite'
    ? (() => { const db = new Database(join(dataDir, `${id}.db`), { readonly: true }); return async () => Number((db.prepare('select count(*) as n from job_effect').get() as { n: number }).n); })()
    : (() => { const client = new pg.Client({ connectionString: POSTGRES_URL }); const ready = client.connect(); return async () => { await ready; return Number((await client.query(`select count(*) as n from "${schema}".job_effect`)).rows[0].n); }; })();
  // Every job due at one moment, well after they are all added.
  const due = Date.now() + 6000 + JOBS * 4;
  await Promise.all(servers.map((s, i) => s.send({ cmd: 'add', name: 'probe.effect', data: { p: i }, count: Math.ceil(JOBS / processes), options: { runAt: new Date(due).toISOString() } })));
  const total = Math.ceil(JOBS / processes) * processes;
  while (Date.now() < due) await new Promise((r) => setTimeout(r, 5));
  while ((await count()) < total) await new Promise((r) => setTimeout(r, 20));
  const seconds = (Date.now() - due) / 1000;
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dataDir, { recursive: true, force: true });
  if (backend !== 'embedded-sqlite') {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
  if (backend === 'bullmq') {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`osr:${id}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
  return total / seconds;
}

const rows: string[] = [];
for (const backend of ['embedded-sqlite', 'embedded-postgres', 'bullmq'] as const) {
  for (const processes of [1, 2]) {
    const rate = await run(backend, processes);
    rows.push(`| ${backend} | ${processes} | ${Math.round(rate)} |`);
    console.log(rows.at(-1));
  }
}
console.log(['', `${JOBS} jobs, concurrency 8 per process, one row inserted per job`, '| backend | processes | jobs/s |', '|---|---|---|', ...rows].join('\n'));
process.exit(0);
