import t from 'tap';
import { narrowScope } from '../../plugins/data/query/narrowScope.ts';
import type { Condition, FieldRef } from '../../plugins/data/query/types.ts';

const ref = (column: string, type: FieldRef['type'] = 'select', alias: string | null = null): FieldRef => ({ alias, object: 'doc', name: column, column, type, seqColumn: null });
const eq = (column: string, value: unknown, type?: FieldRef['type'], alias?: string | null): Condition => ({ kind: 'compare', target: { kind: 'field', ref: ref(column, type, alias) }, op: 'eq', operand: { kind: 'value', value } });
const isIn = (column: string, values: unknown[], negate = false, type?: FieldRef['type']): Condition => ({ kind: 'in', target: { kind: 'field', ref: ref(column, type) }, values, negate });
const or = (...items: Condition[]): Condition => ({ kind: 'or', items });
const and = (...items: Condition[]): Condition => ({ kind: 'and', items });
const FALSE: Condition = { kind: 'or', items: [] };

const owner = eq('owner_id', 'u1', 'text');
const policy = isIn('status', ['open', 'active']);
const scope = or(owner, policy);

const CASES: Array<{ name: string; where: Condition | null; scope?: Condition; expect: Condition | null }> = [
  { name: 'no where: the scope as it is', where: null, expect: scope },
  { name: 'a fact inside the policy list opens every row the query can return', where: eq('status', 'open'), expect: null },
  { name: 'a fact outside the list leaves the owner test', where: eq('status', 'closed'), expect: or(owner) },
  { name: 'facts of a conjunction count', where: and(eq('name', 'x', 'text'), eq('status', 'closed')), expect: or(owner) },
  { name: 'nothing left: no row at all', where: eq('status', 'closed'), scope: or(policy), expect: FALSE },
  { name: 'an owner fact decides the owner test', where: eq('owner_id', 'u1', 'text'), expect: null },
  { name: "another owner's fact drops the owner test only", where: eq('owner_id', 'u2', 'text'), expect: or(policy) },
  { name: 'a negated list is left alone', where: eq('status', 'open'), scope: or(owner, isIn('status', ['open'], true)), expect: or(owner, isIn('status', ['open'], true)) },
  { name: 'a fact under OR is no fact', where: or(eq('status', 'open'), eq('name', 'x', 'text')), expect: scope },
  { name: 'a fact under NOT is no fact', where: { kind: 'not', item: eq('status', 'open') }, expect: scope },
  { name: "a joined alias's field is no fact about the object", where: eq('status', 'open', 'select', 'a'), expect: scope },
  { name: 'inexact types are left alone (datetime)', where: eq('due', '2026-01-01T00:00:00Z', 'datetime'), scope: or(owner, eq('due', '2026-01-01T00:00:00.000Z', 'datetime')), expect: or(owner, eq('due', '2026-01-01T00:00:00.000Z', 'datetime')) },
  { name: 'a field compared with another field is left alone', where: eq('status', 'open'), scope: or({ kind: 'compare', target: { kind: 'field', ref: ref('status') }, op: 'eq', operand: { kind: 'field', ref: ref('region') } }), expect: or({ kind: 'compare', target: { kind: 'field', ref: ref('status') }, op: 'eq', operand: { kind: 'field', ref: ref('region') } }) },
  { name: 'nested AND inside the scope', where: eq('status', 'open'), scope: or(owner, and(policy, eq('region', 'EU', 'text'))), expect: or(owner, and(eq('region', 'EU', 'text'))) },
];

for (const c of CASES) {
  t.same(narrowScope(c.scope ?? scope, c.where), c.expect, c.name);
}
t.equal(narrowScope(scope, eq('name', 'x', 'text')), scope, 'an unrelated fact returns the very same scope (its compiled SQL is reused)');
