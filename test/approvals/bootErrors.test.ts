/** A bad approvals/<name>.json fails the boot, every problem named with its file and path. */
import t from 'tap';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

t.test('the boot fails naming each bad declaration', async (t) => {
  const error = await startTestRuntime({ config: { apps: ['test/approvals/fixtures/app', 'test/approvals/fixtures/bad'] } }).then(
    async (rt) => { await rt.close(); return null; },
    (e: Error) => e,
  );
  t.ok(error, 'the runtime did not boot');
  const text = String(error?.message);
  t.match(text, /unknown_key\.json at steps\[0\]\.approvers\.roles/);
  t.match(text, /flow_outcome\.json at onApprove\.flow/);
  t.match(text, /bad_when\.json at when/);
  t.match(text, /groups\.json at steps\[1\]\.escalateTo/);
});
