/** Bad input through HTTP: each request gets a clear 4xx, and no table changes. */
import t from 'tap';
import type { InjectOptions } from 'fastify';
import type { Test } from 'tap';
import { onEachDriver, type Rest } from './restFixtures.ts';

const APPS = ['metadata/apps/crm', 'test/rest/fixtures/restricted'];
const TABLES = ['account', 'contact', 'opportunity', 'lead', 'task', 'audit_entry', 'hidden_note'];
/** Driver and server internals that no answer may show. */
const INTERNALS = ['SQLITE', 'sqlite', 'syntax error at', 'knex', 'node_modules', '    at ', 'relation "', 'stack'];

interface Case {
  name: string;
  request: { method: InjectOptions['method']; url: string; payload?: unknown; headers?: Record<string, string> };
  status: number;
  code: string;
  /** Text the message must hold. */
  message?: string;
  /** A subset of error.details. */
  details?: object;
  absent?: string[];
}

const json = { 'content-type': 'application/json' };
const api = '/api/v1/data';
const list = (object: string, params: Record<string, string>) => ({ method: 'GET' as const, url: `${api}/${object}?${new URLSearchParams(params).toString()}` });
const where = (object: string, condition: unknown) => list(object, { where: JSON.stringify(condition) });
const query = (object: string, payload: unknown) => ({ method: 'POST' as const, url: `${api}/${object}/query`, payload });
const post = (object: string, payload: unknown) => ({ method: 'POST' as const, url: `${api}/${object}`, payload });
const raw = (method: InjectOptions['method'], url: string, payload: string) => ({ method, url, payload, headers: json });
const errorsAt = (...paths: string[]) => ({ errors: paths.map((path) => ({ path })) });

