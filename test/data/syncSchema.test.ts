import t from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { recordToRow, rowToRecord } from '../../plugins/data/sql/codec.ts';
import { introspectSchema } from '../../plugins/data/sql/introspectSchema.ts';
import { syncSchema } from '../../plugins/data/sql/syncSchema.ts';
import { databaseCases } from '../harness/databases.ts';
import { resolvedObject } from '../harness/fixtures.ts';

const base = {
  name: { type: 'text', unique: true },
  amount: { type: 'currency' },
  owner_ref: { type: 'lookup', reference: 'item' },
  code: { type: 'autonumber', format: 'IT-{0000}' },
  total: { type: 'formula', returns: 'number', expression: 'record.amount' },
} as const;

const item = (fields: Record<string, unknown> = {}, overrides: Partial<ResolvedObject> = {}) =>
  resolvedObject('item', { ...base, ...fields } as Parameters<typeof resolvedObject>[1], overrides);

async function refused(run: () => Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> } | null> {
  try {
    await run();
    return null;
  } catch (error) {
    return isCodedError(error) ? { code: error.code, details: error.details } : { code: 'not coded', details: { error: String(error) } };
  }
}

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    const { knex, dialect } = db;
    const shape = async () => (await introspectSchema(knex, dialect, ['item'])).get('item');
    const pg = dialect === 'postgres';

    t.test('creates the table: system columns, stored fields, indexes', async (t) => {
      const report = await syncSchema(knex, [item({}, { indexes: [{ fields: ['name', 'amount'] }] })]);
      t.equal(report.applied, true);
      t.match(report.lines[0], /^create table item/);
      const table = (await shape())!;
      t.same([...table.columns.keys()], ['id', 'version', 'created_at', 'updated_at', 'created_by', 'updated_by', 'owner_id', 'name', 'amount', 'owner_ref', 'code', 'code_seq']);
      t.equal(table.columns.get('amount'), pg ? 'numeric(18,4)' : 'numeric');
      t.equal(table.columns.get('created_at'), pg ? 'timestamptz' : 'text');
      t.equal(table.columns.get('code_seq'), pg ? 'bigint' : 'integer');
      t.notOk(table.columns.has('total'), 'formulas are not stored');
      const indexes = [...table.indexes.values()].map((i) => `${i.unique ? 'unique ' : ''}${i.columns.join('+')}`).sort();
      t.same(indexes, ['name+amount', 'owner_id', 'owner_ref', 'unique code_seq', 'unique name']);
    });

    t.test('a second sync has nothing to do', async (t) => {
      const report = await syncSchema(knex, [item({}, { indexes: [{ fields: ['name', 'amount'] }] })]);
      t.same(report.actions, []);
      t.equal(report.applied, false);
    });

    t.test('unique is enforced by the database', async (t) => {
      await knex('item').insert(recordToRow(item(), { id: 'i1', version: 1, name: 'one', amount: 12.5 }, dialect));
      const error = await refused(async () => knex('item').insert(recordToRow(item(), { id: 'i2', version: 1, name: 'one' }, dialect)));
      t.ok(error, 'duplicate name refused');
    });

    t.test('additive changes: new column and index, data kept, stale engine index dropped', async (t) => {
      const report = await syncSchema(knex, [item({ note: { type: 'textarea', indexed: true } })]);
      t.same(report.actions.map((a) => a.kind), ['dropIndex', 'addColumn', 'createIndex']);
      t.same(report.lines, [
        'drop index ix_item__name__amount on item',
        `add column item.note text`,
        'create index ix_item__note on item (note)',
      ]);
      t.equal((await knex('item').where('id', 'i1').first()).name, 'one');
    });

    t.test('dropping a column is refused and nothing is applied', async (t) => {
      const error = await refused(() => syncSchema(knex, [item({ extra: { type: 'integer' } })]));
      t.equal(error?.code, 'SCHEMA_CHANGE_REFUSED');
      t.same(error?.details.changes, ['drop column item.note (its data is lost)']);
      const table = (await shape())!;
      t.ok(table.columns.has('note'), 'column kept');
      t.notOk(table.columns.has('extra'), 'the additive part of a refused sync is not applied either');
    });

    t.test('changing a type is refused, dryRun plans, destructive applies', async (t) => {
      const retyped = item({ note: { type: 'textarea', indexed: true }, amount: { type: 'boolean' } });
      const error = await refused(() => syncSchema(knex, [retyped]));
      t.equal(error?.code, 'SCHEMA_CHANGE_REFUSED');
      t.same(error?.details.changes, [`change item.amount from ${pg ? 'numeric(18,4)' : 'numeric'} to ${pg ? 'boolean' : 'integer'} (its data is lost)`]);
      const plan = await syncSchema(knex, [retyped], { destructive: true, dryRun: true });
      t.equal(plan.applied, false);
      t.equal((await shape())!.columns.get('amount'), pg ? 'numeric(18,4)' : 'numeric', 'dry run changed nothing');
      const applied = await syncSchema(knex, [retyped], { destructive: true });
      t.equal(applied.applied, true);
      t.equal((await shape())!.columns.get('amount'), pg ? 'boolean' : 'integer');
      const row = await knex('item').where('id', 'i1').first();
      t.equal(row.name, 'one', 'other columns keep their data');
      t.equal(row.amount, null, 'the retyped column starts empty');
      const dropped = await syncSchema(knex, [item({ amount: { type: 'boolean' } })], { destructive: true });
      t.same(dropped.actions.map((a) => a.kind), ['dropIndex', 'dropColumn']);
      t.notOk((await shape())!.columns.has('note'));
    });

    t.test('names that cannot be columns are refused before any DDL', async (t) => {
      const clash = await refused(() => syncSchema(knex, [resolvedObject('clash', { id: { type: 'text' }, code: { type: 'autonumber' }, code_seq: { type: 'integer' } })]));
      t.equal(clash?.code, 'METADATA_INVALID');
      t.match(String(clash?.details.reason), /'id' is a system column/);
      t.match(String(clash?.details.reason), /autonumber needs column 'code_seq'/);
      const badName = await refused(() => syncSchema(knex, [resolvedObject('bad name"; drop', { a: { type: 'text' } })]));
      t.equal(badName?.code, 'METADATA_INVALID');
      t.equal((await introspectSchema(knex, dialect, ['clash'])).size, 0);
    });

    t.test('records read back the same on both drivers', async (t) => {
      const every = resolvedObject('every', {
        t: { type: 'text' }, i: { type: 'integer' }, n: { type: 'number' }, c: { type: 'currency' }, p: { type: 'percent' },
        b: { type: 'boolean' }, f: { type: 'boolean' }, d: { type: 'date' }, dt: { type: 'datetime' },
        s: { type: 'select', options: ['x'] }, m: { type: 'multiselect', options: ['x', 'y'] }, j: { type: 'json' }, l: { type: 'lookup', reference: 'every' },
      }, { owner: false });
      await syncSchema(knex, [every]);
      const record = {
        id: 'e1', version: 1, created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.000Z', created_by: 'u', updated_by: 'u',
        t: 'héllo', i: 2 ** 40, n: 0.1, c: 1234.5678, p: 12.5, b: true, f: false, d: '2024-02-29', dt: '2026-03-01T11:00:00+01:00',
        s: 'x', m: ['y', 'x'], j: { deep: [1, { a: null }], s: 'text' }, l: null,
      };
      await knex('every').insert(recordToRow(every, record, dialect));
      const read = rowToRecord(every, await knex('every').where('id', 'e1').first(), dialect);
      t.same(read, { ...record, dt: '2026-03-01T10:00:00.000Z' });
      t.notOk('owner_id' in read, 'no owner column when owner is false');
    });
  });
}
