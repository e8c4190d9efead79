/** Optimistic concurrency through HTTP: stale versions lose with 409, unversioned writes never lose an update. */
import t from 'tap';
import { onEachDriver, type Reply } from './restFixtures.ts';

const N = 20;

const url = (id: unknown) => `/api/v1/data/account/${String(id)}`;

/** The 10 fields the unversioned writers spread over: each write sets one, with a value naming the writer. */
const FIELDS: Array<[string, (i: number) => unknown]> = [
  ['name', (i) => `name ${i}`],
  ['billing_city', (i) => `city ${i}`],
  ['billing_country', (i) => `country ${i}`],
  ['description', (i) => `description ${i}`],
  ['employees', (i) => i],
  ['annual_revenue', (i) => i * 10],
  ['phone', (i) => `+1 555 01${String(i).padStart(2, '0')}`],
  ['billing_email', (i) => `billing${i}@example.com`],
  ['website', (i) => `https://w${i}.example.com`],
  ['customer_since', (i) => `2020-01-${String(i + 1).padStart(2, '0')}`],
];

await onEachDriver(t, 'rest-concurrency', async (t, rest) => {
  await t.test(`${N} parallel PATCHes expecting version 1: one wins, the rest get 409`, async (t) => {
    const record = await rest.create('account', { name: 'Contested' });
    t.equal(record.version, 1, 'created at version 1');
    const replies = await Promise.all(Array.from({ length: N }, (_, i) => i % 2 === 0
      ? rest.send('PATCH', url(record.id), { description: `writer ${i}`, expectedVersion: 1 })
      : rest.send('PATCH', url(record.id), { description: `writer ${i}` }, { 'if-match': '"1"' })));

    const won = replies.filter((r) => r.status === 200);
    const lost = replies.filter((r) => r.status === 409);
    t.equal(won.length, 1, 'exactly one 200');
    t.equal(lost.length, N - 1, 'every other writer gets 409');
    t.equal(won[0]?.body.version, 2, 'the winner gets version 2');
    t.equal(won[0]?.headers.etag, '"2"', 'and its ETag');
    for (const reply of lost) {
      t.equal(reply.body.error.code, 'CONCURRENT_UPDATE', 'code');
      t.same(reply.body.error.details, { expectedVersion: 1, currentVersion: 2 }, 'details carry the current version');
    }
    t.match(lost[0]?.body.error.message, 'expected version 1, current version 2', 'the message says which versions');

    const final = await rest.send('GET', url(record.id));
    t.equal(final.body.version, 2, 'final version 2');
    t.equal(final.body.description, won[0]?.body.description, "the stored value is the winner's");
  });

  await t.test('DELETE with a stale If-Match is refused; racing deletes: one 204, then 404s', async (t) => {
    const record = await rest.create('account', { name: 'Doomed' });
    const patched = await rest.send('PATCH', url(record.id), { description: 'moved on' }, { 'if-match': 'W/"1"' });
    t.equal(patched.status, 200, 'weak ETag form accepted');
    t.equal(patched.body.version, 2, 'now at version 2');

    for (const [name, headers, query] of [['If-Match', { 'if-match': '"1"' }, ''], ['expectedVersion', {}, '?expectedVersion=1']] as const) {
      const stale = await rest.send('DELETE', url(record.id) + query, undefined, headers);
      t.equal(stale.status, 409, `stale ${name}: 409`);
      t.equal(stale.body.error.code, 'CONCURRENT_UPDATE', 'code');
      t.same(stale.body.error.details, { expectedVersion: 1, currentVersion: 2 }, 'details');
    }
    t.equal((await rest.send('GET', url(record.id))).status, 200, 'the record is still there');

    const deletes = await Promise.all(Array.from({ length: 5 }, () => rest.send('DELETE', url(record.id), undefined, { 'if-match': '"2"' })));
    t.same(deletes.map((r) => r.status).sort(), [204, 404, 404, 404, 404], 'one delete wins, the others find nothing');
    t.equal(deletes.find((r) => r.status === 204)?.body, null, '204 has no body');
    t.equal(deletes.find((r) => r.status === 404)?.body.error.code, 'NOT_FOUND', 'the losers get NOT_FOUND');

    for (const [name, headers, body] of [
      ['versioned', {}, { description: 'late', expectedVersion: 2 }],
      ['unversioned', {}, { description: 'late' }],
      ['If-Match', { 'if-match': '"2"' }, { description: 'late' }],
    ] as const) {
      const late = await rest.send('PATCH', url(record.id), body, headers);
      t.equal(late.status, 404, `${name} PATCH of a deleted record: 404`);
      t.equal(late.body.error.code, 'NOT_FOUND', 'code');
      t.equal(late.body.error.details.id, record.id, 'names the id');
    }
    t.equal((await rest.send('GET', url(record.id))).status, 404, 'GET: 404');
  });

  await t.test(`${N} parallel PATCHes without a version: all succeed, none is lost`, async (t) => {
    const record = await rest.create('account', { name: 'Busy' });
    const replies: Reply[] = await Promise.all(Array.from({ length: N }, (_, i) => {
      const [field, value] = FIELDS[i % FIELDS.length]!;
      return rest.send('PATCH', url(record.id), { [field]: value(i) });
    }));
    t.same(replies.map((r) => r.status), Array(N).fill(200), 'every PATCH answers 200');
    const versions = replies.map((r) => r.body.version as number).sort((a, b) => a - b);
    t.same(versions, Array.from({ length: N }, (_, i) => i + 2), 'each write made its own version: 2..21, no two alike');

    const final = (await rest.send('GET', url(record.id))).body;
    t.equal(final.version, N + 1, `final version ${N + 1}`);
    // Per field, the stored value is the one written by the write that got the highest version.
    for (const [f, [field, value]] of FIELDS.entries()) {
      const writers = replies.map((r, i) => ({ i, version: r.body.version as number })).filter(({ i }) => i % FIELDS.length === f);
      const last = writers.reduce((a, b) => (b.version > a.version ? b : a));
      t.same(final[field], value(last.i), `${field} holds the last writer's value`);
    }
  });

  await t.test('a delete racing writes that reference the record never leaves a dangling lookup', async (t) => {
    const spare = await rest.create('contact', { last_name: 'Spare', phone: '+1 555 0199' });
    // The delete starts with the writes, or a little after: each interleaving has its own round.
    for (const delay of [-1, -1, 0, 1, 2, 3, 5, 8, 13]) {
      const target = await rest.create('account', { name: `Target ${delay}` });
      const deleting = delay < 0 ? rest.send('DELETE', url(target.id)) : new Promise<Reply>((resolve) => setTimeout(() => resolve(rest.send('DELETE', url(target.id))), delay));
      const writes = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => rest.send('POST', '/api/v1/data/contact', { last_name: `Ref ${i}`, phone: '+1 555 0100', account: target.id })),
        rest.send('PATCH', `/api/v1/data/contact/${String(spare.id)}`, { account: target.id }),
      ]);
      const deleted = await deleting;
      t.ok([204, 409].includes(deleted.status), `delay ${delay}ms: the delete answers 204 or 409 (${deleted.status})`);
      t.ok(writes.every((w) => [200, 201, 400].includes(w.status)), `delay ${delay}ms: each write succeeds or is refused with 400`);
      const gone = (await rest.send('GET', url(target.id))).status === 404;
      const where = encodeURIComponent(JSON.stringify({ account: target.id }));
      const referencing = (await rest.send('GET', `/api/v1/data/contact?where=${where}`)).body.total as number;
      t.equal(gone ? referencing : 0, 0, `delay ${delay}ms: a deleted account has no contact pointing to it`);
      t.equal(deleted.status === 409, !gone, 'the record is gone exactly when the delete said 204');
      if (!gone) await rest.send('PATCH', `/api/v1/data/contact/${String(spare.id)}`, { account: null });
    }
  });

  await t.test('If-Match and expectedVersion must agree and be versions', async (t) => {
    const record = await rest.create('account', { name: 'Strict' });
    const cases: Array<[string, unknown, Record<string, string>, string]> = [
      ['they disagree', { expectedVersion: 1 }, { 'if-match': '"2"' }, 'If-Match (2) and expectedVersion (1) disagree'],
      ['If-Match is not a version', {}, { 'if-match': '"abc"' }, 'If-Match must be a record version'],
      ['expectedVersion is not a positive integer', { expectedVersion: 0 }, {}, 'expectedVersion must be a positive integer'],
      ['expectedVersion is text', { expectedVersion: 'one' }, {}, 'expectedVersion must be a positive integer'],
    ];
    for (const [name, extra, headers, message] of cases) {
      const res = await rest.send('PATCH', url(record.id), { description: name, ...(extra as object) }, headers);
      t.equal(res.status, 400, `${name}: 400`);
      t.equal(res.body.error.code, 'VALIDATION_ERROR', 'code');
      t.match(res.body.error.message, message, 'message');
    }
    const after = (await rest.send('GET', url(record.id))).body;
    t.equal(after.version, 1, 'nothing was written');
    t.equal(after.description, null, 'description untouched');
  });
});
