/**
 * What a release removed fails the load naming its replacement: the per-plugin retention options
 * (CONFIG_INVALID naming the lifecycle.retention_overrides key), and `tenantId` in an action's or
 * an inbound hook flow's expression (METADATA_INVALID naming user.organizationId).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { KernelBootError } from '../../kernel/errors.ts';
import { loadApps } from '../../metadata/loadApps.ts';
import { loadConfig } from '../../runtime/loadConfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'osr-removed-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function failures(inline: unknown): Promise<Array<{ code: string; path: string; reason: string; replacement: unknown }>> {
  try {
    await loadConfig({ inline, env: {}, cwd: dir });
  } catch (error) {
    if (!(error instanceof KernelBootError)) throw error;
    return error.failures.map((f) => ({ code: f.code, path: String(f.details.path), reason: String(f.details.reason), replacement: f.details.replacement }));
  }
  return [];
}

t.test('a removed retention option is CONFIG_INVALID naming the override to use', async (t) => {
  const cases = [
    { plugin: 'notifications', key: 'retentionDays', contract: 'notifications.history' },
    { plugin: 'flows', key: 'retentionDays', contract: 'flows.runs' },
    { plugin: 'email', key: 'logRetentionDays', contract: 'email.log' },
  ];
  for (const { plugin, key, contract } of cases) {
    const found = await failures({ plugins: { [plugin]: { [key]: 30 } } });
    t.equal(found.length, 1, `${plugin}.${key}: one failure`);
    t.same([found[0]?.code, found[0]?.path, found[0]?.replacement], ['CONFIG_INVALID', `plugins.${plugin}.${key}`, `lifecycle.retention_overrides.${contract}`], `${plugin}.${key}: its path and its replacement`);
    t.match(found[0]?.reason, `lifecycle.retention_overrides["${contract}"]`, 'the reason names the override');
    t.match(found[0]?.reason, `"${contract}": 30`, 'with the days given, ready to paste');
  }
  const all = await failures({ plugins: { notifications: { retentionDays: 0 }, email: { logRetentionDays: 7 } }, nonsense: true });
  t.same(all.map((f) => f.path).sort(), ['nonsense', 'plugins.email.logRetentionDays', 'plugins.notifications.retentionDays'], 'reported at once, with the other problems of the file');

  const file = join(dir, 'runtime.config.json');
  writeFileSync(file, JSON.stringify({ plugins: { flows: { retentionDays: 14 } } }));
  try {
    await loadConfig({ configPath: file, env: {}, cwd: dir });
    t.fail('the file loaded');
  } catch (error) {
    const failure = (error as KernelBootError).failures[0]!;
    t.same([failure.code, failure.details.path, failure.details.file], ['CONFIG_INVALID', 'plugins.flows.retentionDays', file], 'from a config file: the file is named');
  }

  const overridden = await loadConfig({ inline: { lifecycle: { retention_overrides: { 'notifications.history': 0, 'flows.runs': 14, 'email.log': 30 } } }, env: {}, cwd: dir });
  t.same(overridden.lifecycle.retention_overrides, { 'notifications.history': 0, 'flows.runs': 14, 'email.log': 30 }, 'the overrides load');
});

/** An app with a task object, an action and an api flow with a hook; answers the load's problems. */
async function load(t: Test, action: Record<string, string>, flow: Record<string, string>) {
  const app = mkdtempSync(join(tmpdir(), 'osr-tenant-'));
  t.teardown(() => rmSync(app, { recursive: true, force: true }));
  for (const sub of ['objects', 'actions', 'flows']) mkdirSync(join(app, sub));
  writeFileSync(join(app, 'app.json'), JSON.stringify({ name: 'tenant', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(app, 'objects', 'task.json'), JSON.stringify({ name: 'task', fields: { title: { type: 'text' }, org: { type: 'text' } } }));
  writeFileSync(join(app, 'actions', 'stamp.json'), JSON.stringify({ name: 'stamp', object: 'task', run: { type: 'update', set: action } }));
  writeFileSync(join(app, 'flows', 'orders_in.json'), JSON.stringify({
    name: 'orders_in', type: 'api', runAs: 'system', hook: { id: 'orders', secretEnv: 'ORDERS_HOOK_SECRET' },
    input: { ref: { type: 'text', required: true } },
    steps: [{ id: 'log', type: 'create', object: 'task', values: flow }],
  }));
  const result = await loadApps([app]);
  return result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(app.length + 1), path: String(e.details.path), reason: String(e.details.reason) }));
}

t.test('tenantId in an action or a hook flow expression fails the load naming user.organizationId', async (t) => {
  const problems = await load(t, { org: 'user.tenantId' }, { title: 'input.ref', org: 'tenantId' });
  t.same(problems.map((p) => [p.code, p.file, p.path]).sort(), [
    ['METADATA_INVALID', join('actions', 'stamp.json'), 'run.set.org'],
    ['METADATA_INVALID', join('flows', 'orders_in.json'), 'steps[0].values.org'],
  ], 'each at its file and path');
  for (const p of problems) t.match(p.reason, /user\.organizationId/, `${p.file}: the reason names user.organizationId`);
  const indexed = await load(t, { org: 'string(user["tenantId"])' }, { title: 'input.ref', org: 'has(user.tenantId) ? "a" : "b"' });
  t.equal(indexed.length, 2, 'user["tenantId"] and has(user.tenantId) too');
  for (const p of indexed) t.match(p.reason, /user\.organizationId/);
  t.same(await load(t, { org: 'user.organizationId' }, { title: 'input.ref', org: 'user.organizationId' }), [], 'user.organizationId loads');
});
