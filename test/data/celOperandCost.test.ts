/** The query parser refuses a `{$cel}` operand over the CEL cost bound as QUERY_TOO_COSTLY, naming where it is. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';

const { objects } = await loadApps(['test/data/fixtures/celcost-app']);
const gauge = objects.get('gauge')!;
const registry = { get: (name: string) => objects.get(name) };
const BACKTRACKING = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a|a)+$') ? 'x' : 'y'";

t.test('a costly operand is QUERY_TOO_COSTLY at its path, wherever it is', async (t) => {
  for (const [where, path] of [
    [{ csv: { $cel: BACKTRACKING } }, 'where.csv.$cel'],
    [{ $or: [{ csv: 'a' }, { $not: { csv: { $ne: { $cel: BACKTRACKING } } } }] }, 'where.$or[1].$not.csv.$ne.$cel'],
  ] as const) {
    t.throws(() => parseQuery({ where }, gauge, registry), { code: 'QUERY_TOO_COSTLY', status: 400, details: { path, limit: 'celPattern' } }, path);
  }
});

t.test('an operand that is merely wrong stays a VALIDATION_ERROR among the query\'s mistakes', async (t) => {
  t.throws(() => parseQuery({ where: { csv: { $cel: "'a'.matches('(')" }, nope: 1 } }, gauge, registry), {
    code: 'VALIDATION_ERROR', details: { errors: [{ path: 'where.csv.$cel', message: /invalid regular expression/ }, { path: 'where.nope' }] },
  });
});
