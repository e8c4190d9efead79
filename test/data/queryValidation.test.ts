import t from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { databaseCases } from '../harness/databases.ts';
import { contact, registry } from '../harness/fixtures.ts';
import { seed } from './seed.ts';

/** Bad queries: each is refused with VALIDATION_ERROR naming the path (and a phrase of the message). */
const BAD: Array<{ name: string; query: Record<string, unknown>; path: string; says: string }> = [
  { name: 'unknown field in where', query: { where: { nope: 1 } }, path: 'where.nope', says: "unknown field 'nope'" },
  { name: 'typo gets a suggestion', query: { where: { nmae: 'x' } }, path: 'where.nmae', says: "did you mean 'name'" },
  { name: 'SQL in a where key', query: { where: { 'name; drop table contact': 'x' } }, path: 'where.name; drop table contact', says: 'unknown field' },
  { name: 'SQL in a where key with a quote', query: { where: { 'name" = name or "1': 'x' } }, path: 'where.name" = name or "1', says: 'unknown field' },
  { name: 'unknown operator', query: { where: { name: { $regex: '.*' } } }, path: 'where.name.$regex', says: "unknown operator '$regex'" },
  { name: 'unknown logical operator', query: { where: { $xor: [] } }, path: 'where.$xor', says: 'unknown logical operator' },
  { name: '$and not an array', query: { where: { $and: { name: 'x' } } }, path: 'where.$and', says: 'array of conditions' },
  { name: '$in not an array', query: { where: { priority: { $in: 1 } } }, path: 'where.priority.$in', says: 'takes an array' },
  { name: '$in with a wrong element', query: { where: { priority: { $in: [1, 'two'] } } }, path: 'where.priority.$in[1]', says: 'a number' },
  { name: '$between with three values', query: { where: { score: { $between: [1, 2, 3] } } }, path: 'where.score.$between', says: 'exactly two' },
  { name: 'string for a number', query: { where: { priority: { $gt: 'high' } } }, path: 'where.priority.$gt', says: "not 'high'" },
  { name: 'bad date', query: { where: { birthday: '2026-02-30' } }, path: 'where.birthday', says: 'YYYY-MM-DD' },
  { name: 'bad datetime', query: { where: { last_seen: { $lt: 'yesterday' } } }, path: 'where.last_seen.$lt', says: 'ISO 8601' },
  { name: 'array as a bare value', query: { where: { priority: [1, 2] } }, path: 'where.priority', says: '$in' },
  { name: '$contains on a number', query: { where: { score: { $contains: '1' } } }, path: 'where.score.$contains', says: 'text fields' },
  { name: '$null not boolean', query: { where: { email: { $null: 'yes' } } }, path: 'where.email.$null', says: 'true or false' },
  { name: '$gt null', query: { where: { score: { $gt: null } } }, path: 'where.score.$gt', says: 'not null' },
  { name: '$field unknown', query: { where: { score: { $gt: { $field: 'score) or (1=1' } } } }, path: 'where.score.$gt.$field', says: 'unknown field' },
  { name: '$field of another type', query: { where: { score: { $gt: { $field: 'name' } } } }, path: 'where.score.$gt.$field', says: 'cannot be compared' },
  { name: 'bad $cel', query: { where: { last_seen: { $lt: { $cel: 'now( +' } } } }, path: 'where.last_seen.$lt.$cel', says: 'not valid' },
  { name: '$cel of the wrong type', query: { where: { score: { $lt: { $cel: 'now()' } } } }, path: 'where.score.$lt.$cel', says: 'does not fit' },
  { name: 'formula in where', query: { where: { label: 'x' } }, path: 'where.label', says: 'formula field' },
  { name: 'formula in orderBy', query: { orderBy: 'label' }, path: 'orderBy', says: 'formula field' },
  { name: 'unknown alias', query: { where: { 'b.name': 'x' } }, path: 'where.b.name', says: "unknown field 'b.name'" },
  { name: 'SQL in orderBy shorthand', query: { orderBy: 'id) or 1=1--' }, path: 'orderBy', says: 'unknown field' },
  { name: 'SQL in orderBy node', query: { orderBy: [{ field: 'name desc; drop table contact', order: 'asc' }] }, path: 'orderBy[0].field', says: 'unknown field' },
  { name: 'bad sort order', query: { orderBy: [{ field: 'name', order: 'sideways' }] }, path: 'orderBy[0].order', says: "'asc' or 'desc'" },
  { name: 'SQL in select', query: { select: ['name', 'email from contact --'] }, path: 'select[1]', says: 'unknown field' },
  { name: 'SQL in fields list string', query: { fields: 'name,(select 1)' }, path: 'fields[1]', says: 'unknown field' },
  { name: 'SQL in expand', query: { expand: ['account; drop table account'] }, path: 'expand[0]', says: 'cannot expand' },
  { name: 'expand a non-lookup', query: { expand: ['name'] }, path: 'expand[0]', says: 'not a lookup' },
  { name: 'SQL in join on', query: { joins: [{ type: 'left', object: 'account', as: 'a', on: 'account = a.id or 1=1' }] }, path: 'joins[0].on', says: 'on must read' },
  { name: 'join on another alias', query: { joins: [{ type: 'left', object: 'account', as: 'a', on: 'account = b.id' }] }, path: 'joins[0].on', says: "alias 'a'" },
  { name: 'join on unknown field', query: { joins: [{ type: 'left', object: 'account', as: 'a', on: 'acount = a.id' }] }, path: 'joins[0].on', says: "unknown field 'acount'" },
  { name: 'unknown join type', query: { joins: [{ type: 'cross', object: 'account', as: 'a', on: 'account = a.id' }] }, path: 'joins[0].type', says: 'inner, left, right, full' },
  { name: 'unknown join object', query: { joins: [{ type: 'left', object: 'sys_user', as: 'a', on: 'account = a.id' }] }, path: 'joins[0].object', says: 'unknown object' },
  { name: 'SQL in join alias', query: { joins: [{ type: 'left', object: 'account', as: 'a"; --', on: 'account = a.id' }] }, path: 'joins[0].as', says: 'lowercase identifier' },
  { name: 'limit over maxPageSize', query: { limit: 201 }, path: 'limit', says: 'cap of 200' },
  { name: 'limit zero', query: { limit: 0 }, path: 'limit', says: 'positive integer' },
  { name: 'limit negative', query: { limit: -1 }, path: 'limit', says: 'positive integer' },
  { name: 'limit fractional', query: { limit: 1.5 }, path: 'limit', says: 'positive integer' },
  { name: 'limit text', query: { limit: 'ten' }, path: 'limit', says: 'positive integer' },
  { name: 'offset negative', query: { offset: -5 }, path: 'offset', says: 'non-negative integer' },
  { name: 'unknown query key', query: { hack: 1 }, path: 'hack', says: 'unknown query key' },
  { name: 'another object', query: { object: 'account' }, path: 'object', says: "sent to object 'contact'" },
  { name: 'unknown group field', query: { groupBy: ['nope'], aggregations: [{ function: 'count', alias: 'n' }] }, path: 'groupBy[0]', says: 'unknown field' },
  { name: 'granularity on text', query: { groupBy: [{ field: 'name', dateGranularity: 'month' }] }, path: 'groupBy[0].field', says: 'date or datetime' },
  { name: 'unknown granularity', query: { groupBy: [{ field: 'birthday', dateGranularity: 'decade' }] }, path: 'groupBy[0].dateGranularity', says: 'day, week, month' },
  { name: 'unknown aggregate function', query: { aggregations: [{ function: 'median', field: 'score', alias: 'm' }] }, path: 'aggregations[0].function', says: 'unknown aggregate function' },
  { name: 'sum of text', query: { aggregations: [{ function: 'sum', field: 'name', alias: 's' }] }, path: 'aggregations[0].field', says: 'numeric field' },
  { name: 'SQL in aggregation alias', query: { aggregations: [{ function: 'count', alias: 'n" from contact; --' }] }, path: 'aggregations[0].alias', says: 'identifier' },
  { name: 'having on an unknown alias', query: { groupBy: ['priority'], aggregations: [{ function: 'count', alias: 'n' }], having: { zzz: { $gt: 1 } } }, path: 'having.zzz', says: 'neither' },
  { name: 'having without groupBy', query: { having: { n: 1 } }, path: 'having', says: 'needs groupBy' },
  { name: 'cursor with groupBy', query: { groupBy: ['priority'], cursor: 'abc.def' }, path: 'cursor', says: 'use offset' },
  { name: 'where not JSON', query: { where: '{name:' }, path: 'where', says: 'not valid JSON' },
  { name: 'distinct sorting on an unselected field', query: { fields: ['priority'], distinct: true, orderBy: 'name' }, path: 'orderBy', says: 'not selected' },
];

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const snapshot = async () => JSON.stringify(await db.knex('contact').select('*').orderBy('id'));
    const before = await snapshot();
    for (const bad of BAD) {
      t.test(bad.name, async (t) => {
        let caught: unknown = null;
        try {
          await executeQuery(parseQuery(bad.query, contact, registry), db.knex, { cursorKey: 'k' });
        } catch (error) {
          caught = error;
        }
        t.ok(isCodedError(caught), 'a coded error');
        if (!isCodedError(caught)) return;
        t.equal(caught.code, 'VALIDATION_ERROR');
        const errors = caught.details.errors as Array<{ path: string; message: string }>;
        const hit = errors.find((e) => e.path === bad.path);
        t.ok(hit, `an error at ${bad.path} (got ${errors.map((e) => e.path).join(', ')})`);
        t.match(hit?.message ?? '', bad.says);
      });
    }
    t.test('every problem is reported at once', async (t) => {
      const error = (() => {
        try {
          parseQuery({ where: { nope: 1 }, orderBy: 'zzz', limit: 999 }, contact, registry);
        } catch (e) {
          return e;
        }
        return null;
      })();
      t.ok(isCodedError(error));
      t.same(isCodedError(error) ? (error.details.errors as Array<{ path: string }>).map((e) => e.path) : [], ['where.nope', 'orderBy', 'limit']);
    });
    t.test('the table is unchanged', async (t) => {
      t.equal(await snapshot(), before);
      const tables = db.dialect === 'sqlite'
        ? ((await db.knex('sqlite_master').where('type', 'table').pluck('name')) as string[])
        : ((await db.knex.raw('select tablename from pg_tables where schemaname = current_schema()')).rows as Array<{ tablename: string }>).map((r) => r.tablename);
      t.same(tables.filter((n) => n === 'contact' || n === 'account').sort(), ['account', 'contact']);
    });
  });
}