function cases(ids: { account: string; task: string }): Case[] {
  const patch = (payload: unknown) => ({ method: 'PATCH' as const, url: `${api}/account/${ids.account}`, payload });
  const join = { type: 'left', object: 'account', as: 'a', on: 'account = a.id' };
  return [
    { name: 'unknown object', request: list('nope', {}), status: 404, code: 'NOT_FOUND', message: "Object 'nope' was not found." },
    { name: 'object name with SQL', request: { method: 'GET', url: `${api}/account;drop%20table%20account` }, status: 400, code: 'VALIDATION_ERROR', details: errorsAt('params/object') },
    { name: 'create on a get/list-only object: 405', request: post('audit_entry', { message: 'x' }), status: 405, code: 'METHOD_NOT_ALLOWED', details: { operation: 'create', allowed: ['get', 'list'] } },
    { name: 'aggregate on a get/list-only object: 405', request: query('audit_entry', { groupBy: ['message'], aggregations: [{ function: 'count', alias: 'n' }] }), status: 405, code: 'METHOD_NOT_ALLOWED', details: { operation: 'aggregate' } },
    { name: 'delete on a get/list-only object: 405', request: { method: 'DELETE', url: `${api}/audit_entry/x` }, status: 405, code: 'METHOD_NOT_ALLOWED', details: { operation: 'delete' } },

    { name: 'unknown field in where', request: where('account', { nope: 1 }), status: 400, code: 'VALIDATION_ERROR', message: "unknown field 'nope' on object 'account'", details: errorsAt('where.nope') },
    { name: 'unknown field in orderBy', request: list('account', { orderBy: '-nope' }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('orderBy') },
    { name: 'unknown field in select', request: list('account', { select: 'name,nope' }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('select[1]') },
    { name: 'unknown field in expand', request: list('contact', { expand: 'nope' }), status: 400, code: 'VALIDATION_ERROR', message: "cannot expand 'nope'" },
    { name: 'expand of a field that is no lookup', request: list('contact', { expand: 'email' }), status: 400, code: 'VALIDATION_ERROR', message: "'email' on object 'contact' is not a lookup field" },
    { name: 'unknown operator', request: where('account', { name: { $regex: '.*' } }), status: 400, code: 'VALIDATION_ERROR', message: "unknown operator '$regex'" },
    { name: 'unknown join alias', request: query('contact', { joins: [join], where: { 'zz.name': 'x' } }), status: 400, code: 'VALIDATION_ERROR', message: "no join alias 'zz'" },
    { name: 'unknown query key', request: list('account', { drop: 'table' }), status: 400, code: 'VALIDATION_ERROR', message: 'querystring/drop is not a list parameter; they are where, orderBy, limit, offset, cursor, select, expand' },
    { name: 'an enum names its values', request: post('account/import', { format: 'xml', csv: 'name' }), status: 400, code: 'VALIDATION_ERROR', message: 'body/format must be one of "csv", "json"' },
    { name: 'total asked for as a list parameter', request: list('account', { total: 'true' }), status: 400, code: 'VALIDATION_ERROR', message: 'querystring/total is not a list parameter; they are where, orderBy, limit, offset, cursor, select, expand and count (capped, exact, estimated, none, true, false): count=true adds total' },
    { name: 'groupBy on the list', request: list('account', { groupBy: '["industry"]' }), status: 400, code: 'VALIDATION_ERROR', message: 'querystring/groupBy is not a list parameter: send it in the body of POST /data/:object/query' },
    { name: 'aggregations, having, distinct, joins and fields on the list', request: list('account', { aggregations: '[]', having: '{}', distinct: 'true', joins: '[]', fields: 'name' }), status: 400, code: 'VALIDATION_ERROR', message: 'querystring/aggregations is not a list parameter' },

    { name: 'SQL in a where field name', request: where('account', { 'name; drop table account': 1 }), status: 400, code: 'VALIDATION_ERROR', message: 'unknown field' },
    { name: 'SQL in orderBy', request: list('account', { orderBy: 'name;drop table account' }), status: 400, code: 'VALIDATION_ERROR', message: "unknown field 'name;drop table account'" },
    { name: 'SQL in a sort node', request: query('account', { orderBy: [{ field: 'name', order: 'asc; drop table account' }] }), status: 400, code: 'VALIDATION_ERROR', message: "order must be 'asc' or 'desc'" },
    { name: 'SQL in select', request: list('account', { select: 'id,name from account--' }), status: 400, code: 'VALIDATION_ERROR', message: "unknown field 'name from account--'" },
    { name: 'quoted identifier in select', request: list('account', { select: '"name"' }), status: 400, code: 'VALIDATION_ERROR', message: 'unknown field' },
    { name: 'SQL in expand', request: list('contact', { expand: 'account);drop table account' }), status: 400, code: 'VALIDATION_ERROR', message: 'cannot expand' },
    { name: 'SQL in a join condition', request: query('contact', { joins: [{ ...join, on: 'account = a.id; drop table account' }] }), status: 400, code: 'VALIDATION_ERROR', message: "on must read '<field> = a.<field>'" },
    { name: 'SQL in a join alias', request: query('contact', { joins: [{ ...join, as: 'a; drop table account' }] }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('joins[0].as') },
    { name: 'SQL in an aggregation alias', request: query('account', { aggregations: [{ function: 'count', alias: 'n; drop table account' }] }), status: 400, code: 'VALIDATION_ERROR', message: 'alias must be an identifier' },
    { name: 'SQL in groupBy', request: query('account', { groupBy: ['name) from account; --'], aggregations: [{ function: 'count', alias: 'n' }] }), status: 400, code: 'VALIDATION_ERROR', message: 'unknown field' },
    { name: 'SQL as a record id', request: { method: 'GET', url: `${api}/account/${encodeURIComponent("1' or '1'='1")}` }, status: 404, code: 'NOT_FOUND' },

    { name: '$in with a string', request: where('account', { employees: { $in: '1,2' } }), status: 400, code: 'VALIDATION_ERROR', message: '$in takes an array of values', details: errorsAt('where.employees.$in') },
    { name: '$between with 3 items', request: where('account', { employees: { $between: [1, 2, 3] } }), status: 400, code: 'VALIDATION_ERROR', message: '$between takes an array of exactly two values' },
    { name: 'text for an integer field', request: where('account', { employees: { $gt: 'ten' } }), status: 400, code: 'VALIDATION_ERROR', message: "an integer field compares with a number, not 'ten'" },
    { name: 'a number for a date field', request: where('account', { customer_since: { $lt: 20240101 } }), status: 400, code: 'VALIDATION_ERROR', message: "compares with a date 'YYYY-MM-DD'" },
    { name: '$null with a string', request: where('account', { phone: { $null: 'yes' } }), status: 400, code: 'VALIDATION_ERROR', message: '$null takes true or false' },
    { name: '$or with an object', request: where('account', { $or: { name: 'x' } }), status: 400, code: 'VALIDATION_ERROR', message: '$or takes an array of conditions' },
    { name: 'where that is not JSON', request: list('account', { where: '{"name":' }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'where', message: 'is not valid JSON' }] } },
    { name: 'limit 0', request: list('account', { limit: '0' }), status: 400, code: 'VALIDATION_ERROR', message: 'limit must be a positive integer' },

    { name: 'malformed JSON on create', request: raw('POST', `${api}/account`, '{"name": '), status: 400, code: 'MALFORMED_JSON' },
    { name: 'malformed JSON on query', request: raw('POST', `${api}/account/query`, '{where:1}'), status: 400, code: 'MALFORMED_JSON' },
    { name: 'malformed JSON on update', request: raw('PATCH', `${api}/account/${ids.account}`, '{"name":"x"'), status: 400, code: 'MALFORMED_JSON' },
    { name: 'a JSON array to create', request: raw('POST', `${api}/account`, '[{"name":"x"}]'), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('body') },
    { name: 'a JSON array as query', request: raw('POST', `${api}/account/query`, '[]'), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('body') },
    { name: 'a JSON array as update', request: raw('PATCH', `${api}/account/${ids.account}`, '[{"name":"x"}]'), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('body') },
    { name: 'a JSON string to create', request: raw('POST', `${api}/account`, '"name"'), status: 400, code: 'VALIDATION_ERROR' },
    { name: 'a body in a type without a parser', request: { method: 'POST', url: `${api}/account`, payload: '<name>x</name>', headers: { 'content-type': 'application/xml' } }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', details: { contentType: 'application/xml' } },
    { name: 'PUT on a record: 405 listing the methods of the path', request: { method: 'PUT', url: `${api}/account/${ids.account}`, payload: { name: 'x' } }, status: 405, code: 'METHOD_NOT_ALLOWED', details: { method: 'PUT', allow: ['DELETE', 'GET', 'HEAD', 'PATCH'] } },
    { name: 'PUT below an unknown path stays 404', request: { method: 'PUT', url: `${api}/account/${ids.account}/nope`, payload: { name: 'x' } }, status: 404, code: 'ROUTE_NOT_FOUND' },
    { name: 'an object name with a broken percent-encoding', request: { method: 'GET', url: `${api}/acc%E0%A4%A` }, status: 400, code: 'MALFORMED_REQUEST' },
    { name: 'a record id over the parameter length', request: { method: 'GET', url: `${api}/account/${'x'.repeat(300)}` }, status: 414, code: 'URI_TOO_LONG', absent: ['xxxxxxxx'] },

    { name: 'unknown field on create', request: post('account', { name: 'x', nope: 1 }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'nope', message: 'is not a field of account' }] } },
    {
      name: 'wrong types on create: one entry per bad field',
      request: post('account', { name: 5, employees: 'many', active: 'yes', website: 'ftp://x', customer_since: '2024-02-30', annual_revenue: 1e20, description: 'a\u0000b' }),
      status: 400, code: 'VALIDATION_ERROR', details: errorsAt('name', 'employees', 'active', 'website', 'customer_since', 'annual_revenue', 'description'),
    },
    { name: 'a whole number field given a fraction', request: post('account', { name: 'x', employees: 1.5 }), status: 400, code: 'VALIDATION_ERROR', message: 'employees must be a whole number' },
    { name: 'a date-time in year 0', request: post('task', { subject: 'x', status: 'done', completed_at: '0000-01-01T00:00:00Z' }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('completed_at') },
    {
      name: 'system fields in a create body', request: post('account', { name: 'x', id: 'mine', version: 7, owner_id: 'me', created_at: '2020-01-01T00:00:00Z' }),
      status: 400, code: 'VALIDATION_ERROR', message: 'id is set by the server and cannot be written', details: errorsAt('id', 'version', 'owner_id', 'created_at'),
    },
    { name: 'autonumber and read-only fields written', request: post('lead', { last_name: 'x', company: 'y', lead_number: 'LEAD-9999', converted_account: ids.account }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'lead_number', message: 'is read-only' }, { path: 'converted_account', message: 'is read-only' }] } },
    { name: 'formula fields written', request: post('opportunity', { name: 'x', account: ids.account, close_date: '2030-01-01', expected_revenue: 1, days_to_close: 2 }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('expected_revenue', 'days_to_close') },
    { name: 'required fields missing', request: post('lead', { first_name: 'x' }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'last_name', message: 'is required' }, { path: 'company', message: 'is required' }] } },
    { name: 'a lookup to a missing record', request: post('contact', { last_name: 'x', phone: '+1 555 0100', account: 'missing-id' }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'account', message: "no account record has id 'missing-id'" }] } },
    { name: 'a lookup to a record of another object', request: post('contact', { last_name: 'x', phone: '+1 555 0100', account: ids.task }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('account') },
    { name: 'a validation rule violated on create', request: post('account', { name: 'x', type: 'customer' }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'phone', message: 'A customer account needs a phone number.' }] } },
    { name: 'a validation rule violated on update', request: patch({ type: 'customer' }), status: 400, code: 'VALIDATION_ERROR', message: 'A customer account needs a phone number.' },
    { name: 'unknown field and system field on update', request: patch({ nope: 1, version: 9 }), status: 400, code: 'VALIDATION_ERROR', details: errorsAt('nope', 'version') },
    { name: 'clearing a required field', request: patch({ name: null }), status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'name', message: 'is required' }] } },
    { name: 'update of an unknown id', request: { method: 'PATCH', url: `${api}/account/no-such-id`, payload: { name: 'x' } }, status: 404, code: 'NOT_FOUND' },
  ];
}

