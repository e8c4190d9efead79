/** Environments through HTTP: each has its own data, chosen by X-Environment-Id or the path prefix. */
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { onEachDriver, type Rest } from './restFixtures.ts';

interface Visit {
  name: string;
  method: 'GET' | 'PATCH' | 'DELETE' | 'POST';
  url: string;
  headers?: Record<string, string>;
  payload?: unknown;
  status: number;
  code?: string;
}

await onEachDriver(t, 'rest-environments', async (t, rest: Rest) => {
  const [a, b] = rest.environments as [string, string];
  const inA = { 'x-environment-id': a };
  const inB = { 'x-environment-id': b };
  const prefix = (env: string) => `/api/v1/environments/${env}/data`;

  await t.test('each environment has its own database', async (t) => {
    const envs = rest.rt.runtime.config.environments;
    t.same(envs.map((e) => e.id), [a, b], 'both configured');
    const where = envs.map((e) => `${e.databaseUrl}#${String(e.schema)}`);
    t.equal(new Set(where).size, 2, 'two databases or schemas');
    if (rest.driver === 'postgres') t.same(envs.map((e) => e.schema), [`env_${a.replace(/-/g, '_')}`, `env_${b.replace(/-/g, '_')}`], 'schemas env_<id>');
    else t.ok(envs.every((e) => e.databaseUrl.endsWith(`${e.id}.db`)), 'one SQLite file per environment');
  });

  const secret = await rest.create('account', { name: 'Only in A' }, inA);
  const id = String(secret.id);

  await t.test('a record created in A is invisible from B', async (t) => {
    const visits: Visit[] = [
      { name: 'A by header: get', method: 'GET', url: `/api/v1/data/account/${id}`, headers: inA, status: 200 },
      { name: 'A by path: get', method: 'GET', url: `${prefix(a)}/account/${id}`, status: 200 },
      { name: 'A as the default environment', method: 'GET', url: `/api/v1/data/account/${id}`, status: 200 },
      { name: 'B by header: get', method: 'GET', url: `/api/v1/data/account/${id}`, headers: inB, status: 404, code: 'NOT_FOUND' },
      { name: 'B by path: get', method: 'GET', url: `${prefix(b)}/account/${id}`, status: 404, code: 'NOT_FOUND' },
      { name: 'the path wins over the header', method: 'GET', url: `${prefix(b)}/account/${id}`, headers: inA, status: 404, code: 'NOT_FOUND' },
      { name: 'B by header: update', method: 'PATCH', url: `/api/v1/data/account/${id}`, headers: inB, payload: { name: 'hijacked' }, status: 404, code: 'NOT_FOUND' },
      { name: 'B by path: delete', method: 'DELETE', url: `${prefix(b)}/account/${id}`, status: 404, code: 'NOT_FOUND' },
      { name: 'B: a lookup to it is refused', method: 'POST', url: `${prefix(b)}/contact`, payload: { last_name: 'x', phone: '+1 555 0100', account: id }, status: 400, code: 'VALIDATION_ERROR' },
      { name: 'B: converting onto it is refused', method: 'POST', url: `${prefix(b)}/lead/${id}/convert`, payload: { accountId: id }, status: 404, code: 'NOT_FOUND' },
    ];
    for (const v of visits) {
      const res = await rest.send(v.method, v.url, v.payload, v.headers);
      t.equal(res.status, v.status, `${v.name}: ${v.status}`);
      if (v.code) t.equal(res.body.error.code, v.code, `${v.name}: ${v.code}`);
      if (v.status >= 400) t.notOk(JSON.stringify(res.body).includes('Only in A'), `${v.name}: no trace of the record`);
    }
    for (const [name, url, headers] of [['header', '/api/v1/data/account', inB], ['path', `${prefix(b)}/account`, {}]] as const) {
      const res = await rest.send('GET', url, undefined, headers);
      t.same([res.status, res.body.items, res.body.total], [200, [], 0], `B's list by ${name} is empty`);
    }
    const kept = await rest.send('GET', `/api/v1/data/account/${id}`, undefined, inA);
    t.same([kept.body.name, kept.body.version], ['Only in A', 1], 'the record in A is untouched');
    t.equal((await rest.snapshot('contact', b)).count, 0, 'no contact was written in B');
  });

  await t.test('B writes to its own database; autonumbers count per environment', async (t) => {
    const leadA = await rest.create('lead', { last_name: 'A', company: 'A Co' }, inA);
    const created = await rest.send('POST', `${prefix(b)}/lead`, { last_name: 'B', company: 'B Co' });
    t.equal(created.status, 201, 'created in B');
    const leadB = created.body as DataRecord;
    t.same([leadA.lead_number, leadB.lead_number], ['LEAD-0001', 'LEAD-0001'], 'each environment numbers from 1');
    const listA = await rest.send('GET', '/api/v1/data/lead', undefined, inA);
    t.same(listA.body.items.map((r: DataRecord) => r.id), [leadA.id], 'A sees only its lead');
    const listB = await rest.send('GET', '/api/v1/data/lead', undefined, inB);
    t.same(listB.body.items.map((r: DataRecord) => r.id), [leadB.id], 'B sees only its lead');
  });

  await t.test('a cursor from A is refused in B', async (t) => {
    for (const name of ['one', 'two', 'three']) await rest.create('task', { subject: name }, inA);
    await rest.create('task', { subject: 'b-task' }, inB);
    const page = await rest.send('GET', '/api/v1/data/task?limit=1&orderBy=subject', undefined, inA);
    t.type(page.body.nextCursor, 'string', 'A gives a cursor');
    const res = await rest.send('GET', `/api/v1/data/task?limit=1&orderBy=subject&cursor=${String(page.body.nextCursor)}`, undefined, inB);
    t.same([res.status, res.body.error?.code], [400, 'BAD_CURSOR'], '400 BAD_CURSOR in B');
    const same = await rest.send('GET', `/api/v1/data/task?limit=1&orderBy=subject&cursor=${String(page.body.nextCursor)}`, undefined, inA);
    t.equal(same.status, 200, 'still valid in A');
  });

  await t.test('an unknown environment is a 404 and writes nothing anywhere', async (t) => {
    const before = [await rest.snapshot('account', a), await rest.snapshot('account', b)];
    const visits: Visit[] = [
      { name: 'header, list', method: 'GET', url: '/api/v1/data/account', headers: { 'x-environment-id': 'nowhere' }, status: 404 },
      { name: 'path, list', method: 'GET', url: '/api/v1/environments/nowhere/data/account', status: 404 },
      { name: 'header, create', method: 'POST', url: '/api/v1/data/account', headers: { 'x-environment-id': 'nowhere' }, payload: { name: 'lost' }, status: 404 },
      { name: 'path, create', method: 'POST', url: '/api/v1/environments/nowhere/data/account', payload: { name: 'lost' }, status: 404 },
      { name: 'path, traversal', method: 'GET', url: `/api/v1/environments/..%2F${a}/data/account`, status: 404 },
    ];
    for (const v of visits) {
      const res = await rest.send(v.method, v.url, v.payload, v.headers);
      t.equal(res.status, 404, `${v.name}: 404`);
      t.equal(res.body.error.code, 'NOT_FOUND', `${v.name}: NOT_FOUND`);
      t.match(res.body.error.message, /^Environment '.*' was not found\.$/, `${v.name}: names the environment`);
    }
    t.same([await rest.snapshot('account', a), await rest.snapshot('account', b)], before, 'no account written in A or B');
  });
}, { environments: ['a', 'b'] });
