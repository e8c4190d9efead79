/**
 * `osr doctor` runs the loaders and checks of a boot on the metadata: what refuses `osr start`
 * is a FAIL of the doctor, with the same code, and the doctor writes nothing.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'osr-doctor-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

const APP = { name: 'shop', label: 'Shop', version: '1.0.0', protocol: '^16.0.0' };

function workspace(app: object, objects: Record<string, object>): string {
  const cwd = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: ['app'] }));
  mkdirSync(join(cwd, 'app', 'objects'), { recursive: true });
  writeFileSync(join(cwd, 'app', 'app.json'), JSON.stringify(app));
  for (const [name, body] of Object.entries(objects)) writeFileSync(join(cwd, 'app', 'objects', `${name}.json`), JSON.stringify({ name, label: name, ...body }));
  return cwd;
}

async function osr(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn', ...extra }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  return { code, stdout, stderr };
}

type Report = { ok: boolean; checks: Array<{ name: string; ok: boolean; problems?: Array<{ code: string; message: string }> }> };

const rows = [
  { name: 'an unknown field type', app: APP, objects: { item: { fields: { title: { type: 'txet' } } } }, check: 'metadata', code: 'METADATA_INVALID', says: 'fields.title.type' },
  { name: 'a lookup to an unknown object', app: APP, objects: { item: { fields: { owner: { type: 'lookup', reference: 'persn' } } } }, check: 'metadata', code: 'METADATA_INVALID', says: "unknown object 'persn'" },
  { name: 'an unknown key', app: APP, objects: { item: { colour: 'red', fields: { title: { type: 'text' } } } }, check: 'metadata', code: 'METADATA_INVALID', says: 'colour' },
  { name: 'an app on another protocol', app: { ...APP, protocol: '^99.0.0' }, objects: { item: { fields: { title: { type: 'text' } } } }, check: 'protocol', code: 'KERNEL_PROTOCOL_INCOMPATIBLE', says: "'^99.0.0'" },
];

for (const row of rows) {
  t.test(`${row.name}: the doctor fails as the boot does, and writes nothing`, async (t) => {
    const cwd = workspace(row.app, row.objects);
    const doctor = await osr(['doctor', '--json'], cwd);
    t.equal(doctor.code, 1, 'doctor exits 1');
    const report = JSON.parse(doctor.stdout) as Report;
    t.equal(report.ok, false);
    const failed = report.checks.filter((c) => !c.ok);
    t.same(failed.map((c) => c.name), [row.check], `the ${row.check} check fails, and only it`);
    t.equal(failed[0]?.problems?.[0]?.code, row.code);
    t.match(failed[0]?.problems?.[0]?.message, row.says);
    t.same(readdirSync(cwd).sort(), ['app', 'runtime.config.json'], 'no data directory, database, secret or admin');
    const text = await osr(['doctor'], cwd);
    t.notMatch(text.stdout, 'No problems found');
    t.match(text.stdout, new RegExp(`^FAIL ${row.check} `, 'm'));

    const start = await osr(['start', '--port', String(await freePort())], cwd);
    t.equal(start.code, 1, 'osr start refuses the same metadata');
    t.match(start.stderr, `[${row.code}]`, 'with the same code');
  });
}

t.test('valid metadata: the metadata check says what loads, and the doctor finds no problem', async (t) => {
  const cwd = workspace(APP, { item: { fields: { title: { type: 'text' } } }, order: { fields: { item: { type: 'lookup', reference: 'item' } } } });
  const doctor = await osr(['doctor'], cwd);
  t.equal(doctor.code, 0);
  t.match(doctor.stdout, /^ok {3}metadata +1 app\(s\), 2 object\(s\) load$/m);
  t.match(doctor.stdout, 'No problems found.');
  t.same(readdirSync(cwd).sort(), ['app', 'runtime.config.json']);
});

t.test('a schema change the next start would refuse: the doctor plans it read-only and fails', async (t) => {
  const cwd = workspace(APP, { item: { fields: { title: { type: 'text' } } } });
  mkdirSync(join(cwd, 'data'));
  const file = join(cwd, 'data', 'default.db');
  const db = new Database(file);
  db.exec('create table item (id varchar(36) primary key, title text, price numeric)');
  db.close();
  const before = statSync(file);
  const doctor = await osr(['doctor', '--json'], cwd);
  t.equal(doctor.code, 1);
  const failed = (JSON.parse(doctor.stdout) as Report).checks.filter((c) => !c.ok);
  t.same(failed.map((c) => c.name), ['schema']);
  t.equal(failed[0]?.problems?.[0]?.code, 'SCHEMA_CHANGE_REFUSED');
  t.match(failed[0]?.problems?.[0]?.message, 'drop column item.price');
  const after = statSync(file);
  t.same([after.size, after.mtimeMs], [before.size, before.mtimeMs], 'the database file is untouched');
  t.same(readdirSync(join(cwd, 'data')), ['default.db'], 'no journal, secret or other file');
});

t.test('an inbound hook whose secret variable is not set: the doctor fails naming it', async (t) => {
  const cwd = workspace(APP, { item: { fields: { title: { type: 'text' } } } });
  mkdirSync(join(cwd, 'app', 'flows'));
  writeFileSync(join(cwd, 'app', 'flows', 'item_hook.json'), JSON.stringify({
    name: 'item_hook', type: 'api', runAs: 'system', hook: { id: 'items', secretEnv: 'SHOP_ITEMS_HOOK_SECRET' },
    input: { title: { type: 'text', required: true } },
    steps: [{ id: 'add', type: 'create', object: 'item', values: { title: 'input.title' } }],
  }));
  const unset = await osr(['doctor', '--json'], cwd);
  t.equal(unset.code, 1, 'doctor exits 1');
  const failed = (JSON.parse(unset.stdout) as Report).checks.filter((c) => !c.ok);
  t.same(failed.map((c) => c.name), ['hooks'], 'the hooks check fails, and only it');
  t.equal(failed[0]?.problems?.[0]?.code, 'HOOK_SECRET_UNSET');
  t.match(failed[0]?.problems?.[0]?.message, "Flow 'item_hook' takes signed calls at POST /api/v1/automation/hooks/item_hook/items, but the environment variable SHOP_ITEMS_HOOK_SECRET");
  const set = await osr(['doctor'], cwd, { SHOP_ITEMS_HOOK_SECRET: 'a-secret' });
  t.equal(set.code, 0, set.stdout);
  t.match(set.stdout, /^ok {3}hooks +1 inbound hook\(s\), each secret variable set$/m);
});
