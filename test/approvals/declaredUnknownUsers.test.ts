/**
 * A process declared in approvals/<name>.json naming user ids that are no user of an environment:
 * boot succeeds (ids are per environment), and the first use of the approvals catalog in that
 * environment logs one warning naming the process, its file and each unknown id with its path.
 * Both drivers.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';

t.test('a declared process naming unknown users is reported once per environment, not refused', async (t) => {
  await eachBackend(t, ['apunknown'], async (t, site) => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
    const rt = await site.boot({ config: { apps: ['test/approvals/fixtures/unknownUsers'] }, logger });
    const admin = await signIn(rt);
    const reports = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.process === 'memo_signoff' && Array.isArray(entry.unknown));
    t.same(reports(), [], 'nothing is reported before the catalog is used');

    const listed = await sendAs(rt, admin.token, 'GET', '/api/v1/approvals/processes');
    t.equal(listed.status, 200, 'the process is served');
    t.same(listed.body.items.map((p: { name: string }) => p.name), ['memo_signoff'], 'and listed');
    const [report, ...more] = reports();
    t.same(more, [], 'one warning');
    t.equal(report?.level, 40, 'at warn level');
    t.match(String(report?.source), /test\/approvals\/fixtures\/unknownUsers\/approvals\/memo_signoff\.json$/, 'naming the declaring file');
    t.equal(report?.environmentId, site.ids[0], 'and the environment');
    t.same(report?.unknown, [
      { path: 'steps[0].approvers.users[0]', id: 'ghost-approver-1' },
      { path: 'steps[0].escalateTo.users[0]', id: 'ghost-escalation-2' },
    ], 'each unknown id with its path');
    t.match(String(report?.msg), /process memo_signoff .*memo_signoff\.json.*steps\[0\]\.approvers\.users\[0\] 'ghost-approver-1'/, 'the message names process, file, path and id');

    await sendAs(rt, admin.token, 'GET', '/api/v1/approvals/processes');
    t.equal(reports().length, 1, 'a second use in the same environment reports nothing more');
  });
});
