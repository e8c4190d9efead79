/** osr lifecycle as operators run it: a child process over a workspace whose plugin declares a contract. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const cwd = mkdtempSync(join(tmpdir(), 'osr-lifecycle-'));
t.teardown(() => rmSync(cwd, { recursive: true, force: true }));

// A plugin that declares one contract and seeds its table once: three rows, two of them past 30 days.
writeFileSync(join(cwd, 'seed.mjs'), `
const DAY = 86400000;
export default {
  name: 'seed-retention', version: '1.0.0', kernel: '^16.0.0', requires: ['data.database', 'runtime.info'],
  register(ctx) {
    ctx.retention({ name: 'seed.events', object: 'seed_event', description: 'seeded', keepDays: 30, action: 'delete', ageField: 'created_at' });
  },
  async start(ctx) {
    for (const env of ctx.resolve('runtime.info').environments) {
      await ctx.resolve('data.database').withDatabase(env.id, async ({ knex }) => {
        if (await knex.schema.hasTable('seed_event')) return;
        await knex.schema.createTable('seed_event', (tb) => { tb.string('id').primary(); tb.timestamp('created_at', { useTz: true }); });
        await knex('seed_event').insert([1, 31, 90].map((d) => ({ id: 'd' + d, created_at: new Date(Date.now() - d * DAY).toISOString() })));
      });
    }
  },
};
`);
writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [], plugins: { 'seed-retention': { path: './seed.mjs', grants: ['data.database', 'runtime.info'] } } }));

function run(args: string[], extra: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn', ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

type Report = { dryRun: boolean; environments: Array<{ id: string; contracts: Array<{ name: string; rows: number; status: string; keepDays: number }> }> };
const seedOf = (stdout: string) => (JSON.parse(stdout) as Report).environments[0]!.contracts.find((c) => c.name === 'seed.events');

t.test('--dry-run --json counts, removes nothing; a run removes; text output', async (t) => {
  const dry = await run(['lifecycle', '--dry-run', '--json']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(seedOf(dry.stdout), { status: 'applied', rows: 2, keepDays: 30 }, 'two rows past 30 days');
  const contracts = (JSON.parse(dry.stdout) as Report).environments[0]!.contracts;
  t.same(contracts.filter((c) => c.name === 'audit.log').map((c) => c.keepDays), [90], 'the audit log: 90 days hot');
  t.same(contracts.filter((c) => c.name === 'system.activity').map((c) => c.keepDays), [14, 14], 'system activity: 14 days, over completed jobs and hook deliveries');
  const text = await run(['lifecycle', '--dry-run']);
  t.match(text.stdout, /audit\.log\s+sys_audit_event\s+keep 90 days/);
  t.match(text.stdout, /system\.activity\s+sys_job\s+keep 14 days/);
  const again = await run(['lifecycle', '--dry-run', '--json']);
  t.equal(seedOf(again.stdout)?.rows, 2, 'the dry run removed nothing');
  const real = await run(['lifecycle']);
  t.equal(real.code, 0, real.stderr);
  t.match(real.stdout, /seed\.events\s+seed_event\s+keep 30 days\s+removed 2/, 'the text report says what was removed');
  const after = await run(['lifecycle', '--dry-run', '--json']);
  t.equal(seedOf(after.stdout)?.rows, 0, 'nothing left past the window');
});

t.test('disabled: a clear refusal, exit 1', async (t) => {
  const res = await run(['lifecycle'], { OS_LIFECYCLE_DISABLED: '1' });
  t.equal(res.code, 1);
  t.match(res.stderr, /lifecycle plugin is off/);
  t.match(res.stderr, /SERVICE_OFF/, 'coded as off by configuration');
  t.notMatch(res.stderr, /retry/i, 'retrying would change nothing, so it is not suggested');
  t.match(res.stderr, /Fix: unset OS_LIFECYCLE_DISABLED/, 'it says how to turn it on');
});

t.test('the override of docs/lifecycle.md: audit.log 0 keeps the audit log forever', async (t) => {
  writeFileSync(join(cwd, 'keep.json'), JSON.stringify({ apps: [], lifecycle: { retention_overrides: { 'notifications.history': 30, 'audit.log': 0 } } }));
  const res = await run(['lifecycle', '--dry-run', '--json', '--config', 'keep.json']);
  t.equal(res.code, 0, res.stderr);
  t.match((JSON.parse(res.stdout) as Report).environments[0]!.contracts.find((c) => c.name === 'audit.log'), { keepDays: 0, status: 'kept' });
});

t.test('an unknown override fails naming it', async (t) => {
  writeFileSync(join(cwd, 'typo.json'), JSON.stringify({ apps: [], lifecycle: { retention_overrides: { 'seed.evnts': 3 } }, plugins: { 'seed-retention': { path: './seed.mjs', grants: ['data.database', 'runtime.info'] } } }));
  const res = await run(['lifecycle', '--config', 'typo.json']);
  t.equal(res.code, 1);
  t.match(res.stderr, /lifecycle\.retention_overrides\.seed\.evnts/);
  t.match(res.stderr, /audit\.log/, 'the declared contracts are listed, audit.log among them');
  t.match(res.stderr, /seed\.events/);
});
