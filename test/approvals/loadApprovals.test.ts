/** The approvals/<name>.json loader: strict keys named by path, CEL checked against the object, outcomes, sign-off rules, clamps. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { loadApprovals } from '../../metadata/loadApprovals.ts';
import type { ResolvedAction } from '../../metadata/actionTypes.ts';
import type { ResolvedFlow } from '../../metadata/flowTypes.ts';
import { resolveApprovalProcess } from '../../metadata/resolveApprovalProcess.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const APP = `${ROOT}test/approvals/fixtures/app`;
const BAD = `${ROOT}test/approvals/fixtures/bad`;

async function context() {
  const loaded = await loadApps([APP]);
  t.same(loaded.errors, []);
  const actions = new Map<string, ResolvedAction>(loaded.apps.flatMap((a) => a.actions).map((a) => [a.name, a]));
  const flows = new Map<string, ResolvedFlow>(loaded.apps.flatMap((a) => a.flows).map((f) => [f.name, f]));
  return { objects: loaded.objects, actions: (name: string) => actions.get(name), flows: (name: string) => flows.get(name) };
}

t.test('the fixture processes load, with defaults', async (t) => {
  const { processes, errors } = await loadApprovals([{ dir: APP, app: 'approvals_fixture' }], await context());
  t.same(errors, []);
  const big = processes.find((p) => p.name === 'big_project')!;
  t.equal(big.maxRevisions, 3);
  t.equal(big.steps[0]!.signOff, 'quorum');
  t.equal(big.steps[0]!.label, 'Finance');
  t.same(big.onApprove, { action: 'mark_approved', input: { status: 'approved' } });
  t.same(big.clamps, [], 'positions are counted at run time, not at load');
  const memo = processes.find((p) => p.name === 'memo_review')!;
  t.equal(memo.maxRevisions, 3, 'maxRevisions defaults to 3');
  t.equal(memo.steps[0]!.minApprovals, 1);
  t.equal(memo.when, null);
  t.same(processes.find((p) => p.name === 'memo_flow')!.onApprove, { flow: 'memo_approved', input: { note: 'approved' } }, 'a flow outcome');
});

t.test('every problem is reported with its file and path', async (t) => {
  const { processes, errors } = await loadApprovals([{ dir: BAD, app: 'approvals_bad' }], await context());
  t.same(processes, []);
  const seen = errors.map((e) => `${String(e.details.file).split('/').pop()} ${String(e.details.path)}`).sort();
  t.same(seen, [
    'bad_when.json when',
    'flow_outcome.json onApprove.flow',
    'groups.json steps[0].approvers.users',
    'groups.json steps[0].minApprovals',
    'groups.json steps[1].approvers.groups[0].minApprovals',
    'groups.json steps[1].escalateTo',
    'groups.json steps[2].approvers',
    'misnamed.json name',
    'unknown_key.json steps[0].approvers.roles',
  ]);
  const reason = (file: string) => String(errors.find((e) => String(e.details.file).endsWith(file))!.details.reason);
  t.match(reason('bad_when.json'), /budgett/);
  t.match(reason('flow_outcome.json'), /unknown flow 'notify_team'/);
  t.ok(errors.every((e) => e.code === 'METADATA_INVALID'));
});

t.test('objects, clamps at load and per-group quorums', async (t) => {
  const ctx = await context();
  const step = { name: 's', approvers: { users: ['u1'] } };
  const unknown = resolveApprovalProcess('x.json', null, { name: 'x', object: 'projekt', steps: [step] }, ctx);
  t.same(unknown.problems, [{ path: 'object', reason: "unknown object 'projekt' (did you mean 'project'?)" }]);
  const clamped = resolveApprovalProcess('x.json', null, {
    name: 'x', object: 'project',
    steps: [
      { name: 'pair', approvers: { users: ['u1', 'u2', 'u1'] }, minApprovals: 5 },
      { name: 'boards', signOff: 'perGroup', approvers: { groups: [{ name: 'legal', users: ['u3'], minApprovals: 3 }, { name: 'ops', positions: ['ops'], minApprovals: 9 }] } },
    ],
  }, ctx);
  t.same(clamped.problems, []);
  t.same(clamped.process!.clamps.map((c) => [c.path, c.declared, c.effective]), [
    ['steps[0].minApprovals', 5, 2],
    ['steps[1].approvers.groups[0].minApprovals', 3, 1],
  ], 'users-only quorums clamp at load; a group with positions waits for run time');
  t.equal(clamped.process!.steps[0]!.minApprovals, 5, 'the declared quorum is kept; the clamp applies when counting');
});