async function snapshotAll(rest: Rest): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const table of TABLES) out[table] = await rest.snapshot(table);
  return out;
}

async function check(t: Test, rest: Rest, c: Case): Promise<void> {
  const before = await snapshotAll(rest);
  const res = await rest.send(c.request.method, c.request.url, c.request.payload, c.request.headers);
  t.equal(res.status, c.status, `status ${c.status}`);
  t.same(Object.keys(res.body ?? {}), ['error'], 'the error envelope');
  t.equal(res.body?.error?.code, c.code, c.code);
  if (c.message) t.match(res.body?.error?.message, c.message, 'message');
  if (c.details) t.match(res.body?.error?.details, c.details, 'details');
  for (const text of [...INTERNALS, ...(c.absent ?? [])]) t.notOk(JSON.stringify(res.body).includes(text), `no ${JSON.stringify(text)}`);
  t.same(await snapshotAll(rest), before, 'every table unchanged');
}

await onEachDriver(t, 'rest-bad-input', async (t, rest) => {
  const account = await rest.create('account', { name: 'Acme' });
  await rest.create('contact', { last_name: 'Doe', email: 'doe@acme.test', account: account.id });
  await rest.create('lead', { last_name: 'Lee', company: 'Lee Co' });
  const task = await rest.create('task', { subject: 'Call' });

  for (const c of cases({ account: String(account.id), task: String(task.id) })) {
    await t.test(c.name, (t) => check(t, rest, c));
  }

  await t.test('an object with apiEnabled false answers exactly like an unknown one, on every route', async (t) => {
    const routes: Array<[InjectOptions['method'], string, unknown?]> = [
      ['GET', ''], ['GET', '/some-id'], ['POST', '', { secret_body: 'x' }], ['POST', '/query', {}], ['PATCH', '/some-id', { secret_body: 'x' }], ['DELETE', '/some-id'],
    ];
    for (const [method, suffix, payload] of routes) {
      const hidden = await rest.send(method, `${api}/hidden_note${suffix}`, payload);
      const unknown = await rest.send(method, `${api}/absent_note${suffix}`, payload);
      t.equal(hidden.status, 404, `${method} ${suffix || '/'}: 404`);
      t.same(JSON.parse(JSON.stringify(hidden.body).replaceAll('hidden_note', 'absent_note')), unknown.body, `${method} ${suffix || '/'}: same body as an unknown object`);
      t.notOk(JSON.stringify(hidden.body).includes('secret_body') || JSON.stringify(hidden.body).includes('Hidden note'), 'nothing of its declaration shows');
    }
    const allowed = await rest.send('GET', `${api}/audit_entry`);
    t.same([allowed.status, allowed.body.items], [200, []], 'a get/list-only object still lists');
  });

  await t.test('a batch reaches only the objects and methods the API serves', async (t) => {
    const before = await snapshotAll(rest);
    const hidden = await rest.send('POST', '/api/v1/batch', { operations: [{ id: 'h', method: 'POST', object: 'hidden_note', body: { secret_body: 'BATCHED' } }] });
    const unknown = await rest.send('POST', '/api/v1/batch', { operations: [{ id: 'h', method: 'POST', object: 'absent_note', body: { secret_body: 'BATCHED' } }] });
    t.same([hidden.status, hidden.body?.error?.code, hidden.body?.error?.details?.operation], [404, 'NOT_FOUND', 'h'], 'an object with apiEnabled false: 404 naming the operation');
    t.same(JSON.parse(JSON.stringify(hidden.body).replaceAll('hidden_note', 'absent_note')), unknown.body, 'the same body as an unknown object');
    const listOnly = await rest.send('POST', '/api/v1/batch', { operations: [{ id: 'a', method: 'POST', object: 'audit_entry', body: { message: 'BATCHED' } }] });
    t.same([listOnly.status, listOnly.body?.error?.code, listOnly.body?.error?.details?.operation], [405, 'METHOD_NOT_ALLOWED', 'a'], `a method the object does not serve: 405 naming the operation (${JSON.stringify(listOnly.body).slice(0, 200)})`);
    t.same(await snapshotAll(rest), before, 'every table unchanged');
  });

  await t.test('a hidden object cannot be reached through a join or an expand', async (t) => {
    const system = { environmentId: rest.environments[0]!, principal: null, system: true };
    const note = await rest.engine().create('hidden_note', { secret_body: 'Acme' }, system);
    await rest.engine().create('audit_entry', { message: 'seen', note: note.id }, system);
    const joinTo = (object: string) => query('account', { joins: [{ type: 'left', object, as: 'h', on: 'name = h.secret_body' }] });
    const hidden = await rest.send('POST', joinTo('hidden_note').url, joinTo('hidden_note').payload);
    const unknown = await rest.send('POST', joinTo('absent_note').url, joinTo('absent_note').payload);
    t.equal(hidden.status, 400, 'join: 400');
    t.same(JSON.parse(JSON.stringify(hidden.body).replaceAll('hidden_note', 'absent_note')), unknown.body, 'join: same answer as an unknown object');
    const expanded = await rest.send('GET', list('audit_entry', { expand: 'note' }).url);
    t.equal(expanded.status, 400, 'expand of a lookup into it: 400');
    t.match(expanded.body.error.message, "the object 'hidden_note' referenced by 'note' is unknown", 'as if it did not exist');
    t.notOk(JSON.stringify([hidden.body, expanded.body]).includes('Acme'), 'no value of it shows');
    const plain = await rest.send('GET', list('audit_entry', {}).url);
    t.equal(plain.body.items[0]?.note, note.id, 'the lookup id itself is an ordinary value');
  });

  // Values a driver would refuse or read differently are refused by the parser, the same on both drivers.
  const odd: Array<[string, unknown, string]> = [
    ['a fraction for an integer field', { employees: { $gt: 1.5 } }, 'whole number'],
    ['a huge number for an integer field', { employees: { $in: [1e300] } }, 'whole number'],
    ['a NUL character in text', { name: 'a\u0000b' }, 'NUL'],
    ['a NUL character in $contains', { name: { $contains: '\u0000' } }, 'NUL'],
    ['year 0000 in a date-time', { updated_at: { $gt: '0000-01-01T00:00:00Z' } }, '0001 to 9999'],
  ];
  for (const [name, condition, words] of odd) {
    await t.test(`odd operand: ${name}`, async (t) => {
      const before = await snapshotAll(rest);
      const res = await rest.send('GET', where('account', condition).url);
      t.equal(res.status, 400, '400');
      t.equal(res.body.error.code, 'VALIDATION_ERROR', 'VALIDATION_ERROR');
      t.match(JSON.stringify(res.body.error.details), words, 'says what is wrong');
      t.same(await snapshotAll(rest), before, 'every table unchanged');
    });
  }
}, { apps: APPS });
