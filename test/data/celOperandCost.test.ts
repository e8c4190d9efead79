/** The query parser refuses a `{$cel}` operand over the CEL cost bound as QUERY_TOO_COSTLY, naming where it is. */
import t from 'tap';
import { CEL_LIMITS } from '../../metadata/cel/celLimits.ts';
import { loadApps } from '../../metadata/loadApps.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';

const { objects } = await loadApps(['test/data/fixtures/celcost-app']);
const gauge = objects.get('gauge')!;
const registry = { get: (name: string) => objects.get(name) };
const BACKTRACKING = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a|a)+$') ? 'x' : 'y'";
const TEN = '[0,1,2,3,4,5,6,7,8,9]';
/** Eight comprehensions over ten-element lists: 10^8 steps by the estimate, refused before it runs. */
const EIGHT_NESTED = `${[...'abcdefgh'].reduceRight((body, v) => `${TEN}.all(${v}, ${body})`, 'a+b+c+d+e+f+g+h < 10000000')} ? 'x' : 'y'`;

t.test('a costly operand is QUERY_TOO_COSTLY at its path, wherever it is', async (t) => {
  for (const [where, path] of [
    [{ csv: { $cel: BACKTRACKING } }, 'where.csv.$cel'],
    [{ $or: [{ csv: 'a' }, { $not: { csv: { $ne: { $cel: BACKTRACKING } } } }] }, 'where.$or[1].$not.csv.$ne.$cel'],
  ] as const) {
    t.throws(() => parseQuery({ where }, gauge, registry), { code: 'QUERY_TOO_COSTLY', status: 400, details: { path, limit: 'celPattern' } }, path);
  }
});

t.test('an operand over the estimated cost is refused at parse time, naming the estimate', async (t) => {
  // The evaluation deadline would stop it too; the refusal must come from the estimate, before it runs.
  t.throws(() => parseQuery({ where: { csv: { $cel: EIGHT_NESTED } } }, gauge, registry), {
    code: 'QUERY_TOO_COSTLY', status: 400,
    details: { path: 'where.csv.$cel', limit: 'celCost', max: CEL_LIMITS.maxCost, reason: /estimated cost is [0-9,]+ steps and at most 100,000 are allowed/ },
  });
});

t.test('an operand that is merely wrong stays a VALIDATION_ERROR among the query\'s mistakes', async (t) => {
  t.throws(() => parseQuery({ where: { csv: { $cel: "'a'.matches('(')" }, nope: 1 } }, gauge, registry), {
    code: 'VALIDATION_ERROR', details: { errors: [{ path: 'where.csv.$cel', message: /invalid regular expression/ }, { path: 'where.nope' }] },
  });
});
