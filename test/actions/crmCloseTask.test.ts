/** The CRM example app's close_task action, as `npm start` serves it. */
import t from 'tap';
import { sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

t.test('close_task closes a CRM task, stamps it and keeps the note', async (t) => {
  await eachBackend(t, ['crm-actions'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['metadata/apps/crm'] } });
    const admin = await signIn(rt);
    const task = (await sendAs(rt, admin.token, 'POST', '/api/v1/data/task', { subject: 'Call back', description: 'old' })).body;
    t.equal(task.status, 'open');
    const res = await sendAs(rt, admin.token, 'POST', '/api/v1/actions/close_task', { recordId: task.id, note: 'Reached voicemail' });
    t.equal(res.status, 200);
    t.match(res.body.result, { status: 'done', description: 'Reached voicemail', version: 2 });
    t.ok(Date.parse(res.body.result.completed_at) > Date.now() - 60_000);
    const bare = (await sendAs(rt, admin.token, 'POST', '/api/v1/data/task', { subject: 'Email', description: 'keep me' })).body;
    const kept = await sendAs(rt, admin.token, 'POST', '/api/v1/actions/close_task', { recordId: bare.id });
    t.same([kept.body.result.status, kept.body.result.description], ['done', 'keep me']);
    const long = await sendAs(rt, admin.token, 'POST', '/api/v1/actions/close_task', { recordId: bare.id, note: 'x'.repeat(501) });
    t.same([long.status, long.body.error.details.errors[0].path], [400, 'body/note']);
  });
});
