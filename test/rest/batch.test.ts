/** Upsert, bulk writes and the atomic batch through HTTP, on each driver: all or nothing, references, concurrency. */
import t from 'tap';
import { onEachDriver, type Rest } from './restFixtures.ts';

const api = '/api/v1';

async function counts(rest: Rest): Promise<string> {
  const out: string[] = [];
  for (const object of ['account', 'contact', 'opportunity']) {
    const s = await rest.snapshot(object);
    out.push(`${object}=${s.count}:${s.checksum}`);
  }
  return out.join(' ');
}

await onEachDriver(t, 'rest-batch', async (t, rest) => {
  await t.test('batch: references to earlier results resolve, per-operation results in order', async (t) => {
    const res = await rest.send('POST', `${api}/batch`, {
      operations: [
        { id: 'acc', method: 'POST', object: 'account', body: { name: 'Batch Co' } },
        { id: 'jo', method: 'POST', object: 'contact', body: { last_name: 'Jo', email: 'jo@batch.test', account: { $ref: 'acc.id' } } },
        { id: 'deal', method: 'POST', object: 'opportunity', body: { name: 'Batch deal', account: { $ref: 'acc.id' }, contact: { $ref: 'jo.id' }, close_date: '2030-01-01' } },
        { id: 'rename', method: 'PATCH', object: 'account', recordId: { $ref: 'acc.id' }, body: { name: { $ref: 'jo.last_name' }, expectedVersion: 1 } },
      ],
    });
    t.equal(res.status, 200, '200');
    t.same(res.body.results.map((r: { id: string; status: number }) => [r.id, r.status]), [['acc', 201], ['jo', 201], ['deal', 201], ['rename', 200]], 'ids and statuses in order');
    const [acc, jo, deal, rename] = res.body.results.map((r: { body: Record<string, unknown> }) => r.body);
    t.equal(jo.account, acc.id, 'the contact points to the account made by acc');
    t.same([deal.account, deal.contact], [acc.id, jo.id], 'the deal points to both');
    t.same([rename.id, rename.name, rename.version], [acc.id, 'Jo', 2], 'the PATCH found its record and its value through references');
    const stored = await rest.send('GET', `${api}/data/contact/${String(jo.id)}`);
    t.equal(stored.body.account, acc.id, 'committed');
  });

  await t.test('batch: the third operation fails, nothing is written and the answer names op3', async (t) => {
    const before = await counts(rest);
    const res = await rest.send('POST', `${api}/batch`, {
      operations: [
        { id: 'op1', method: 'POST', object: 'account', body: { name: 'Never stored' } },
        { id: 'op2', method: 'POST', object: 'contact', body: { last_name: 'Ghost', email: 'ghost@batch.test', account: { $ref: 'op1.id' } } },
        { id: 'op3', method: 'POST', object: 'contact', body: { first_name: 'No last name', email: 'x@batch.test' } },
        { id: 'op4', method: 'POST', object: 'account', body: { name: 'Never reached' } },
      ],
    });
    t.equal(res.status, 400, 'the status of the failing operation');
    t.equal(res.body.error.code, 'VALIDATION_ERROR', 'its code');
    t.same([res.body.error.details.operation, res.body.error.details.index, res.body.error.details.status], ['op3', 2, 400], 'names op3, its index and status');
    t.match(res.body.error.message, /^Operation 'op3' \(index 2, POST contact\) failed with 400 VALIDATION_ERROR: .*last_name.*Nothing was written\.$/, 'says which, why and that nothing was written');
    t.equal(await counts(rest), before, 'nothing written');
    const ghosts = await rest.send('GET', `${api}/data/contact?where=${encodeURIComponent(JSON.stringify({ email: 'ghost@batch.test' }))}`);
    t.equal(ghosts.body.items.length, 0, 'op2 was rolled back');
  });

  await t.test('batch: a missing record or object in the middle names its operation; nothing written', async (t) => {
    const before = await counts(rest);
    const missing = await rest.send('POST', `${api}/batch`, {
      operations: [
        { id: 'a', method: 'POST', object: 'account', body: { name: 'Gone' } },
        { id: 'b', method: 'DELETE', object: 'account', recordId: 'no-such-id' },
      ],
    });
    t.same([missing.status, missing.body.error.code, missing.body.error.details.operation], [404, 'NOT_FOUND', 'b'], '404 naming b');
    const unknown = await rest.send('POST', `${api}/batch`, { operations: [{ id: 'a', method: 'POST', object: 'account', body: { name: 'Gone' } }, { id: 'b', method: 'POST', object: 'nothing_here', body: {} }] });
    t.same([unknown.status, unknown.body.error.code, unknown.body.error.details.operation], [404, 'NOT_FOUND', 'b'], 'an unknown object is 404 naming b');
    t.equal(await counts(rest), before, 'nothing written');
  });

  await t.test('batch: a reference to a later or unknown operation is 400 before anything runs', async (t) => {
    const before = await counts(rest);
    const later = await rest.send('POST', `${api}/batch`, {
      operations: [
        { id: 'c', method: 'POST', object: 'contact', body: { last_name: 'Early', email: 'early@batch.test', account: { $ref: 'a.id' } } },
        { id: 'a', method: 'POST', object: 'account', body: { name: 'Late' } },
      ],
    });
    t.same([later.status, later.body.error.code, later.body.error.details.operation], [400, 'VALIDATION_ERROR', 'c'], 'later: 400 naming c');
    t.match(later.body.error.message, /refers to 'a' \(a\.id\), which is not an earlier operation/, 'says why');
    const unknown = await rest.send('POST', `${api}/batch`, { operations: [{ id: 'x', method: 'PATCH', object: 'account', recordId: { $ref: 'nope.id' }, body: { name: 'n' } }] });
    t.same([unknown.status, unknown.body.error.details.operation], [400, 'x'], 'unknown: 400 naming x');
    const self = await rest.send('POST', `${api}/batch`, { operations: [{ id: 's', method: 'POST', object: 'account', body: { name: { $ref: 's.id' } } }] });
    t.equal(self.status, 400, 'a reference to itself: 400');
    const field = await rest.send('POST', `${api}/batch`, {
      operations: [
        { id: 'a', method: 'POST', object: 'account', body: { name: 'Ref field' } },
        { id: 'b', method: 'PATCH', object: 'account', recordId: { $ref: 'a.no_such_field' }, body: { name: 'n' } },
      ],
    });
    t.same([field.status, field.body.error.details.operation], [400, 'b'], 'a field the result does not hold: 400 naming b');
    t.equal(await counts(rest), before, 'nothing written');
  });

  await t.test('batch: shape and limits', async (t) => {
    const op = (i: number) => ({ id: `op${i}`, method: 'POST', object: 'account', body: { name: `A${i}` } });
    const over = await rest.send('POST', `${api}/batch`, { operations: Array.from({ length: 101 }, (_, i) => op(i)) });
    t.same([over.status, over.body.error.code, over.body.error.details.limit], [400, 'VALIDATION_ERROR', 100], '101 operations: 400 naming the limit of 100');
    const twice = await rest.send('POST', `${api}/batch`, { operations: [op(1), op(1)] });
    t.same([twice.status, twice.body.error.details.index], [400, 1], 'a repeated id: 400');
    const verb = await rest.send('POST', `${api}/batch`, { operations: [{ ...op(1), method: 'PUT' }] });
    t.same([verb.status, verb.body.error.details.errors[0].path], [400, 'operations[0].method'], 'an unknown method: 400');
    const empty = await rest.send('POST', `${api}/batch`, { operations: [] });
    t.equal(empty.status, 400, 'no operations: 400');
  });

  await t.test('bulk: all in one transaction with per-operation results', async (t) => {
    const a = await rest.create('account', { name: 'Bulk A' });
    const b = await rest.create('account', { name: 'Bulk B' });
    const res = await rest.send('POST', `${api}/data/account/bulk`, {
      operations: [
        { method: 'create', values: { name: 'Bulk C' } },
        { method: 'update', id: a.id, values: { billing_city: 'Oslo' }, expectedVersion: 1 },
        { method: 'delete', id: b.id },
      ],
    });
    t.equal(res.status, 200, '200');
    t.same(res.body.results.map((r: { index: number; status: number }) => [r.index, r.status]), [[0, 201], [1, 200], [2, 204]], 'per-operation statuses');
    t.same([res.body.results[0].body.name, res.body.results[1].body.billing_city, res.body.results[1].body.version, res.body.results[2].body], ['Bulk C', 'Oslo', 2, null], 'per-operation bodies');
    t.equal((await rest.send('GET', `${api}/data/account/${String(b.id)}`)).status, 404, 'the delete was committed');
  });

  await t.test('bulk: one failing operation writes nothing and names its index', async (t) => {
    const a = await rest.create('account', { name: 'Bulk stale' });
    const before = await counts(rest);
    const res = await rest.send('POST', `${api}/data/account/bulk`, {
      operations: [
        { method: 'create', values: { name: 'Bulk never' } },
        { method: 'update', id: a.id, values: { name: 'Bulk renamed' } },
        { method: 'update', id: a.id, values: { name: 'Bulk stale write' }, expectedVersion: 1 },
      ],
    });
    t.same([res.status, res.body.error.code, res.body.error.details.index], [409, 'CONCURRENT_UPDATE', 2], '409 naming index 2 (its version moved on inside the bulk)');
    t.match(res.body.error.message, /^Operation '2' \(index 2, update account\) failed with 409 CONCURRENT_UPDATE: .*Nothing was written\.$/, 'the message names it as sent');
    t.equal(await counts(rest), before, 'nothing written');
    const over = await rest.send('POST', `${api}/data/account/bulk`, { operations: Array.from({ length: 201 }, () => ({ method: 'create', values: { name: 'x' } })) });
    t.same([over.status, over.body.error.details.limit], [400, 200], '201 operations: 400 naming the limit of 200');
    const shape = await rest.send('POST', `${api}/data/account/bulk`, { operations: [{ method: 'update', values: { name: 'x' } }] });
    t.same([shape.status, shape.body.error.details.errors[0].path], [400, 'operations[0].id'], 'an update without id: 400');
    const literal = await rest.send('POST', `${api}/data/account/bulk`, { operations: [{ method: 'create', values: { name: { $ref: '0.id' } } }] });
    t.equal(literal.status, 400, 'bulk values are taken as sent: a $ref is a value of the wrong type');
  });

  await t.test('upsert: 201 then 200 on the same key; errors name the field', async (t) => {
    const first = await rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: 'Up', email: 'up@batch.test' });
    t.same([first.status, first.body.version, first.headers.etag], [201, 1, '"1"'], '201 created');
    const second = await rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: 'Upper', email: 'up@batch.test' });
    t.same([second.status, second.body.id, second.body.version, second.body.last_name], [200, first.body.id, 2, 'Upper'], '200 updated the same record');
    const stale = await rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: 'Stale', email: 'up@batch.test' }, { 'if-match': '"1"' });
    t.same([stale.status, stale.body.error.code], [409, 'CONCURRENT_UPDATE'], 'If-Match applies to the update branch');
    const fresh = await rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: 'Fresh', email: 'up@batch.test', expectedVersion: 2 });
    t.same([fresh.status, fresh.body.version], [200, 3], 'and expectedVersion in the body');
    const notUnique = await rest.send('PUT', `${api}/data/contact/upsert?on=last_name`, { last_name: 'Up', email: 'up2@batch.test' });
    t.same([notUnique.status, notUnique.body.error.code, notUnique.body.error.details.errors[0].path], [400, 'VALIDATION_ERROR', 'on'], 'a field not declared unique: 400');
    t.match(notUnique.body.error.message, /last_name.*not declared unique/, 'naming it');
    const absent = await rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: 'No email', phone: '+4712345678' });
    t.match([absent.status, absent.body.error.message], [400, /email.*needs a value/], 'the key missing from the body: 400 naming it');
    const unknown = await rest.send('PUT', `${api}/data/contact/upsert?on=nothing`, { last_name: 'x' });
    t.match([unknown.status, unknown.body.error.message], [400, /nothing.*not a field/], 'an unknown field: 400');
    const noOn = await rest.send('PUT', `${api}/data/contact/upsert`, { last_name: 'x', email: 'x@batch.test' });
    t.same([noOn.status, noOn.body.error.details.errors[0].path], [400, 'on'], 'no on: 400');
  });

  await t.test('the OpenAPI document lists the three routes', async (t) => {
    const doc = (await rest.send('GET', `${api}/openapi.json`)).body;
    const upsert = doc.paths['/data/contact/upsert']?.put;
    t.equal(upsert?.operationId, 'upsertContact', 'PUT /data/contact/upsert');
    t.same(upsert.parameters.find((p: { name: string }) => p.name === 'on').schema.enum, ['email'], 'on: the unique fields');
    t.same(Object.keys(upsert.responses).filter((s) => s < '400'), ['200', '201'], '200 updated, 201 created');
    t.equal(doc.paths['/data/account/upsert'], undefined, 'not on an object without a unique field');
    t.equal(doc.paths['/data/contact/bulk']?.post?.requestBody.content['application/json'].schema.properties.operations.maxItems, 200, 'bulk, with its limit');
    t.match(doc.paths['/batch']?.post?.requestBody.content['application/json'].schema.properties.operations.description, /1 to 100 operations/, 'the batch, with its limit');
  });

  await t.test('upsert: 200 parallel requests on one key make exactly one record', async (t) => {
    const email = `race-${rest.driver}@batch.test`;
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => rest.send('PUT', `${api}/data/contact/upsert?on=email`, { last_name: `Racer ${i}`, email })));
    const statuses = replies.map((r) => r.status);
    t.same([...new Set(statuses)].sort(), [200, 201], 'every answer is 200 or 201, with both seen');
    t.equal(statuses.filter((s) => s === 201).length, 1, 'exactly one created it');
    const found = await rest.send('GET', `${api}/data/contact?where=${encodeURIComponent(JSON.stringify({ email }))}`);
    t.equal(found.body.items.length, 1, 'one record');
    t.equal(found.body.items[0].version, 200, 'updated by the 199 others, one after another');
    t.equal(new Set(replies.map((r) => r.body.id)).size, 1, 'every answer is that record');
  });
});
