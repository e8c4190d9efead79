/**
 * `osr doctor` warns when remembered reads are on while other PostgreSQL roles may write the
 * environment's tables: their writes send no change notification (issue: writes made by other
 * programs). The warning names the roles, the NOTIFY that tells every process, and countCache off.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const PG_URL = process.env.OSR_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const root = mkdtempSync(join(tmpdir(), 'osr-doctor-writers-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

const suffix = randomBytes(4).toString('hex');
const envId = `dr-${suffix}`;
const schema = `env_dr_${suffix}`;
const role = `osr_dr_writer_${suffix}`;
const reader = `osr_dr_reader_${suffix}`;

const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
t.teardown(async () => {
  await admin.query(`drop schema if exists ${schema} cascade`);
  for (const r of [role, reader]) {
    await admin.query(`do $$ begin if exists (select 1 from pg_roles where rolname = '${r}') then execute 'drop owned by ${r}'; execute 'drop role ${r}'; end if; end $$`);
  }
  await admin.end();
});
await admin.query(`create schema ${schema}`);
await admin.query(`create table ${schema}.item (id text primary key, title text)`);
await admin.query(`create role ${reader}`);
await admin.query(`grant usage on schema ${schema} to ${reader}`);
await admin.query(`grant select on ${schema}.item to ${reader}`);

function workspace(plugins: object = {}): string {
  const cwd = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: ['app'], database: { url: PG_URL }, environments: [{ id: envId }], plugins }));
  mkdirSync(join(cwd, 'app', 'objects'), { recursive: true });
  writeFileSync(join(cwd, 'app', 'app.json'), JSON.stringify({ name: 'shop', label: 'Shop', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(cwd, 'app', 'objects', 'item.json'), JSON.stringify({ name: 'item', label: 'Item', fields: { title: { type: 'text' } } }));
  return cwd;
}

async function doctor(cwd: string, json: boolean) {
  const child = spawn(process.execPath, [BIN, 'doctor', ...(json ? ['--json'] : [])], {
    cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  return { code, stdout };
}

type Check = { name: string; ok: boolean; warning?: boolean; detail: string; problems?: Array<{ code: string; message: string }> };
const writersOf = (stdout: string) => (JSON.parse(stdout) as { ok: boolean; checks: Check[] }).checks.find((c) => c.name === 'other writers');

t.test('no other role may write (a reader only): no warning', async (t) => {
  const run = await doctor(workspace(), true);
  const check = writersOf(run.stdout);
  t.equal(check?.ok, true);
  t.equal(check?.warning, undefined, 'not a warning');
  t.equal(check?.detail, `${envId}: no other role may write its tables`);
  t.equal(check?.problems, undefined);
});

t.test('a second role with write grants on the schema: the doctor warns, naming it, the NOTIFY and countCache off', async (t) => {
  await admin.query(`create role ${role}`);
  await admin.query(`grant usage on schema ${schema} to ${role}`);
  await admin.query(`grant insert, update on ${schema}.item to ${role}`);
  const run = await doctor(workspace(), true);
  t.equal(run.code, 0, 'a warning is not a failure');
  const check = writersOf(run.stdout);
  t.equal(check?.ok, true);
  t.equal(check?.warning, true);
  t.equal(check?.problems?.length, 1);
  t.equal(check?.problems?.[0]?.code, 'SHARED_WRITERS');
  t.equal(check?.problems?.[0]?.message,
    `Environment '${envId}' (schema ${schema}): ${role} may write its tables, and their writes send no change notification while remembered reads are on. ` +
    `Fix: after their writes run \`NOTIFY osr_changed_${schema}\` (every process forgets what it remembered), or set plugins.data.countCache: 'off' to remember nothing.`);

  const text = await doctor(workspace(), false);
  t.match(text.stdout, /^warn other writers +remembered reads are on/m, 'printed as warn');
  t.match(text.stdout, `[SHARED_WRITERS] Environment '${envId}'`);
  t.match(text.stdout, 'No problems found; read the lines marked warn.');

  const off = await doctor(workspace({ data: { countCache: 'off' } }), true);
  const offCheck = writersOf(off.stdout);
  t.equal(offCheck?.warning, undefined, 'with countCache off nothing is remembered: no warning');
  t.equal(offCheck?.detail, 'plugins.data.countCache is off: nothing is remembered, every read goes to the database');
});
