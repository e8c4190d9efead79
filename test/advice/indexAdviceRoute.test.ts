/** GET /api/v1/metrics/index-advice: slow shapes recorded from real reads, advice minus served shapes, admins only. */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { TICKETS_APP } from './adviceFixtures.ts';

const url = '/api/v1/metrics/index-advice';
const q = (where: unknown, orderBy: string) => `/api/v1/data/ticket?where=${encodeURIComponent(JSON.stringify(where))}&orderBy=${orderBy}&limit=50`;

await eachBackend(t, [`advice-${randomBytes(3).toString('hex')}`], async (t, site) => {
  // A threshold of 0 records every read: the shapes do not depend on how fast this machine is.
  const rt = await site.boot({ config: { apps: [TICKETS_APP], plugins: { data: { slowQueryMs: 0 } } } });
  const admin = await signIn(rt);
  const member = await addUser(rt, admin.token, 'member');
  for (let i = 0; i < 5; i++) {
    const created = await sendAs(rt, admin.token, 'POST', '/api/v1/data/ticket', { title: `t${i}`, status: i % 2 ? 'open' : 'done', priority: i, due_date: `2026-01-0${i + 1}`, area: 'north' });
    t.equal(created.status, 201);
  }

  const empty = await sendAs(rt, admin.token, 'GET', url);
  t.equal(empty.status, 200);
  t.equal(empty.body.slowQueryMs, 0, 'the threshold in force');

  const issue = q({ status: 'open', priority: { $gte: 4 } }, '-priority,due_date');
  const served = q({ area: 'north' }, 'due_date');
  for (let i = 0; i < 3; i++) {
    t.equal((await sendAs(rt, admin.token, 'GET', issue)).status, 200);
    t.equal((await sendAs(rt, admin.token, 'GET', served)).status, 200);
  }

  const answer = await sendAs(rt, admin.token, 'GET', url);
  t.equal(answer.status, 200, 'an admin reads the advice');
  const tickets = answer.body.items.filter((a: { object: string }) => a.object === 'ticket');
  t.same(tickets.map((a: { columns: string[] }) => a.columns), [['status', 'priority', 'due_date']], 'status, priority, due_date; (area, due_date) is served by the declared index');
  const advice = tickets[0];
  t.same(advice.shapes, [{ equality: ['status'], range: ['priority'], sort: ['-priority', 'due_date'] }]);
  t.ok(advice.runs === 3 && advice.totalMs > 0 && advice.maxMs > 0, `runs and times (${advice.runs} runs, ${advice.totalMs} ms)`);
  t.match(advice.sql, site.backend === 'postgres'
    ? /^create index concurrently "osr_auto_ticket_[0-9a-f]{8}" on "ticket" \("status", "priority" desc nulls last, "due_date" asc nulls first, "id"\)$/
    : /^create index "osr_auto_ticket_[0-9a-f]{8}" on "ticket" \("status", "priority" desc, "due_date", "id"\)$/, 'keys in the order and direction of the page statement, id last');

  const denied = await sendAs(rt, member.token, 'GET', url);
  t.equal(denied.status, 403, 'a member may not read it');
  t.equal(denied.body.error.code, 'PERMISSION_DENIED');
  t.notOk(JSON.stringify(denied.body).includes('priority'), 'nothing of the advice in the refusal');

  // Built by hand, the advised index serves the shape: the advice goes away.
  await site.query(site.ids[0]!, advice.sql.replace(' concurrently', ''));
  const after = await sendAs(rt, admin.token, 'GET', url);
  t.same(after.body.items.filter((a: { object: string }) => a.object === 'ticket'), [], 'an index in the database serves it now');
});
