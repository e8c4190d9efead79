/**
 * conditionOnRecord (what a row scope or where says of a record from its own values) agrees with
 * the SQL on both drivers: over seeded random conditions (compare, in, between, null, text, and/or/
 * not, joined fields) on the fixture contacts, every record it calls true is one the query returns
 * and every record it calls false one it does not. It must decide most of them (else it saves
 * nothing), and it must leave undecided what the drivers may answer differently.
 */
import t from 'tap';
import { conditionOnRecord } from '../../plugins/data/access/conditionOnRecord.ts';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import type { Condition, FieldRef } from '../../plugins/data/query/types.ts';
import { databaseCases } from '../harness/databases.ts';
import { contact, registry } from '../harness/fixtures.ts';
import { CONTACTS, seed } from './seed.ts';
import { seededRandom } from '../harness/seededRandom.ts';

const SEED = Number(process.env.CONDITION_SEED ?? 7);
const CASES = 400;


/** Values each field is tested with: some the rows hold, some they do not, and wrong kinds the parser refuses. */
const VALUES: Record<string, unknown[]> = {
  name: ['Alice Smith', 'carol smith', 'Carol Smith', 'Dave', 'Éva Szabó', 'Zed'],
  email: ['alice@acme.test', 'bob@globex.test', 'nobody@x.test'],
  account: ['a1', 'a2', 'a9', 'a5'],
  owner_id: ['u1', 'u2', 'u3'],
  score: [4.25, 7, 8, 9.5, 0, -1],
  priority: [1, 2, 3, 4],
  birthday: ['1990-03-02', '2000-01-01'],
  notes: ['maybe', '100% sure', 'ÉCOLE'],
};
const FIELDS = Object.keys(VALUES);

function where(rnd: () => number, depth: number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const roll = rnd();
  if (depth < 3 && roll < 0.3) {
    const n = 2 + Math.floor(rnd() * 2);
    return { [pick(['$and', '$or'])]: Array.from({ length: n }, () => where(rnd, depth + 1)) };
  }
  if (depth < 3 && roll < 0.4) return { $not: where(rnd, depth + 1) };
  const field = pick(FIELDS);
  const values = VALUES[field]!;
  const numeric = typeof values[0] === 'number';
  const ops = ['$eq', '$ne', '$in', '$nin', '$null', '$contains', ...(numeric ? ['$gt', '$gte', '$lt', '$lte', '$between'] : ['$gt'])];
  const op = pick(ops);
  if (op === '$null') return { [field]: { $null: rnd() < 0.5 } };
  if (op === '$in' || op === '$nin') return { [field]: { [op]: values.filter(() => rnd() < 0.5) } };
  if (op === '$between') return { [field]: { $between: [pick(values), pick(values)].sort((a, b) => Number(a) - Number(b)) } };
  if (op === '$contains') return { [field]: { $contains: String(pick(values)).slice(0, 3) } };
  return { [field]: { [op]: pick(values) } };
}

/** Field tests used in the hand-made cases. */
const ref = (name: string, type: FieldRef['type'], alias: string | null = null): FieldRef => ({ alias, object: 'contact', name, column: name, type, seqColumn: null });
const eq = (r: FieldRef, value: unknown): Condition => ({ kind: 'compare', target: { kind: 'field', ref: r }, op: 'eq', operand: { kind: 'value', value } });

