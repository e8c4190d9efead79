/** The pure core of a step: approvers resolved, quorums clamped, votes counted once, progress text. */
import t from 'tap';
import type { ResolvedApprovalStep } from '../../metadata/approvalTypes.ts';
import { buildSlate, progressText, replaceApprover, tally } from '../../plugins/approvals/stepSlate.ts';

const step = (over: Partial<ResolvedApprovalStep>): ResolvedApprovalStep => ({
  name: 'finance', label: 'Finance', users: [], positions: [], groups: [], signOff: 'quorum', minApprovals: 1, slaHours: null, escalateTo: null, ...over,
});

t.test('quorum 2 of 3 completes on the second approval; one reject vetoes', async (t) => {
  const slate = buildSlate(step({ positions: ['finance'], minApprovals: 2 }), 0, new Map([['finance', ['a', 'b', 'c', 'sub']]]), 'sub');
  t.same(slate.users, ['a', 'b', 'c'], 'the submitter never approves its own request');
  t.equal(progressText(slate, tally(slate, [])), '0 of 2 approvals on step Finance');
  t.equal(tally(slate, [{ userId: 'a', kind: 'approve' }]).complete, false);
  t.equal(tally(slate, [{ userId: 'a', kind: 'approve' }, { userId: 'a', kind: 'approve' }]).approvals, 1, 'one vote per approver');
  t.equal(tally(slate, [{ userId: 'a', kind: 'approve' }, { userId: 'b', kind: 'approve' }]).complete, true);
  const vetoed = tally(slate, [{ userId: 'a', kind: 'approve' }, { userId: 'b', kind: 'approve' }, { userId: 'c', kind: 'reject' }]);
  t.same([vetoed.rejected, vetoed.complete], [true, false]);
  t.equal(tally(slate, [{ userId: 'x', kind: 'approve' }, { userId: 'y', kind: 'reject' }]).approvals, 0, 'votes of non-approvers never count');
});

t.test('a quorum above the eligible approvers is clamped and reported', async (t) => {
  const slate = buildSlate(step({ users: ['a', 'b'], minApprovals: 5 }), 0, new Map(), 'sub');
  t.equal(slate.required, 2);
  t.same(slate.clamps, [{ scope: 'step', declared: 5, effective: 2, eligible: 2, reason: '5 approval(s) asked of 2 eligible approver(s): clamped to 2' }]);
  const empty = buildSlate(step({ positions: ['nobody'], minApprovals: 2 }), 0, new Map(), 'sub');
  t.equal(empty.required, 1, 'never below one: an empty step waits for a reassign rather than passing unseen');
});

t.test('per-group sign-off: every group reaches its own quorum', async (t) => {
  const slate = buildSlate(step({
    signOff: 'perGroup',
    groups: [{ name: 'legal', label: 'Legal', users: ['l1', 'l2'], positions: [], minApprovals: 2 }, { name: 'ops', label: 'Ops', users: [], positions: ['ops'], minApprovals: 1 }],
  }), 0, new Map([['ops', ['o1', 'o2']]]), 'sub');
  t.same(slate.users, ['l1', 'l2', 'o1', 'o2']);
  const some = tally(slate, [{ userId: 'o1', kind: 'approve' }, { userId: 'o2', kind: 'approve' }, { userId: 'l1', kind: 'approve' }]);
  t.equal(some.complete, false, 'three approvals, but legal has one of two');
  t.equal(progressText(slate, some), '1 of 2 groups signed off on step Finance (Legal 1 of 2, Ops 2 of 1)');
  t.equal(tally(slate, [{ userId: 'o1', kind: 'approve' }, { userId: 'l1', kind: 'approve' }, { userId: 'l2', kind: 'approve' }]).complete, true);
  const moved = replaceApprover(slate, 'l2', 'l3');
  t.same(moved.groups[0]!.users, ['l1', 'l3']);
  t.same(moved.users, ['l1', 'l3', 'o1', 'o2']);
});
