/**
 * `createMany(..., { idsOnly: true })`, as an import calls it: where the caller reads every record
 * of the object and no after-insert handler applies, the rows are inserted without `returning` and
 * the outcomes hold ids alone. Everything else keeps the full path: a caller whose reads are
 * scoped still has each created record read back (a row it could not read is refused as a single
 * create refuses it, and not written), and an applying handler still gets the stored records.
 */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { buildWorld } from '../access/accessWorld.ts';
import { eachBackend } from '../auth/authHarness.ts';

/** The records the applying handler of checked_slip saw. */
const handed: DataRecord[] = [];
const probe = definePlugin({
  name: 'ids-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.scopes'],
  register(ctx) {
    ctx.hook('data.afterInsert', (event: { record: DataRecord }) => {
      handed.push({ ...event.record });
    }, { object: 'checked_slip', batched: true });
    // A handler of every object that applies to none: slip's import skips it.
    ctx.hook('data.afterInsert', (event: { object: string }) => {
      if (event.object === 'slip') handed.push({ never: true });
    }, { batched: true, appliesTo: () => false });
    // A contributed scope: a veiled slip of region HIDDEN does not exist for users.
    ctx.resolve('data.scopes').add((object, call) => (object.name === 'veiled_slip' && call.principal && !call.system ? { region: { $ne: 'HIDDEN' } } : null));
  },
});

t.test('imports answer ids alone where nothing else needs the stored rows', async (t) => {
  await eachBackend(t, ['ids'], async (t, site) => {
    handed.length = 0;
    const w = await buildWorld(t, site, { apps: ['test/data/fixtures/alone-app'], plugins: [probe] });
    t.teardown(() => w.rt.close());
    const statements: string[] = [];
    await w.rt.runtime.kernel.service<DataDatabase>('data.database')!.withDatabase(site.ids[0]!, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => statements.push(q.sql.replaceAll('`', '"')));
    });
    const inserts = (table: string) => statements.filter((sql) => sql.startsWith(`insert into "${table}"`));
    const stored = async (table: string, id: string) => (await site.query(site.ids[0]!, `select title, region, amount, created_by from ${table} where id = ?`, [id]))[0];

    const imported = await w.as('admin', 'POST', '/api/v1/data/slip/import', { format: 'json', rows: [{ title: 'S1', region: 'US', amount: 1 }, { title: 'S2', region: 'EU', amount: 2 }] });
    t.hasStrict(imported, { status: 200, body: { created: 2, failed: 0 } }, 'the admin imports two slips');
    t.same(inserts('slip').map((sql) => / returning /.test(sql)), [false], 'in one insert that answers nothing back');
    t.same(handed, [], 'the handler that applies to no object is not called');
    const ids = (imported.body.rows as Array<{ id: string }>).map((r) => r.id);
    t.same(await stored('slip', ids[1]!), { title: 'S2', region: 'EU', amount: 2, created_by: w.users.admin.id }, 'each id is its row, stored in full');

    statements.length = 0;
    const checked = await w.as('admin', 'POST', '/api/v1/data/checked_slip/import', { format: 'json', rows: [{ title: 'C1', amount: 5 }] });
    t.hasStrict(checked, { status: 200, body: { created: 1 } }, 'a checked slip imported');
    t.same(inserts('checked_slip').map((sql) => / returning /.test(sql)), [true], 'an object with an applying handler answers its rows back');
    t.hasStrict(handed, [{ id: (checked.body.rows as Array<{ id: string }>)[0]!.id, title: 'C1', amount: 5, version: 1 }], 'and the handler gets the stored record');

    statements.length = 0;
    const veiled = await w.as('other', 'POST', '/api/v1/data/veiled_slip/import', {
      format: 'json', atomic: false, rows: [{ title: 'V1', region: 'US' }, { title: 'V2', region: 'HIDDEN' }, { title: 'V3', region: 'EU' }],
    });
    const single = await w.as('other', 'POST', '/api/v1/data/veiled_slip', { title: 'V4', region: 'HIDDEN' });
    t.same([single.status, JSON.stringify(single.body).includes('NOT_FOUND')], [404, true], 'a single create of a row the member cannot read is not found');
    t.hasStrict(veiled, { status: 200, body: { total: 3, created: 2, failed: 1, errors: [{ row: 2, code: 'NOT_FOUND' }] } }, 'the member\'s import refuses that row the same way');
    const written = (veiled.body.rows as Array<{ row: number; id: string }>);
    t.same(written.map((r) => r.row), [1, 3], 'and writes the others');
    t.same((await site.query(site.ids[0]!, "select title from veiled_slip where region = 'HIDDEN'", [])).length, 0, 'nothing of the refused row is stored');
    t.ok(inserts('veiled_slip').some((sql) => / returning /.test(sql)) || statements.some((sql) => /^select .* from "veiled_slip"/.test(sql)), 'the member\'s rows were read back');
  });
});
