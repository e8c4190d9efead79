/** Raw SQL below row security is its own grant (data.database): a plugin granted data.engine alone cannot reach it. */
import t from 'tap';
import type { SqlProbeFindings } from './fixtures/sql-probe/index.ts';
import type { AnyPlugin } from '../../kernel/index.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const RECORD_METHODS = ['create', 'createMany', 'delete', 'get', 'getNow', 'history', 'outside', 'prepareMany', 'purge', 'query', 'restore', 'transaction', 'trash', 'update', 'upsert'];
const findings = () => (globalThis as { sqlProbe?: SqlProbeFindings }).sqlProbe!;

const boot = (grants: string[]) => startTestRuntime({
  config: {
    apps: ['metadata/apps/crm'],
    api: { requireAuth: false },
    plugins: { 'sql-probe': { path: 'test/access/fixtures/sql-probe', grants } },
  },
});

t.test('a third-party plugin granted data.engine only', async (t) => {
  const rt = await boot(['data.engine', 'hooks.registry']);
  t.teardown(() => rt.close());
  const created = await rt.inject({ method: 'POST', url: '/api/v1/data/account', payload: { name: 'Acme' } });
  t.equal(created.statusCode, 201);
  t.same(findings().engineKeys, RECORD_METHODS, 'the engine it is given has the record methods and nothing else (no withDatabase)');
  t.same(findings().hookEngineKeys, RECORD_METHODS, "a write hook's engine has no SQL access either");
  t.equal(findings().database, 'absent', 'data.database, declared optional but not granted, resolves to nothing');
  t.equal(findings().insideCount, null);
});

t.test('granted data.database, the same plugin reaches side tables in the write transaction', async (t) => {
  const rt = await boot(['data.engine', 'data.database', 'hooks.registry']);
  t.teardown(() => rt.close());
  const created = await rt.inject({ method: 'POST', url: '/api/v1/data/account', payload: { name: 'Acme' } });
  t.equal(created.statusCode, 201);
  t.equal(findings().database, 'present');
  t.equal(findings().insideCount, 1, 'the new row is visible: the access is the write transaction');
});

t.test('a plugin requiring data.database without the grant does not boot, and the error names the token', async (t) => {
  const { default: probe } = await import('./fixtures/sql-probe/index.ts');
  const strict = { ...probe, requires: [...(probe.requires ?? []), 'data.database'], optional: [] } as unknown as AnyPlugin;
  const error = await startTestRuntime({
    config: { apps: ['metadata/apps/crm'], plugins: { 'sql-probe': { grants: ['data.engine', 'hooks.registry'] } } },
    builtins: [...(await import('../../plugins/builtin.ts')).BUILTIN_PLUGINS, { manifest: strict, enabledByDefault: true }],
  }).then(() => null, (e: unknown) => e as { code?: string; message?: string });
  t.equal(error?.code, 'KERNEL_BOOT_FAILED');
  t.match(error?.message, /\[KERNEL_TOKEN_NOT_GRANTED\] Plugin 'sql-probe' requires 'data\.database'/);
});
