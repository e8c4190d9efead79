/**
 * A form submission is a write for its caller: a scoped credential without data:write cannot submit
 * a members' form (the public route declares its scope), and still reads the form's schema, on both drivers.
 */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { formsWorld } from './formsHarness.ts';

await eachBackend(t, ['formscopes'], async (t, site) => {
  const w = await formsWorld(t, site);
  const mint = async (scopes: string[]) => {
    const res = await w.as(w.member.token, 'POST', '/api/v1/keys', { name: scopes.join('+'), scopes });
    t.equal(res.status, 201, `minted ${scopes.join(', ')}`);
    return String(res.body.key);
  };
  const reader = await mint(['data:read']);
  const writer = await mint(['data:write']);
  const answer = { subject: 'by key', email: 'key@example.com' };

  t.equal((await w.as(reader, 'GET', '/api/v1/forms/members')).status, 200, 'a data:read key reads the form');
  const refused = await w.as(reader, 'POST', '/api/v1/forms/members/submit', answer);
  t.equal(refused.status, 403, 'and cannot submit it');
  t.equal(refused.body.error.code, 'SCOPE_DENIED', 'SCOPE_DENIED');
  t.equal(refused.body.error.details.scope, 'data:write', 'naming data:write');
  t.equal(refused.body.error.details.operation, 'POST /api/v1/forms/:slug/submit', 'refused by the route guard, before the form is read or counted');
  const stored = async () => (await w.as(w.admin.token, 'GET', `/api/v1/data/ticket?where=${encodeURIComponent(JSON.stringify({ subject: 'by key' }))}`)).body.items.length as number;
  t.equal(await stored(), 0, 'nothing stored');
  const accepted = await w.as(writer, 'POST', '/api/v1/forms/members/submit', answer);
  t.equal(accepted.status, 201, 'a data:write key submits');
  t.equal(await stored(), 1, 'one record stored');
  t.equal((await w.anon('POST', '/api/v1/forms/contact/submit', { subject: 'Anonymous', email: 'ann@example.com', quantity: 3, priority: 'high', topics: ['billing'], notes: 'Please call', due: '2026-12-01', urgent: true })).status, 201, 'anonymous callers are not scoped');
});
