/**
 * 200 concurrent PATCHes on one record lose no update, on every driver:
 * - without a version, each PATCH is applied whole and gets its own version: the answers hold
 *   versions 2..201 once each, and the stored record is the one of version 201;
 * - as read-modify-write (increment a counter with If-Match, retry on 409), 200 increments from 40
 *   concurrent writers end at 200 and, ordered by version, each answer holds the previous counter
 *   plus one. (200 writers at once also pass, but optimistic retries grow with the square of the
 *   writers, which takes tens of seconds on PostgreSQL.)
 */
import t from 'tap';
import { bootCrm, forEachDriver, sleep, type CrmRuntime } from './reliabilityHarness.ts';

const WRITERS = 200;
const INCREMENTERS = 40;

async function createAccount(crm: CrmRuntime, name: string): Promise<string> {
  const r = await crm.send('POST', '/api/v1/data/account', { name, employees: 0 });
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${r.text}`);
  return String(r.body.id);
}

/** GET, add one, PATCH with If-Match; on 409 wait a random, growing while, and start over. */
async function increment(crm: CrmRuntime, url: string): Promise<{ version: number; employees: number; attempts: number }> {
  for (let attempt = 1; attempt <= 200; attempt++) {
    const current = await crm.send('GET', url);
    if (current.status !== 200) throw new Error(`GET answered ${current.status}`);
    const r = await crm.send('PATCH', url, { employees: Number(current.body.employees) + 1 }, { 'if-match': `"${String(current.body.version)}"` });
    if (r.status === 200) return { version: Number(r.body.version), employees: Number(r.body.employees), attempts: attempt };
    if (r.status !== 409 || r.body.error.code !== 'CONCURRENT_UPDATE') throw new Error(`PATCH answered ${r.status}: ${r.text}`);
    await sleep(Math.random() * Math.min(1000, 4 * 2 ** attempt));
  }
  throw new Error('no increment landed in 200 attempts');
}

await forEachDriver(t, async (t, driver) => {
  const crm = await bootCrm(t, driver, 'patch');

  await t.test(`${WRITERS} PATCHes without a version: each applied once, versions 2..${WRITERS + 1}`, async (t) => {
    const url = `/api/v1/data/account/${await createAccount(crm, `Blind ${driver}`)}`;
    const replies = await Promise.all(Array.from({ length: WRITERS }, (_, i) => crm.send('PATCH', url, { description: `writer ${i}` })));
    t.same(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`), [], 'every PATCH succeeds');
    const versions = replies.map((r) => Number(r.body.version)).sort((a, b) => a - b);
    t.same(versions, Array.from({ length: WRITERS }, (_, i) => i + 2), 'each PATCH got its own version');
    const last = replies.find((r) => r.body.version === WRITERS + 1)!;
    const stored = await crm.send('GET', url);
    t.equal(stored.body.version, WRITERS + 1, 'the stored version counts every PATCH');
    t.equal(stored.body.description, last.body.description, 'the stored record is the last PATCH applied');
  });

  await t.test(`${WRITERS} increments with If-Match and retry from ${INCREMENTERS} writers: the counter ends at ${WRITERS}`, async (t) => {
    const url = `/api/v1/data/account/${await createAccount(crm, `Counter ${driver}`)}`;
    const results: Array<Awaited<ReturnType<typeof increment>>> = [];
    await Promise.all(Array.from({ length: INCREMENTERS }, async () => {
      for (let i = 0; i < WRITERS / INCREMENTERS; i++) results.push(await increment(crm, url));
    }));
    const byVersion = [...results].sort((a, b) => a.version - b.version);
    t.same(byVersion.map((r) => r.version), Array.from({ length: WRITERS }, (_, i) => i + 2), 'versions strictly increase, one per increment');
    t.same(byVersion.map((r) => r.employees), Array.from({ length: WRITERS }, (_, i) => i + 1), 'each increment saw the one before it');
    const stored = await crm.send('GET', url);
    t.equal(stored.body.employees, WRITERS, 'no increment was lost');
    t.equal(stored.body.version, WRITERS + 1, 'and none was applied twice');
    t.ok(results.some((r) => r.attempts > 1), 'writers did collide (409 then retry)');
  });
});
