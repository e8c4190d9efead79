/** The lifecycle plugin applies the declared retention contracts on each driver, per environment, with overrides. */
import t from 'tap';
import type { Test } from 'tap';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { LifecycleReport, LifecycleRetention } from '../../capabilities/lifecycleRetention.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { onEachDriver, type Rest } from '../rest/restFixtures.ts';

const DAY = 86_400_000;
/** Row ages in days; each row's id says its age. */
const AGES = [1, 9, 11, 29, 31, 60, 400];
const FIXTURE = { 'retention-fixture': { path: 'test/lifecycle/fixtures/retention-fixture' } };

const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

async function seed(rest: Rest, environmentId: string): Promise<void> {
  await rest.database().withDatabase(environmentId, async ({ knex }) => {
    for (const table of ['fixture_event', 'fixture_forever', 'fixture_audit']) {
      await knex.schema.dropTableIfExists(table);
      await knex.schema.createTable(table, (tb) => {
        tb.string('id').primary();
        tb.timestamp('created_at', { useTz: true }).notNullable();
      });
      await knex(table).insert(AGES.map((d) => ({ id: `d${d}`, created_at: ago(d) })));
    }
    await knex.schema.dropTableIfExists('fixture_log');
    await knex.schema.createTable('fixture_log', (tb) => {
      tb.string('id').primary();
      tb.string('kind');
      tb.timestamp('logged_at', { useTz: true }).notNullable();
    });
    await knex('fixture_log').insert(AGES.flatMap((d) => [{ id: `debug${d}`, kind: 'debug', logged_at: ago(d) }, { id: `error${d}`, kind: 'error', logged_at: ago(d) }]));
  });
}

const ids = (rest: Rest, environmentId: string, table: string) =>
  rest.database().withDatabase(environmentId, async ({ knex }) => ((await knex(table).select('id').orderBy('id')) as Array<{ id: string }>).map((r) => r.id));
const older = (days: number) => AGES.filter((d) => d > days);
const kept = (prefix: string, days: number) => AGES.filter((d) => d <= days).map((d) => `${prefix}${d}`).sort();
const outcome = (report: LifecycleReport, env: string, name: string) => report.environments.find((e) => e.id === env)!.contracts.find((c) => c.name === name)!;

const config = (overrides: Record<string, number> = {}) => ({
  config: { plugins: { crm: { enabled: true }, ...FIXTURE }, lifecycle: { retention_overrides: overrides } },
  environments: ['lc-main', 'lc-other'],
});

t.test('removes exactly the rows past their window, per environment; keepDays 0 keeps; a dry run removes nothing', (t) => onEachDriver(t, 'lifecycle', async (t: Test, rest) => {
  const lifecycle = rest.rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!;
  t.ok(lifecycle, 'the lifecycle plugin is on by default');
  const [main, other] = rest.environments as [string, string];
  for (const env of rest.environments) await seed(rest, env);

  const dry = await lifecycle.run({ dryRun: true });
  t.equal(dry.dryRun, true);
  t.equal(outcome(dry, main, 'fixture.events').rows, older(30).length, 'the dry run counts the rows past 30 days');
  t.same(await ids(rest, main, 'fixture_event'), AGES.map((d) => `d${d}`).sort(), 'a dry run removes nothing');

  const report = await lifecycle.run({ environmentId: main });
  t.same(report.environments.map((e) => e.id), [main], 'one environment asked, one run');
  t.match(outcome(report, main, 'fixture.events'), { status: 'applied', rows: older(30).length, keepDays: 30, overridden: false, more: false });
  t.same(await ids(rest, main, 'fixture_event'), kept('d', 30), 'rows older than 30 days are gone, the rest stay');
  t.match(outcome(report, main, 'fixture.forever'), { status: 'kept', rows: 0, cutoff: null });
  t.same(await ids(rest, main, 'fixture_forever'), AGES.map((d) => `d${d}`).sort(), 'keepDays 0 keeps every row, 400 days old included');
  t.same(await ids(rest, main, 'fixture_log'), [...kept('debug', 10), ...AGES.map((d) => `error${d}`)].sort(), 'the filter limits removal to debug lines');
  t.match(outcome(report, main, 'fixture.archive'), { status: 'applied', rows: older(30).length, more: false });
  t.same(await ids(rest, main, 'fixture_audit'), kept('d', 30), 'archived rows leave their table');
  const archived = await rest.database().withDatabase(main, async ({ knex }) => knex('osr_archive').select('contract', 'object', 'row_id', 'row').orderBy('row_id'));
  t.same(archived.map((r: { row_id: string }) => r.row_id), older(30).map((d) => `d${d}`).sort(), 'and are in the archive, whole');
  t.match(archived[0], { contract: 'fixture.archive', object: 'fixture_audit' });
  t.same(Object.keys(JSON.parse(archived[0].row)).sort(), ['created_at', 'id'], 'each row kept with its columns');
  t.match(outcome(report, main, 'fixture.anonymize'), { status: 'skipped', rows: 0, reason: /anonymize/ });
  t.match(outcome(report, main, 'fixture.absent'), { status: 'missing', rows: 0 });
  t.same(await ids(rest, other, 'fixture_event'), AGES.map((d) => `d${d}`).sort(), 'the other environment is untouched');

  const again = await lifecycle.run({ environmentId: main });
  t.equal(outcome(again, main, 'fixture.events').rows, 0, 'a second run finds nothing more');

  const jobs = rest.rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
  for (const env of rest.environments) {
    const counts = await jobs.counts(env);
    t.match(counts.filter((c) => c.name === 'lifecycle.retention'), [{ state: 'delayed', count: 1 }], `${env}: the daily run is scheduled`);
  }
}, config()));

