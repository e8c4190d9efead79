/**
 * Crafted input over a size limit (queryLimits.ts) answers 400 VALIDATION_ERROR naming the limit,
 * on the list query string, the structured query and write bodies, on both drivers; never a 500.
 */
import t from 'tap';
import { onEachDriver, type Rest } from './restFixtures.ts';

const api = '/api/v1/data';
const json = { 'content-type': 'application/json' };
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const names = (n: number) => many(n, () => 'name').join(',');

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  payload?: unknown;
  /** The limit named by the first entry of details.errors, and its value. */
  limit: string;
  max: number;
  /** Text the message must hold. */
  message: string;
}

function cases(account: string, sample: string): Case[] {
  const list = (params: Record<string, string>) => `${api}/account?${new URLSearchParams(params).toString()}`;
  const query = (payload: unknown, object = 'account') => ({ method: 'POST' as const, url: `${api}/${object}/query`, payload });
  const or = (n: number) => ({ $or: many(n, (i) => ({ name: `x${i}` })) });
  return [
    { name: 'a json field nested 200 deep on create', method: 'POST', url: `${api}/sample`, payload: `{"payload": ${deepArray(200)}}`, limit: 'jsonDepth', max: 64, message: 'payload must nest at most 64 levels' },
    { name: 'a json field nested 100,000 deep on create', method: 'POST', url: `${api}/sample`, payload: `{"payload": ${deepArray(100_000)}}`, limit: 'bodyDepth', max: 256, message: 'body nests more than 256 levels' },
    { name: 'a json field nested 65 deep on update', method: 'PATCH', url: `${api}/sample/${sample}`, payload: `{"payload": ${deepArray(65)}}`, limit: 'jsonDepth', max: 64, message: 'at most 64 levels' },
    { name: '5,000 aggregations', ...query({ aggregations: many(5000, (i) => ({ function: 'count', alias: `n${i}` })) }), limit: 'aggregations', max: 50, message: 'at most 50 aggregations, not 5000' },
    { name: '$or with 20,000 branches (POST)', ...query({ where: or(20_000) }), limit: 'conditionBranches', max: 200, message: '$or takes at most 200 conditions' },
    { name: '$or with 20,000 branches (GET)', method: 'GET', url: list({ where: JSON.stringify(or(20_000)) }), limit: 'conditionBranches', max: 200, message: '$or takes at most 200 conditions' },
    { name: '$and with 20,000 branches', ...query({ where: { $and: many(20_000, (i) => ({ name: { $ne: `x${i}` } })) } }), limit: 'conditionBranches', max: 200, message: '$and takes at most 200' },
    { name: 'having $or with 20,000 branches', ...query({ groupBy: ['name'], aggregations: [{ function: 'count', alias: 'n' }], having: or(20_000) }), limit: 'conditionBranches', max: 200, message: '$or takes at most 200' },
    { name: 'a condition of 600 tests in 3 branches', ...query({ where: { $or: many(3, () => ({ $and: many(200, (i) => ({ employees: { $ne: i } })) })) } }), limit: 'conditionNodes', max: 500, message: 'at most 500 tests' },
    { name: 'a condition nested 200 deep', ...query(`{"where": ${'{"$not":'.repeat(200)}{}${'}'.repeat(200)}}`), limit: 'conditionDepth', max: 64, message: 'at most 64 levels' },
    { name: 'a condition nested 100,000 deep', ...query(`{"where": ${'{"$not":'.repeat(100_000)}{}${'}'.repeat(100_000)}}`), limit: 'bodyDepth', max: 256, message: 'body nests more than 256 levels' },
    { name: 'a condition nested 100,000 deep (GET)', method: 'GET', url: list({ where: `${'{"$not":'.repeat(100_000)}{}${'}'.repeat(100_000)}` }), limit: 'bodyDepth', max: 256, message: 'where: nests more than 256 levels' },
    { name: '40 $in lists of 1000 values', ...query({ where: { $or: many(40, () => ({ name: { $in: many(1000, (i) => `x${i}`) } })) } }), limit: 'conditionValues', max: 5000, message: 'at most 5000 values' },
    { name: '$in with 1001 values (GET)', method: 'GET', url: list({ where: JSON.stringify({ name: { $in: many(1001, (i) => `x${i}`) } }) }), limit: 'inValues', max: 1000, message: '$in takes at most 1000 values' },
    { name: 'a 20,000-character $eq operand', ...query({ where: { name: 'x'.repeat(20_000) } }), limit: 'operandLength', max: 10_000, message: 'at most 10000 characters' },
    { name: 'a 20,000-character $in value', ...query({ where: { name: { $in: ['a', 'x'.repeat(20_000)] } } }), limit: 'operandLength', max: 10_000, message: 'at most 10000 characters' },
    { name: 'a 900,000-character $contains operand', ...query({ where: { name: { $contains: 'x'.repeat(900_000) } } }), limit: 'patternLength', max: 1000, message: '$contains takes a text of at most 1000 characters' },
    { name: 'a 5,000-character $startsWith operand (GET)', method: 'GET', url: list({ where: JSON.stringify({ name: { $startsWith: 'x'.repeat(5000) } }) }), limit: 'patternLength', max: 1000, message: 'at most 1000 characters' },
    { name: '5,000 groupBy keys', ...query({ groupBy: many(5000, () => 'name'), aggregations: [{ function: 'count', alias: 'n' }] }), limit: 'groupBy', max: 20, message: 'groupBy takes at most 20 keys' },
    { name: '20,000 orderBy keys (POST)', ...query({ orderBy: many(20_000, () => 'name') }), limit: 'orderBy', max: 20, message: 'orderBy takes at most 20 sort keys' },
    { name: '20,000 orderBy keys (GET)', method: 'GET', url: list({ orderBy: names(20_000) }), limit: 'orderBy', max: 20, message: 'orderBy takes at most 20 sort keys' },
    { name: '20,000 fields (POST)', ...query({ fields: many(20_000, () => 'name') }), limit: 'fields', max: 500, message: 'fields takes at most 500 names' },
    { name: '20,000 select names (GET)', method: 'GET', url: list({ select: names(20_000) }), limit: 'fields', max: 500, message: 'select takes at most 500 names' },
    { name: '20,000 expand paths (POST)', ...query({ expand: many(20_000, () => 'account') }, 'contact'), limit: 'expandPaths', max: 50, message: 'expand takes at most 50 names' },
    { name: 'an expand path 5 levels deep (GET by id)', method: 'GET', url: `${api}/account/${account}?expand=parent_account.parent_account.parent_account.parent_account.parent_account`, limit: 'expandDepth', max: 4, message: 'at most 4 levels deep' },
  ];
}

