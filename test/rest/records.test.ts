/** The record routes and lead conversion through HTTP, on each driver. */
import t from 'tap';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { onEachDriver, type Rest } from './restFixtures.ts';

const api = '/api/v1/data';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function counts(rest: Rest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const object of ['account', 'contact', 'opportunity', 'lead']) {
    const s = await rest.snapshot(object);
    out[object] = `${s.count}:${s.checksum}`;
  }
  return out;
}

await onEachDriver(t, 'rest-records', async (t, rest) => {
  await t.test('create: 201, id, version 1, timestamps, defaults, autonumbers in sequence', async (t) => {
    const first = await rest.send('POST', `${api}/lead`, { last_name: 'Ada', company: 'Engines Ltd' });
    t.equal(first.status, 201, '201');
    t.match(first.body.id, /^[0-9a-f-]{36}$/, 'a server-made id');
    t.equal(first.body.version, 1, 'version 1');
    t.equal(first.headers.etag, '"1"', 'ETag of the version');
    t.match(first.body.created_at, ISO, 'created_at is an ISO time');
    t.equal(first.body.updated_at, first.body.created_at, 'updated_at equals created_at');
    t.equal(first.body.status, 'new', 'default status applied');
    t.equal(first.body.lead_number, 'LEAD-0001', 'first autonumber');
    const second = await rest.create('lead', { last_name: 'Grace', company: 'Compilers Inc' });
    t.equal(second.lead_number, 'LEAD-0002', 'second autonumber');
    t.equal((await rest.send('DELETE', `${api}/lead/${String(second.id)}`)).status, 204, 'deleted');
    t.equal((await rest.create('lead', { last_name: 'Linus', company: 'Kernels' })).lead_number, 'LEAD-0003', 'numbers are never reused');
  });

  const acme = await rest.create('account', { name: 'Acme', industry: 'technology' });
  const jane = await rest.create('contact', { last_name: 'Doe', first_name: 'Jane', email: 'jane@acme.test', account: acme.id });
  const deal = await rest.create('opportunity', { name: 'Big deal', account: acme.id, contact: jane.id, amount: 1000, probability: 25, close_date: '2030-06-30' });

  await t.test('formulas are computed on read', async (t) => {
    t.equal(deal.expected_revenue, 250, 'amount x probability / 100 in the create response');
    t.equal(deal.stage, 'prospecting', 'default stage');
    const patched = await rest.send('PATCH', `${api}/opportunity/${String(deal.id)}`, { probability: 50 });
    t.equal(patched.body.expected_revenue, 500, 'recomputed after an update');
    const only = await rest.send('GET', `${api}/opportunity/${String(deal.id)}?select=expected_revenue`);
    t.same(only.body, { id: deal.id, expected_revenue: 500 }, 'selected alone, still computed from the whole record');
  });

  await t.test('GET by id with select and expand; nested expand through the list', async (t) => {
    const one = await rest.send('GET', `${api}/contact/${String(jane.id)}?select=last_name,email&expand=account`);
    t.equal(one.status, 200, '200');
    t.same(Object.keys(one.body).sort(), ['account', 'email', 'id', 'last_name'], 'only the selected fields, the id and the expanded lookup');
    t.hasStrict(one.body.account, { id: acme.id, name: 'Acme', industry: 'technology' }, 'the account is expanded');
    const list = await rest.send('GET', `${api}/opportunity?select=name&expand=contact.account`);
    t.hasStrict(list.body.items[0], { name: 'Big deal', contact: { id: jane.id, last_name: 'Doe', account: { id: acme.id, name: 'Acme' } } }, 'contact and its account');
  });

  await t.test('PATCH answers the new version and ETag; DELETE 204, then 404', async (t) => {
    const account = await rest.create('account', { name: 'Short lived' });
    const patched = await rest.send('PATCH', `${api}/account/${String(account.id)}`, { billing_city: 'Oslo' }, { 'if-match': '"1"' });
    t.equal(patched.status, 200, '200');
    t.equal(patched.body.version, 2, 'version 2');
    t.equal(patched.headers.etag, '"2"', 'ETag "2"');
    t.equal(patched.body.created_at, account.created_at, 'created_at kept');
    t.ok(patched.body.updated_at >= String(account.updated_at), 'updated_at moved on');
    t.equal(patched.body.name, 'Short lived', 'untouched fields kept');
    const read = await rest.send('GET', `${api}/account/${String(account.id)}`);
    t.equal(read.headers.etag, '"2"', 'GET by id carries the ETag to send back as If-Match');
    t.equal((await rest.send('PATCH', `${api}/account/${String(account.id)}`, { billing_city: 'Bergen' }, { 'if-match': String(read.headers.etag) })).status, 200, 'and it works');
    const del = await rest.send('DELETE', `${api}/account/${String(account.id)}`);
    t.same([del.status, del.body], [204, null], '204 without a body');
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const again = await rest.send(method, `${api}/account/${String(account.id)}`, method === 'PATCH' ? { name: 'x' } : undefined);
      t.same([again.status, again.body.error.code], [404, 'NOT_FOUND'], `${method} after delete: 404`);
    }
  });

  await t.test('deleting a referenced account: 409 CONFLICT naming the referencing fields', async (t) => {
    const before = await counts(rest);
    const res = await rest.send('DELETE', `${api}/account/${String(acme.id)}`);
    t.equal(res.status, 409, '409');
    t.equal(res.body.error.code, 'CONFLICT', 'CONFLICT');
    t.same(res.body.error.details.referencedBy, [{ object: 'contact', field: 'account' }, { object: 'opportunity', field: 'account' }], 'details name them');
    t.match(res.body.error.message, 'still referenced by contact.account, opportunity.account', 'so does the message');
    t.same(await counts(rest), before, 'nothing deleted');
  });

  await t.test('the list: {items, total, nextCursor}; orderBy shorthand; grouped aggregates', async (t) => {
    const seeded: DataRecord[] = [];
    for (const [i, priority] of ['low', 'high', 'normal', 'high', 'low', 'normal', 'high'].entries()) {
      seeded.push(await rest.create('task', { subject: `t${i}`, priority, status: i % 3 === 0 ? 'done' : 'open' }));
    }
    const res = await rest.send('GET', `${api}/task?orderBy=-priority,created_at&limit=5`);
    t.same(Object.keys(res.body).sort(), ['items', 'nextCursor', 'total'], 'exactly items, total, nextCursor');
    t.equal(res.body.total, 7, 'total counts every match');
    t.type(res.body.nextCursor, 'string', 'a next page exists');
    const expected = [...seeded].sort((a, b) => String(b.priority).localeCompare(String(a.priority))
      || String(a.created_at).localeCompare(String(b.created_at)) || String(a.id).localeCompare(String(b.id)));
    t.same(res.body.items.map((r: DataRecord) => r.subject), expected.slice(0, 5).map((r) => r.subject), 'priority descending, then oldest first');
    const rest2 = await rest.send('GET', `${api}/task?orderBy=-priority,created_at&limit=5&cursor=${String(res.body.nextCursor)}`);
    t.same(rest2.body.items.map((r: DataRecord) => r.subject), expected.slice(5).map((r) => r.subject), 'the second page holds the rest');
    t.equal(rest2.body.nextCursor, null, 'and ends');

    const grouped = await rest.send('POST', `${api}/task/query`, {
      groupBy: ['priority'], aggregations: [{ function: 'count', alias: 'n' }, { function: 'count_distinct', field: 'status', alias: 'statuses' }], orderBy: 'priority',
    });
    t.equal(grouped.status, 200, 'aggregate query: 200');
    t.same(grouped.body.items, [
      { priority: 'high', n: 3, statuses: 2 }, { priority: 'low', n: 2, statuses: 2 }, { priority: 'normal', n: 2, statuses: 1 },
    ], 'one row per priority with its counts');
  });

  await t.test('lead conversion creates account, contact and opportunity, and marks the lead', async (t) => {
    const lead = await rest.create('lead', { first_name: 'Mia', last_name: 'Wong', company: 'Wong Foods', email: 'mia@wong.test', source: 'web', estimated_value: 5000, employees: 40 });
    const res = await rest.send('POST', `${api}/lead/${String(lead.id)}/convert`, { createOpportunity: { stage: 'qualification' } });
    t.equal(res.status, 200, '200');
    const { account, contact, opportunity, lead: converted } = res.body as Record<string, DataRecord>;
    t.hasStrict(account, { name: 'Wong Foods', employees: 40, version: 1 }, 'account from the company');
    t.hasStrict(contact, { first_name: 'Mia', last_name: 'Wong', email: 'mia@wong.test', account: account!.id, lead_source: 'web' }, 'contact under it');
    t.hasStrict(opportunity, { amount: 5000, stage: 'qualification', account: account!.id, contact: contact!.id, lead_source: 'web', name: 'Wong Foods - Wong' }, 'opportunity');
    t.hasStrict(converted, { status: 'converted', version: 2, converted_account: account!.id, converted_contact: contact!.id, converted_opportunity: opportunity!.id }, 'lead marked');
    t.match(converted!.converted_at, ISO, 'converted_at set');
    for (const [object, record] of [['account', account], ['contact', contact], ['opportunity', opportunity]] as const) {
      t.equal((await rest.send('GET', `${api}/${object}/${String(record!.id)}`)).status, 200, `${object} stored`);
    }

    const before = await counts(rest);
    const again = await rest.send('POST', `${api}/lead/${String(lead.id)}/convert`, {});
    t.same([again.status, again.body.error.code], [409, 'CONFLICT'], 'a second conversion: 409 CONFLICT');
    t.match(again.body.error.message, 'is already converted', 'says why');
    t.same(await counts(rest), before, 'and writes nothing');
  });

  await t.test('conversion onto an existing account attaches to it', async (t) => {
    const lead = await rest.create('lead', { last_name: 'Ng', company: 'Ignored Co', phone: '+44 20 7946 0000' });
    const accountsBefore = (await rest.snapshot('account')).count;
    const res = await rest.send('POST', `${api}/lead/${String(lead.id)}/convert`, { accountId: acme.id });
    t.equal(res.status, 200, '200');
    t.equal(res.body.account.id, acme.id, 'the existing account');
    t.equal(res.body.contact.account, acme.id, 'the contact belongs to it');
    t.equal(res.body.opportunity, null, 'no opportunity unless asked');
    t.equal((await rest.snapshot('account')).count, accountsBefore, 'no account created');
  });

  await t.test('a conversion that fails leaves nothing behind', async (t) => {
    const unreachable = await rest.create('lead', { last_name: 'Ghost', company: 'Nowhere Inc' });
    const good = await rest.create('lead', { last_name: 'Fine', company: 'Fine Co', email: 'fine@fine.test' });
    const cases: Array<[string, string, unknown, number, string, string]> = [
      ['the new contact fails its validation rule', String(unreachable.id), { createOpportunity: true }, 400, 'VALIDATION_ERROR', 'contact.email A contact needs an email address, a phone or a mobile number.'],
      ['the new opportunity fails its rule', String(good.id), { createOpportunity: { amount: -5 } }, 400, 'VALIDATION_ERROR', 'opportunity.amount The amount cannot be negative.'],
      ['the account to attach to is unknown', String(good.id), { accountId: 'no-such-account', createOpportunity: true }, 404, 'NOT_FOUND', "Account 'no-such-account' was not found."],
      ['the lead is unknown', 'no-such-lead', {}, 404, 'NOT_FOUND', "Lead 'no-such-lead' was not found."],
      ['an unknown body key', String(good.id), { createOpportunity: true, owner: 'me' }, 400, 'VALIDATION_ERROR', 'Unrecognized key: "owner"'],
      ['a body that is not an object', String(good.id), '[true]', 400, 'VALIDATION_ERROR', 'expected object'],
    ];
    for (const [name, id, body, status, code, message] of cases) {
      const before = await counts(rest);
      const headers: Record<string, string> = typeof body === 'string' ? { 'content-type': 'application/json' } : {};
      const res = await rest.send('POST', `${api}/lead/${id}/convert`, body, headers);
      t.equal(res.status, status, `${name}: ${status}`);
      t.equal(res.body.error?.code, code, `${name}: ${code}`);
      t.match(res.body.error?.message, message, `${name}: message`);
      t.same(await counts(rest), before, `${name}: no account, contact, opportunity or lead change`);
    }
  });

  await t.test('racing conversions of one lead: one converts, the others get 409', async (t) => {
    const lead = await rest.create('lead', { last_name: 'Race', company: 'Race Co', email: 'race@race.test' });
    const accountsBefore = (await rest.snapshot('account')).count;
    const replies = await Promise.all([1, 2, 3, 4].map(() => rest.send('POST', `${api}/lead/${String(lead.id)}/convert`, { createOpportunity: true })));
    t.same(replies.map((r) => r.status).sort(), [200, 409, 409, 409], 'one 200, three 409');
    t.ok(replies.filter((r) => r.status === 409).every((r) => r.body.error.code === 'CONFLICT'), 'each loser: CONFLICT, already converted');
    t.equal((await rest.snapshot('account')).count, accountsBefore + 1, 'exactly one account created');
  });
});