t.test('overrides replace a contract window', (t) => onEachDriver(t, 'lifecycle-over', async (t: Test, rest) => {
  const env = rest.environments[0]!;
  await seed(rest, env);
  const report = await rest.rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!.run({ environmentId: env });
  t.match(outcome(report, env, 'fixture.events'), { keepDays: 10, overridden: true, rows: older(10).length });
  t.same(await ids(rest, env, 'fixture_event'), kept('d', 10), 'the override (10 days) applies instead of 30');
  t.match(outcome(report, env, 'fixture.forever'), { keepDays: 0, overridden: true, status: 'kept' });
  t.same(await ids(rest, env, 'fixture_log'), [...kept('debug', 10), ...AGES.map((d) => `error${d}`)].sort(), 'a contract without an override keeps its window');
  t.match(outcome(report, env, 'fixture.debug'), { overridden: false });
}, { ...config({ 'fixture.events': 10, 'fixture.forever': 0 }), environments: ['lc-over'] }));

t.test('batches: a run removes in batches and stops at its budget', (t) => onEachDriver(t, 'lifecycle-batch', async (t: Test, rest) => {
  const env = rest.environments[0]!;
  await seed(rest, env);
  const report = await rest.rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!.run({ environmentId: env });
  t.match(outcome(report, env, 'fixture.events'), { rows: 2, more: true }, 'two batches of one row, then the budget is spent');
  t.equal((await ids(rest, env, 'fixture_event')).length, AGES.length - 2, 'two rows removed');
  const next = await rest.rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!.run({ environmentId: env });
  t.match(outcome(next, env, 'fixture.events'), { rows: 1, more: false }, 'the next run finishes');
  t.same(await ids(rest, env, 'fixture_event'), kept('d', 30));
}, {
  config: { plugins: { crm: { enabled: true }, ...FIXTURE, lifecycle: { batchSize: 1, maxBatches: 2 } } },
  environments: ['lc-batch'],
}));

t.test('OS_LIFECYCLE_DISABLED=1: no lifecycle service, no daily job', async (t) => {
  const rt = await startTestRuntime({ config: { plugins: FIXTURE, environments: [{ id: 'main' }] }, env: { OS_LIFECYCLE_DISABLED: '1' } });
  t.teardown(() => rt.close());
  t.equal(rt.runtime.kernel.service('lifecycle.retention'), undefined, 'the plugin is off');
  const counts = await rt.runtime.kernel.service<JobsQueue>('jobs.queue')!.counts('main');
  t.same(counts.filter((c) => c.name === 'lifecycle.retention'), [], 'nothing scheduled');
});

t.test('boots without jobs.queue', async (t) => {
  const rt = await startTestRuntime({ config: { plugins: { ...FIXTURE, jobs: { enabled: false }, flows: { enabled: false }, automation: { enabled: false }, approvals: { enabled: false } }, environments: [{ id: 'main' }] } });
  t.teardown(() => rt.close());
  const report = await rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!.run({ dryRun: true });
  t.match(outcome(report, 'main', 'fixture.events'), { status: 'missing' }, 'runs by hand');
});

t.test('an override naming no contract fails the boot, naming it', async (t) => {
  const error = await startTestRuntime({
    config: { plugins: FIXTURE, lifecycle: { retention_overrides: { 'fixture.evnets': 5 } }, environments: [{ id: 'main' }] },
  }).then(() => null, (e: Error) => e);
  t.ok(error, 'the boot fails');
  t.match(error?.message, /lifecycle\.retention_overrides\.fixture\.evnets/, 'names the override');
  t.match(error?.message, /fixture\.events/, 'lists the declared contracts');
});