t.test('crafted queries and bodies over a size limit answer 400 naming the limit', async (t) => {
  await onEachDriver(t, 'limits', async (t, rest: Rest) => {
    const account = await rest.create('account', { name: 'Acme' });
    const sample = await rest.create('sample', { title: 'one', payload: { a: [1, 2] } });
    for (const c of cases(String(account.id), String(sample.id))) {
      const res = await rest.send(c.method, c.url, c.payload, typeof c.payload === 'string' ? json : {});
      t.equal(res.status, 400, `${c.name}: status`);
      t.equal(res.body?.error?.code, 'VALIDATION_ERROR', `${c.name}: code`);
      t.match(res.body?.error?.message, c.message, `${c.name}: message`);
      const first = res.body?.error?.details?.errors?.[0];
      t.same({ limit: first?.limit, max: first?.max }, { limit: c.limit, max: c.max }, `${c.name}: details name the limit`);
    }
    // Within the limits the same shapes are answered.
    const within = await rest.send('POST', `${api}/account/query`, { where: { $or: many(200, (i) => ({ name: `x${i}` })) }, aggregations: many(50, (i) => ({ function: 'count', alias: `n${i}` })) });
    t.equal(within.status, 200, '200 branches and 50 aggregations are answered');
    t.equal(within.body.items[0].n49, 0, 'the 50th aggregation counts');
    const deep = JSON.parse(deepArray(64)) as unknown;
    const stored = await rest.send('PATCH', `${api}/sample/${String(sample.id)}`, { payload: deep });
    t.equal(stored.status, 200, 'a json value 64 levels deep is stored');
    t.same(stored.body.payload, deep, 'and read back whole');
  }, { apps: ['metadata/apps/crm', 'test/rest/fixtures/limits'] });
});
