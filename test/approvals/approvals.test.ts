/** The approvals plugin over HTTP on SQLite and PostgreSQL: quorum, veto, clamp, revisions, SLA escalation, record lock, visibility. */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildApprovalsWorld, type ApprovalsWorld } from './approvalsWorld.ts';

const REQ = '/api/v1/approvals/requests';

async function submit(w: ApprovalsWorld, process: string, recordId: string) {
  const res = await w.as('owner', 'POST', REQ, { process, recordId });
  if (res.status !== 201) throw new Error(`submit ${process}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; status: string; progress: string; steps: Array<Record<string, unknown>> };
}

t.test('approvals', async (t) => {
  await eachBackend(t, ['approvals'], async (t, site) => {
    const w = await buildApprovalsWorld(t, site);
    const { users } = w;

    await t.test('declared processes are listed with their steps', async (t) => {
      const res = await w.as('owner', 'GET', '/api/v1/approvals/processes');
      t.equal(res.status, 200);
      const big = res.body.items.find((p: { name: string }) => p.name === 'big_project');
      t.equal(big.object, 'project');
      t.equal(big.maxRevisions, 3);
      t.equal(big.steps[0].minApprovals, 2);
      t.same(big.steps[0].positions, ['finance']);
      t.equal(big.origin, 'metadata');
    });

    await t.test('quorum 2 of 3 completes on the second approval, and the record is locked while pending', async (t) => {
      const projectId = await w.project('Big one', 5000);
      const submitted = await submit(w, 'big_project', projectId);
      t.equal(submitted.status, 'pending');
      t.equal(submitted.progress, '0 of 2 approvals on step Finance');
      t.same((submitted.steps[0]!.approvers as string[]).slice().sort(), [users.a1.id, users.a2.id, users.a3.id].sort());
      const id = submitted.id;

      // Lock: the submitter and an outsider are refused, an approver of the step may edit.
      const ownerEdit = await w.as('owner', 'PATCH', `/api/v1/data/project/${projectId}`, { name: 'Changed by owner' });
      t.equal(ownerEdit.status, 409);
      t.equal(ownerEdit.body.error.code, 'RECORD_LOCKED');
      t.equal(ownerEdit.body.error.details.requestId, id);
      const outsiderEdit = await w.as('outsider', 'PATCH', `/api/v1/data/project/${projectId}`, { name: 'Changed by outsider' });
      t.equal(outsiderEdit.status, 409);
      t.equal(outsiderEdit.body.error.code, 'RECORD_LOCKED');
      const adminDelete = await w.as('admin', 'DELETE', `/api/v1/data/project/${projectId}`);
      t.equal(adminDelete.status, 409, 'an admin who is not an approver is refused too');
      t.equal(adminDelete.body.error.code, 'RECORD_LOCKED');
      const approverEdit = await w.as('a3', 'PATCH', `/api/v1/data/project/${projectId}`, { name: 'Fixed by approver' });
      t.equal(approverEdit.status, 200);
      t.equal(approverEdit.body.name, 'Fixed by approver');

      // A non-approver's approve is 403; the request of others is 404 for an outsider.
      const outsiderApprove = await w.as('outsider', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(outsiderApprove.status, 404, 'an outsider does not learn that the request exists');
      const ownerApprove = await w.as('owner', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(ownerApprove.status, 403);
      t.equal(ownerApprove.body.error.code, 'PERMISSION_DENIED');
      const outsiderGet = await w.as('outsider', 'GET', `${REQ}/${id}`);
      t.equal(outsiderGet.status, 404);
      t.equal(outsiderGet.body.error.code, 'NOT_FOUND');

      const first = await w.as('a1', 'POST', `${REQ}/${id}/approve`, { comment: 'fine by me' });
      t.equal(first.status, 200);
      t.equal(first.body.status, 'pending');
      t.equal(first.body.progress, '1 of 2 approvals on step Finance');
      const again = await w.as('a1', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(again.status, 409);
      t.equal(again.body.error.code, 'INVALID_STATE');
      const assigned = await w.as('a2', 'GET', `${REQ}?box=assigned`);
      t.ok(assigned.body.items.some((r: { id: string }) => r.id === id), 'a2 sees the request assigned to it');
      const second = await w.as('a2', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(second.status, 200);
      t.equal(second.body.status, 'approved');
      t.equal(second.body.progress, 'Approved (1 of 1 steps)');
      const trail = await w.as('admin', 'GET', '/api/v1/data/sys_audit_event?limit=200');
      const decisions = trail.body.items.filter((e: { action: string; target_id: string }) => e.action === 'approval.request_decided' && e.target_id === id);
      t.same(decisions.map((e: { actor_id: string; after: { decision: string; status: string } }) => [e.actor_id, e.after.decision, e.after.status]),
        [[w.users.a1.id, 'approve', 'pending'], [w.users.a2.id, 'approve', 'approved']], 'each decision is in the audit trail (the refused ones are not)');
      t.same(second.body.decisions.filter((d: { kind: string }) => d.kind === 'approve').map((d: { userId: string }) => d.userId), [users.a1.id, users.a2.id]);
      t.equal(second.body.decisions.find((d: { kind: string }) => d.kind === 'approve').comment, 'fine by me');

      const third = await w.as('a3', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(third.status, 409, 'a decided request takes no more decisions');
      t.equal(third.body.error.code, 'INVALID_STATE');
      // onApprove ran the declared action, and the record is unlocked.
      const project = await w.as('owner', 'GET', `/api/v1/data/project/${projectId}`);
      t.equal(project.body.status, 'approved');
      const after = await w.as('owner', 'PATCH', `/api/v1/data/project/${projectId}`, { name: 'Editable again' });
      t.equal(after.status, 200);
    });

    await t.test('an outcome may start a flow, with the record id as its record_id input', async (t) => {
      const memo = await w.as('owner', 'POST', '/api/v1/data/memo', { title: 'flowed memo' });
      const { id } = await submit(w, 'memo_flow', String(memo.body.id));
      const decided = await w.as('a1', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(decided.body.status, 'approved');
      const title = `approved ${String(memo.body.id)}`;
      let found = 0;
      for (let i = 0; i < 200 && found === 0; i++) {
        const list = await w.as('admin', 'GET', `/api/v1/data/memo?where=${encodeURIComponent(JSON.stringify({ title }))}`);
        found = list.body.items?.length ?? 0;
        if (found === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      t.equal(found, 1, 'the flow ran once, with record_id and the declared input');
    });

    await t.test('a double approve by the same user, sent at once, counts once', async (t) => {
      const { id } = await submit(w, 'big_project', await w.project('Twice', 2000));
      const answers = await Promise.all([1, 2, 3].map(() => w.as('a1', 'POST', `${REQ}/${id}/approve`, {})));
      t.same(answers.map((a) => a.status).sort(), [200, 409, 409]);
      const got = await w.as('owner', 'GET', `${REQ}/${id}`);
      t.equal(got.body.status, 'pending');
      t.equal(got.body.progress, '1 of 2 approvals on step Finance');
      t.equal(got.body.decisions.filter((d: { kind: string }) => d.kind === 'approve').length, 1);
    });

    await t.test('two approvers at once complete the step exactly once', async (t) => {
      const { id } = await submit(w, 'big_project', await w.project('Together', 2000));
      const answers = await Promise.all((['a1', 'a2'] as const).map((who) => w.as(who, 'POST', `${REQ}/${id}/approve`, {})));
      t.same(answers.map((a) => a.status), [200, 200]);
      const got = await w.as('owner', 'GET', `${REQ}/${id}`);
      t.equal(got.body.status, 'approved');
    });

    await t.test('one rejection vetoes the step and the request', async (t) => {
      const projectId = await w.project('Vetoed', 3000);
      const { id } = await submit(w, 'big_project', projectId);
      t.equal((await w.as('a1', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'pending');
      const veto = await w.as('a2', 'POST', `${REQ}/${id}/reject`, { comment: 'too expensive' });
      t.equal(veto.status, 200);
      t.equal(veto.body.status, 'rejected');
      t.equal(veto.body.progress, 'Rejected on step Finance');
      const late = await w.as('a3', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(late.status, 409);
      t.equal(late.body.error.code, 'INVALID_STATE');
      t.equal((await w.as('owner', 'GET', `/api/v1/data/project/${projectId}`)).body.status, 'rejected', 'onReject ran');
    });

    await t.test('the entry condition and record visibility gate submission', async (t) => {
      const small = await w.project('Small', 10);
      const refused = await w.as('owner', 'POST', REQ, { process: 'big_project', recordId: small });
      t.equal(refused.status, 409);
      t.equal(refused.body.error.code, 'INVALID_STATE');
      t.match(refused.body.error.details.reason, /entry condition/);
      const memo = await w.as('owner', 'POST', '/api/v1/data/memo', { title: 'private memo' });
      t.equal(memo.status, 201);
      const hidden = await w.as('outsider', 'POST', REQ, { process: 'memo_review', recordId: memo.body.id });
      t.equal(hidden.status, 404, 'a record the caller cannot read is 404');
      t.equal(hidden.body.error.code, 'NOT_FOUND');
      const notice = await w.as('owner', 'POST', '/api/v1/data/notice', { title: 'readable by all' });
      const readOnly = await w.as('outsider', 'POST', REQ, { process: 'notice_review', recordId: notice.body.id });
      t.equal(readOnly.status, 403, 'a record the caller may read but not edit is 403');
      t.equal(readOnly.body.error.code, 'PERMISSION_DENIED');
      const unknown = await w.as('owner', 'POST', REQ, { process: 'no_such_process', recordId: memo.body.id });
      t.equal(unknown.status, 404);
      const open = await submit(w, 'memo_review', String(memo.body.id));
      const twice = await w.as('owner', 'POST', REQ, { process: 'memo_review', recordId: memo.body.id });
      t.equal(twice.status, 409, 'one open request per record');
      t.equal(twice.body.error.details.requestId, open.id);
    });

    await t.test("a record's approval state: its lock for every reader, its requests for those who may see them", async (t) => {
      const notice = await w.as('owner', 'POST', '/api/v1/data/notice', { title: 'read by all, under review' });
      t.equal(notice.status, 201);
      const url = `/api/v1/approvals/records/notice/${String(notice.body.id)}`;
      const before = await w.as('owner', 'GET', url);
      t.equal(before.status, 200);
      t.same(before.body, { lock: null, requests: [] }, 'no request yet: no lock');
      const { id } = await submit(w, 'notice_review', String(notice.body.id));

      const owner = await w.as('owner', 'GET', url);
      t.same(owner.body.lock, { requestId: id, process: 'notice_review', processLabel: 'Notice Review', step: { index: 0, name: 'review', label: 'Review' }, approver: false }, 'pending: locked, and the submitter is no approver');
      t.same(owner.body.requests.map((r: { id: string; status: string; progress: string }) => [r.id, r.status, r.progress]), [[id, 'pending', '0 of 1 approvals on step Review']], "the submitter sees its request's progress");
      const approver = await w.as('a1', 'GET', url);
      t.equal(approver.body.lock.approver, true, 'an approver of the current step is told it may still edit');
      t.same(approver.body.requests.map((r: { id: string }) => r.id), [id], 'and sees the request');
      const outsider = await w.as('outsider', 'GET', url);
      t.equal(outsider.status, 200, 'a reader of the record');
      t.equal(outsider.body.lock.requestId, id, 'learns of the lock (a write would tell it too)');
      t.same(outsider.body.requests, [], 'but not the request it has no part in');

      const memo = await w.as('owner', 'POST', '/api/v1/data/memo', { title: 'private, under review' });
      await submit(w, 'memo_review', String(memo.body.id));
      const hidden = await w.as('outsider', 'GET', `/api/v1/approvals/records/memo/${String(memo.body.id)}`);
      t.equal(hidden.status, 404, 'a record the caller cannot read is 404, as on /data');
      t.equal(hidden.body.error.code, 'NOT_FOUND');
      t.notOk(JSON.stringify(hidden.body).includes('memo_review'), 'and says nothing of its lock');
      const missing = await w.as('owner', 'GET', '/api/v1/approvals/records/memo/no-such-record');
      t.equal(missing.status, 404, 'a missing record too');
      const unknown = await w.as('owner', 'GET', '/api/v1/approvals/records/no_such_object/x1');
      t.equal(unknown.status, 404, 'and an object the API does not serve');
      t.equal(unknown.body.error.code, 'NOT_FOUND');
      const anonymous = await w.rt.inject({ method: 'GET', url });
      t.equal(anonymous.statusCode, 401, 'a session is needed');

      t.equal((await w.as('a1', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'approved');
      const after = await w.as('owner', 'GET', url);
      t.equal(after.body.lock, null, 'decided: the lock is lifted');
      t.same(after.body.requests.map((r: { status: string; progress: string }) => [r.status, r.progress]), [['approved', 'Approved (1 of 1 steps)']]);
      const decider = await w.as('a1', 'GET', url);
      t.same(decider.body.requests.map((r: { id: string }) => r.id), [id], 'the approver who decided still sees it');
      t.same(decider.body.requests[0].people, { [users.owner.id]: 'ap-owner' }, "a summary names its submitter (people: id -> name)");
      const detail = await w.as('owner', 'GET', `${REQ}/${id}`);
      t.equal(detail.body.people[users.a1.id], 'ap-a1', 'a request names the approvers and deciders it mentions');
      t.equal(detail.body.people[users.owner.id], 'ap-owner');
      t.notOk(users.outsider.id in detail.body.people, 'and no one else');
    });

    await t.test('quorum 5 with 2 approvers clamps to 2, reported at load and at run time', async (t) => {
      const created = await w.as('admin', 'POST', '/api/v1/approvals/processes', {
        name: 'pair_review', object: 'project', steps: [{ name: 'pair', approvers: { users: [users.a1.id, users.a2.id] }, minApprovals: 5 }],
      });
      t.equal(created.status, 201);
      t.same(created.body.clamps, [{ path: 'steps[0].minApprovals', declared: 5, effective: 2, reason: '5 approvals asked of 2 approver(s): clamped to 2 so that the step cannot deadlock' }]);
      const member = await w.as('owner', 'POST', '/api/v1/approvals/processes', { name: 'sneaky', object: 'project', steps: [{ name: 'x', approvers: { users: [users.owner.id] } }] });
      t.equal(member.status, 403, 'only admins create processes');
      const { id, steps, progress } = await submit(w, 'pair_review', await w.project('Pair', 1));
      t.equal(steps[0]!.required, 2);
      t.same(steps[0]!.clamps, [{ scope: 'step', declared: 5, effective: 2, eligible: 2, reason: '5 approval(s) asked of 2 eligible approver(s): clamped to 2' }]);
      t.equal(progress, '0 of 2 approvals on step Pair');
      t.equal((await w.as('a1', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'pending');
      t.equal((await w.as('a2', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'approved');
    });

    await t.test('per-group sign-off waits for every group', async (t) => {
      const created = await w.as('admin', 'POST', '/api/v1/approvals/processes', {
        name: 'boards', object: 'project',
        steps: [{ name: 'board', signOff: 'perGroup', approvers: { groups: [{ name: 'legal', users: [users.boss.id] }, { name: 'money', positions: ['finance'], minApprovals: 2 }] } }],
      });
      t.equal(created.status, 201);
      const { id, progress } = await submit(w, 'boards', await w.project('Board', 1));
      t.equal(progress, '0 of 2 groups signed off on step Board (Legal 0 of 1, Money 0 of 2)');
      await w.as('a1', 'POST', `${REQ}/${id}/approve`, {});
      const two = await w.as('a2', 'POST', `${REQ}/${id}/approve`, {});
      t.equal(two.body.status, 'pending', 'money signed off, legal not yet');
      t.equal(two.body.progress, '1 of 2 groups signed off on step Board (Legal 0 of 1, Money 2 of 2)');
      t.equal((await w.as('boss', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'approved');
    });

    await t.test('a process body is checked like a declaration: unknown keys and bad CEL are named', async (t) => {
      const res = await w.as('admin', 'POST', '/api/v1/approvals/processes', {
        name: 'bad_when', object: 'project', when: 'record.budget + "x"', steps: [{ name: 's', approvers: { users: ['u1'] } }], onApprove: { flow: 'f' },
      });
      t.equal(res.status, 400);
      t.equal(res.body.error.code, 'VALIDATION_ERROR');
      const paths = res.body.error.details.errors.map((e: { path: string }) => e.path).sort();
      t.same(paths, ['onApprove.flow', 'when']);
    });

    await t.test('the fourth send-back is refused (maxRevisions 3)', async (t) => {
      const { id } = await submit(w, 'big_project', await w.project('Revised', 4000));
      for (let round = 1; round <= 3; round++) {
        const back = await w.as('a1', 'POST', `${REQ}/${id}/send-back`, { comment: `round ${round}` });
        t.equal(back.status, 200);
        t.equal(back.body.status, 'sent_back');
        t.equal(back.body.revisions, round);
        const notMine = await w.as('a1', 'POST', `${REQ}/${id}/resubmit`, {});
        t.equal(notMine.status, 403, 'only the submitter resubmits');
        const again = await w.as('owner', 'POST', `${REQ}/${id}/resubmit`, {});
        t.equal(again.status, 200);
        t.equal(again.body.status, 'pending');
        t.equal(again.body.cycle, round + 1);
      }
      const fourth = await w.as('a1', 'POST', `${REQ}/${id}/send-back`, { comment: 'once more' });
      t.equal(fourth.status, 409);
      t.equal(fourth.body.error.code, 'INVALID_STATE');
      t.equal(fourth.body.error.details.maxRevisions, 3);
    });

    await t.test('decisions carry a comment and attachments, stored with the request', async (t) => {
      const { id } = await submit(w, 'big_project', await w.project('Attached', 9000));
      const content = Buffer.from('quote: 9000 EUR').toString('base64');
      const asked = await w.as('a1', 'POST', `${REQ}/${id}/request-info`, { comment: 'Which supplier?', attachments: [{ name: 'quote.txt', contentType: 'text/plain', content }] });
      t.equal(asked.status, 200);
      const decision = asked.body.decisions.find((d: { kind: string }) => d.kind === 'request-info');
      t.equal(decision.comment, 'Which supplier?');
      t.equal(decision.attachments[0].name, 'quote.txt');
      t.equal(decision.attachments[0].size, 15);
      const answered = await w.as('owner', 'POST', `${REQ}/${id}/request-info`, { comment: 'ACME Ltd' });
      t.equal(answered.status, 200, 'the submitter answers');
      t.same(answered.body.decisions.filter((d: { kind: string }) => d.kind === 'request-info').map((d: { userId: string; comment: string }) => [d.userId, d.comment]), [[users.a1.id, 'Which supplier?'], [users.owner.id, 'ACME Ltd']]);
      const stranger = await w.as('outsider', 'POST', `${REQ}/${id}/request-info`, { comment: 'hi' });
      t.equal(stranger.status, 404);
      const file = await w.rt.inject({ method: 'GET', url: `${REQ}/${id}/attachments/${decision.attachments[0].id}`, headers: { authorization: `Bearer ${w.users.owner.token}` } });
      t.equal(file.statusCode, 200);
      t.equal(file.body, 'quote: 9000 EUR');
      const outsider = await w.rt.inject({ method: 'GET', url: `${REQ}/${id}/attachments/${decision.attachments[0].id}`, headers: { authorization: `Bearer ${w.users.outsider.token}` } });
      t.equal(outsider.statusCode, 404);
      const big = await w.as('a1', 'POST', `${REQ}/${id}/approve`, { attachments: [{ name: 'x', contentType: 'text/plain', content: 'not base64!' }] });
      t.equal(big.status, 400);
      const reminded = await w.as('owner', 'POST', `${REQ}/${id}/remind`, {});
      t.equal(reminded.status, 200);
      const tooSoon = await w.as('owner', 'POST', `${REQ}/${id}/remind`, {});
      t.equal(tooSoon.status, 429);
      const recalled = await w.as('owner', 'POST', `${REQ}/${id}/recall`, {});
      t.equal(recalled.body.status, 'recalled');
    });

    await t.test('reassign hands an approver\'s place to another user', async (t) => {
      const { id } = await submit(w, 'big_project', await w.project('Handed over', 9000));
      const nobody = await w.as('a1', 'POST', `${REQ}/${id}/reassign`, { to: 'no-such-user' });
      t.equal(nobody.status, 400, 'a place never goes to an id that names no user');
      t.equal(nobody.body.error.details.errors[0].path, 'to');
      const others = await w.as('a1', 'POST', `${REQ}/${id}/reassign`, { to: users.boss.id, from: users.a2.id });
      t.equal(others.status, 403, "only admins move another approver's place");
      const moved = await w.as('a1', 'POST', `${REQ}/${id}/reassign`, { to: users.boss.id, comment: 'on leave' });
      t.equal(moved.status, 200);
      t.ok(moved.body.steps[0].approvers.includes(users.boss.id));
      t.notOk(moved.body.steps[0].approvers.includes(users.a1.id));
      t.equal((await w.as('a1', 'POST', `${REQ}/${id}/approve`, {})).status, 403, 'the old approver no longer decides');
      t.equal((await w.as('boss', 'POST', `${REQ}/${id}/approve`, {})).body.progress, '1 of 2 approvals on step Finance');
    });

    await t.test('an SLA breach reassigns to the escalation target (the job runs)', async (t) => {
      const created = await w.as('admin', 'POST', '/api/v1/approvals/processes', {
        name: 'quick', object: 'project', steps: [{ name: 'quick', approvers: { users: [users.a1.id] }, slaHours: 0.0003, escalateTo: { users: [users.boss.id] } }],
      });
      t.equal(created.status, 201);
      const { id } = await submit(w, 'quick', await w.project('Urgent', 1));
      let got = await w.as('owner', 'GET', `${REQ}/${id}`);
      for (let i = 0; i < 60 && !got.body.escalated; i++) {
        await new Promise((r) => setTimeout(r, 250));
        got = await w.as('owner', 'GET', `${REQ}/${id}`);
      }
      t.equal(got.body.escalated, true);
      t.same(got.body.steps[0].approvers, [users.boss.id]);
      const escalation = got.body.decisions.find((d: { kind: string }) => d.kind === 'escalate');
      t.same(escalation.detail, { from: [users.a1.id], to: [users.boss.id] });
      // The job tells the target once the escalation is committed: its notification may follow the request's change.
      const escalated = (inbox: { body: { items?: Array<{ title: string }> } }) => inbox.body.items?.some((n) => n.title === 'Escalated to you: Quick') ?? false;
      let inbox = await w.as('boss', 'GET', '/api/v1/notifications');
      for (let i = 0; i < 60 && !escalated(inbox); i++) {
        await new Promise((r) => setTimeout(r, 250));
        inbox = await w.as('boss', 'GET', '/api/v1/notifications');
      }
      t.ok(escalated(inbox), 'the target is notified');
      t.equal((await w.as('boss', 'POST', `${REQ}/${id}/approve`, {})).body.status, 'approved');
    });

    await t.test('lists by box; requests are read-only through /data', async (t) => {
      const mine = await w.as('owner', 'GET', `${REQ}?box=mine&limit=100`);
      t.equal(mine.status, 200);
      t.ok(mine.body.items.length >= 8);
      t.ok(mine.body.items.every((r: { submittedBy: string }) => r.submittedBy === users.owner.id));
      const pendingMine = mine.body.items.filter((r: { status: string }) => r.status === 'pending');
      t.ok(pendingMine.some((r: { progress: string }) => r.progress === '1 of 2 approvals on step Finance'), 'list items carry their progress');
      const notAdmin = await w.as('owner', 'GET', `${REQ}?box=all`);
      t.equal(notAdmin.status, 403);
      const all = await w.as('admin', 'GET', `${REQ}?box=all&limit=100`);
      t.equal(all.body.items.length, mine.body.items.length);
      const someId = mine.body.items[0].id;
      const write = await w.as('admin', 'PATCH', `/api/v1/data/sys_approval_request/${someId}`, { status: 'approved' });
      t.equal(write.status, 403);
      t.equal(write.body.error.code, 'SYSTEM_OBJECT_READ_ONLY');
      const read = await w.as('admin', 'GET', `/api/v1/data/sys_approval_request/${someId}`);
      t.equal(read.status, 200, 'admins read request rows through /data');
      t.equal(read.body.owner_id, users.owner.id);
      const approverNotified = await w.as('a2', 'GET', '/api/v1/notifications?limit=100');
      t.ok(approverNotified.body.items.some((n: { title: string }) => n.title === 'Approval requested: Big Project'));
    });
  });
});
