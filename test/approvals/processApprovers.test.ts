/**
 * A process created through POST /approvals/processes names approvers by user id: every id must
 * name a user of the environment, or the process is refused (400 naming each path), on SQLite and
 * PostgreSQL. Users are per environment, so an id of another environment's user is unknown here.
 */
import t from 'tap';
import { ADMIN, eachBackend, signIn } from '../auth/authHarness.ts';
import { sendAs } from '../access/accessWorld.ts';
import { buildApprovalsWorld } from './approvalsWorld.ts';

const PROCESSES = '/api/v1/approvals/processes';

t.test('approver user ids are checked against the environment', async (t) => {
  await eachBackend(t, ['approvers', 'approvers-b'], async (t, site) => {
    const w = await buildApprovalsWorld(t, site);
    const { users } = w;
    // A user of the second environment (its own identity database): its id is unknown in the first.
    const other = `/api/v1/environments/${site.ids[1]!}`;
    const otherAdmin = await signIn(w.rt, ADMIN.email, ADMIN.password, {}, `${other}/auth/sign-in`);
    const made = await sendAs(w.rt, otherAdmin.token, 'POST', `${other}/auth/admin/create-user`, { email: 'elsewhere@example.com', name: 'elsewhere', password: 'pw-elsewhere-0123456789', mustChangePassword: false });
    t.equal(made.status, 201, 'a user in the other environment');
    const foreign = String(made.body.user?.id ?? made.body.id);
    t.notOk(Object.values(users).some((u) => u.id === foreign), 'not a user of the first environment');

    const refused = await w.as('admin', 'POST', PROCESSES, {
      name: 'ghosts', object: 'project',
      steps: [
        { name: 'first', approvers: { users: [users.a1.id, 'no-such-user'] } },
        { name: 'second', signOff: 'perGroup', approvers: { groups: [{ name: 'legal', users: [foreign] }, { name: 'money', users: [users.a2.id] }] }, slaHours: 1, escalateTo: { users: ['ghost-boss'] } },
      ],
    });
    t.equal(refused.status, 400, 'refused');
    t.equal(refused.body.error.code, 'VALIDATION_ERROR', 'VALIDATION_ERROR');
    t.same(refused.body.error.details.errors, [
      { path: 'steps[0].approvers.users[1]', message: "names no user of this environment: 'no-such-user'" },
      { path: 'steps[1].approvers.groups[0].users[0]', message: `names no user of this environment: '${foreign}'` },
      { path: 'steps[1].escalateTo.users[0]', message: "names no user of this environment: 'ghost-boss'" },
    ], 'each unknown id, by path');
    t.match(refused.body.error.message, /steps\[0\]\.approvers\.users\[1\]/, 'the message names the path');
    const listed = await w.as('admin', 'GET', PROCESSES);
    t.notOk(listed.body.items.some((p: { name: string }) => p.name === 'ghosts'), 'nothing stored');

    const created = await w.as('admin', 'POST', PROCESSES, {
      name: 'known', object: 'project', steps: [{ name: 'one', approvers: { users: [users.a1.id, users.a2.id] }, slaHours: 1, escalateTo: { users: [users.boss.id] } }],
    });
    t.equal(created.status, 201, 'known users are accepted');
    t.equal(created.body.name, 'known', 'the process');
  });
});