t.test('what the values alone cannot decide is left undecided', async (t) => {
  const record = { id: 'c01', name: 'Alice', score: 9.5, priority: 1, birthday: '1990-03-02', active: true, price: 1.5, tags: ['a'] };
  t.equal(conditionOnRecord(eq(ref('name', 'text'), 'Alice'), record), true, 'text equality is decided');
  t.equal(conditionOnRecord(eq(ref('name', 'text'), 'alice'), record), false, 'byte for byte');
  t.equal(conditionOnRecord(eq(ref('name', 'text', 'acct'), 'Alice'), record), undefined, 'a joined field is not');
  t.equal(conditionOnRecord(eq(ref('birthday', 'date'), '1990-03-02'), record), undefined, 'nor a date');
  t.equal(conditionOnRecord(eq(ref('active', 'boolean'), true), record), undefined, 'nor a boolean');
  t.equal(conditionOnRecord(eq(ref('price', 'currency'), 1.5), record), undefined, 'nor a decimal');
  t.equal(conditionOnRecord(eq(ref('missing', 'text'), 'x'), record), undefined, 'nor a field the record does not hold');
  t.equal(conditionOnRecord(eq(ref('name', 'text'), 5), record), undefined, 'nor values of two kinds');
  t.equal(conditionOnRecord({ kind: 'compare', target: { kind: 'field', ref: ref('name', 'text') }, op: 'gt', operand: { kind: 'value', value: 'A' } }, record), undefined, 'nor text order (collations)');
  t.equal(conditionOnRecord({ kind: 'text', target: { kind: 'field', ref: ref('name', 'text') }, op: 'contains', value: 'li', negate: false }, record), undefined, 'nor text matching (case folding)');
  t.equal(conditionOnRecord({ kind: 'compare', target: { kind: 'field', ref: ref('name', 'text') }, op: 'ne', operand: { kind: 'value', value: null } }, record), undefined, 'nor a comparison with a bound NULL');
  const undecided = eq(ref('birthday', 'date'), 'x');
  t.equal(conditionOnRecord({ kind: 'and', items: [eq(ref('name', 'text'), 'Bob'), undecided] }, record), false, 'false AND anything is false');
  t.equal(conditionOnRecord({ kind: 'or', items: [eq(ref('name', 'text'), 'Alice'), undecided] }, record), true, 'true OR anything is true');
  t.equal(conditionOnRecord({ kind: 'or', items: [eq(ref('name', 'text'), 'Bob'), undecided] }, record), undefined, 'false OR undecided is undecided');
  t.equal(conditionOnRecord({ kind: 'not', item: undecided }, record), undefined, 'and so is its negation');
  t.equal(conditionOnRecord({ kind: 'in', target: { kind: 'field', ref: ref('id', 'text') }, values: ['c02', 'c01'], negate: false }, record), true, 'a share (the id among the shared ones) is decided');
  t.equal(conditionOnRecord({ kind: 'compare', target: { kind: 'field', ref: ref('score', 'number') }, op: 'gt', operand: { kind: 'value', value: 9 } }, record), true, 'number order is decided');
});

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const all = (await executeQuery(parseQuery({ orderBy: 'id', limit: 100 }, contact, registry), db.knex, { cursorKey: 'k', total: false })).items;
    t.equal(all.length, CONTACTS.length, 'every contact read as a system read shows it');
    const rnd = seededRandom(SEED);
    let decided = 0;
    let checked = 0;
    const wrong: string[] = [];
    for (let i = 0; i < CASES; i++) {
      const input = where(rnd, 0);
      let ast;
      try {
        ast = parseQuery({ where: input, orderBy: 'id', limit: 100 }, contact, registry);
      } catch {
        continue;
      }
      const matched = new Set((await executeQuery(ast, db.knex, { cursorKey: 'k', total: false })).items.map((r) => r.id));
      for (const record of all) {
        const said = conditionOnRecord(ast.where!, record);
        checked++;
        if (said === undefined) continue;
        decided++;
        if (said !== matched.has(record.id)) wrong.push(`${JSON.stringify(input)} on ${String(record.id)}: said ${said}, SQL ${!said}`);
      }
    }
    t.same(wrong.slice(0, 10), [], 'never a decision the SQL contradicts');
    t.ok(checked >= 1_000, `enough record and condition pairs checked (${checked})`);
    t.ok(decided / checked > 0.5, `most are decided (${decided} of ${checked})`);
  });
}
