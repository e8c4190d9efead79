/**
 * The console's inboxes in Debian's Chromium against `osr start`, on SQLite and PostgreSQL: a
 * two-step approval (the submitter submits from the record page, approver 1 approves from the
 * inbox, approver 2 sends it back with a comment, the submitter resubmits, both approve; the
 * record's lock shown while pending and lifted after); a reassignment and a rejection, each with its
 * comment; a model's proposals (made through the conversation API against a local
 * OpenAI-compatible server) seen pending by their proposer, who lacks ai:approve, and decided by an
 * approver from the diff screen (the created record then in the list view); the unread count of the
 * notifications going up and down as they are read. axe-core checks every screen; the SQLite run
 * takes the screenshots docs/console.md shows.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { startFakeProvider, type FakeProvider } from '../ai/fakeProvider.ts';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { DESK_APP, startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';

const ASSIST_APP = join(DESK_APP, '..', 'assist');
const NEW_PASSWORD = 'a-new-admin-password-1';
const PASSWORD = 'inbox-password-123';
const REQ = '/approvals/requests';

interface User { id: string; email: string; token: string }
type Check = (t: Test, screen: string) => Promise<unknown>;
interface Run {
  server: ConsoleServer;
  page: Page;
  fake: FakeProvider;
  admin: string;
  sam: User;
  ann: User;
  bob: User;
  cy: User;
  accessible: Check;
  shoot: (name: string) => Promise<void>;
  as(user: User): Promise<void>;
}

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const fake = await startFakeProvider();
      t.teardown(() => fake.close());
      const server = await startConsoleServer(t, c.name, {
        apps: [DESK_APP, ASSIST_APP],
        plugins: { ai: { providers: [{ id: 'fake', baseURL: fake.baseURL, models: ['m1'] }], defaultModel: 'fake/m1' } },
      });
      const { page, errors, foreign } = await openPage(context);
      const { token: admin } = await adminFirstRun(server, page, NEW_PASSWORD);
      const must = async (path: string, body: unknown) => {
        const res = await server.api('POST', path, body, admin);
        if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body as { id: string };
      };
      const user = async (key: string, name: string, keys: string[]): Promise<User> => {
        const email = `${key}@example.com`;
        const created = await server.api('POST', '/auth/admin/create-user', { email, name, password: PASSWORD, mustChangePassword: false }, admin);
        if (created.status !== 201) throw new Error(`create-user ${key}: ${JSON.stringify(created.body)}`);
        const id = String(created.body.user.id);
        if (keys.length > 0) {
          const set = await must('/data/sys_permission_set', { name: `ai_${key}`, permissions: keys });
          await must('/data/sys_user_permission_set', { user_id: id, permission_set: set.id });
        }
        const signedIn = await server.api('POST', '/auth/sign-in', { email, password: PASSWORD });
        return { id, email, token: String(signedIn.body.token) };
      };
      const sam = await user('sam', 'Sam Submitter', ['ai:chat', 'ai:read']);
      const ann = await user('ann', 'Ann Approver', []);
      const bob = await user('bob', 'Bob Approver', ['ai:chat', 'ai:read', 'ai:approve']);
      const cy = await user('cy', 'Cy Checker', []);
      const as = async (who: User) => {
        await page.locator('#sign-out').click();
        await signIn(page, who.email, PASSWORD);
        await page.locator('#notifications-link').waitFor(WAIT);
      };
      const run: Run = {
        server, page, fake, admin, sam, ann, bob, cy, as,
        accessible: async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`),
        shoot: async (name) => { if (c.name === 'sqlite') await screenshot(page, name); },
      };

      await twoStepApproval(t, run);
      await reassignAndReject(t, run);
      await aiActions(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

/** The unread count the header shows (0 when it shows none), once it settles on `expected`. */
async function unreadCount(page: Page, expected: number): Promise<number> {
  const badge = page.locator('#unread-count');
  if (expected === 0) await badge.waitFor({ state: 'detached', ...WAIT });
  else await page.locator('#unread-count', { hasText: String(expected) }).waitFor(WAIT);
  return (await badge.count()) === 0 ? 0 : Number(await badge.textContent());
}

async function twoStepApproval(t: Test, run: Run): Promise<void> {
  const { server, page, admin, sam, ann, bob, as, accessible, shoot } = run;
  await t.test('a two-step approval: submit, approve, send back, resubmit, approve twice; the lock shown and lifted', async (t) => {
    const process = await server.api('POST', '/approvals/processes', {
      name: 'project_budget', label: 'Project budget', object: 'project',
      steps: [{ name: 'review', approvers: { users: [ann.id] } }, { name: 'sign_off', approvers: { users: [bob.id] } }],
    }, admin);
    t.equal(process.status, 201, 'an admin declares the two-step process');
    const project = await server.api('POST', '/data/project', { name: 'Solar roof', budget: 1000 }, sam.token);
    t.equal(project.status, 201);
    const recordUrl = `${server.url}/console/records/project/${project.body.id}`;
    const openRecord = async () => {
      await page.goto(recordUrl);
      await page.locator('h1', { hasText: 'Solar roof' }).waitFor(WAIT);
      await page.locator('.record-approvals').waitFor(WAIT);
    };

    // The submitter submits from the record page; the record is locked.
    await as(sam);
    t.equal(await unreadCount(page, 0), 0, 'the submitter starts with no unread notification');
    await openRecord();
    t.equal(await page.locator('#record-lock').count(), 0, 'not locked before it is submitted');
    t.equal(await page.locator('#submit-approval').textContent(), 'Submit for approval (Project budget)', "the object's process is offered");
    await accessible(t, 'record page with its approval section');
    await page.locator('#submit-approval').click();
    await page.locator('#record-lock').waitFor(WAIT);
    const requests = await server.api('GET', `${REQ}?box=mine`, undefined, sam.token);
    const requestId = String(requests.body.items[0].id);
    t.equal(requests.body.items[0].status, 'pending', 'the API holds a pending request');
    t.match(await page.locator('#record-lock').textContent(), /^Locked: this record awaits approval \(Project budget, step Review\)/, 'the lock is shown');
    t.equal(await page.locator('#field-name').isDisabled(), true, 'the form is disabled');
    t.equal(await page.locator('#save-record').count(), 0, 'and cannot be saved');
    t.equal(await page.locator(`#progress-${requestId}`).textContent(), '0 of 1 approvals on step Review', "the request's progress, as the server says it");
    t.equal(await page.locator('#submit-approval').count(), 0, 'no second submission while one is open');
    const locked = await server.api('PATCH', `/data/project/${project.body.id}`, { budget: 1 }, sam.token);
    t.equal(locked.body.error?.code, 'RECORD_LOCKED', 'the API refuses the write the page does not offer');
    await accessible(t, 'locked record');
    await shoot('approval-record');

    // Approver 1 approves from the inbox.
    await as(ann);
    t.equal(await unreadCount(page, 1), 1, 'approver 1 is notified');
    await page.locator('#nav a', { hasText: 'Approvals' }).click();
    await page.locator(`#assigned-requests li[data-id="${requestId}"]`).waitFor(WAIT);
    t.equal(await page.locator('#assigned-requests li').count(), 1, 'one request waits for approver 1');
    await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Solar roof' }).waitFor(WAIT);
    t.match(await page.locator(`#assigned-requests li[data-id="${requestId}"]`).textContent(), /Project budget.*0 of 1 approvals on step Review.*Project Solar roof · submitted by Sam Submitter/, 'the process, its progress, the record by its name, the submitter by hers');
    await accessible(t, 'approvals inbox');
    await shoot('approvals-inbox');
    await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Project budget' }).click();
    await page.locator('[data-action="approve"]').waitFor(WAIT);
    await accessible(t, 'approval request');
    await page.locator('.approval-comment').fill('Numbers look right');
    await page.locator('[data-action="approve"]').click();
    await page.locator(`#progress-${requestId}`, { hasText: 'Sign Off' }).waitFor(WAIT);
    t.equal(await page.locator(`#progress-${requestId}`).textContent(), '0 of 1 approvals on step Sign Off', 'the request moves to the second step');
    t.equal(await page.locator('[data-action="approve"]').count(), 0, 'approver 1 has nothing more to decide');
    await page.locator('#nav a', { hasText: 'Approvals' }).click();
    await page.locator('#assigned-title + .empty').waitFor(WAIT);
    t.equal(await page.locator('#assigned-title + .empty').textContent(), 'Nothing waits for your decision.', "and the inbox is empty");

    // Approver 2 sends it back with a comment.
    await as(bob);
    t.equal(await unreadCount(page, 1), 1, 'approver 2 is notified when the second step starts');
    await page.locator('#nav a', { hasText: 'Approvals' }).click();
    await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Project budget' }).click();
    await page.locator('[data-action="send-back"]').waitFor(WAIT);
    await page.locator('.approval-comment').fill('Add the inverter to the budget');
    await page.locator('[data-action="send-back"]').click();
    await page.locator('.approval-request[data-status="sent_back"]').waitFor(WAIT);
    t.match(await page.locator(`#progress-${requestId}`).textContent(), /^Sent back for revision on step Sign Off \(1 of 3 revisions\)$/, 'sent back');

    // The submitter reads why, sees the lock lifted, revises and resubmits.
    await as(sam);
    t.equal(await unreadCount(page, 1), 1, 'the submitter is notified of the send-back');
    await page.locator('#notifications-link').click();
    await page.locator('.notification-list li.unread').first().waitFor(WAIT);
    t.match(await page.locator('.notification-list li.unread h2').first().textContent(), /^Sent back: Project budget/, 'the notification says what happened');
    await accessible(t, 'notifications');
    await shoot('notifications');
    await page.locator('.notification-list li.unread h2 a').first().click();
    await page.locator('.approval h1', { hasText: 'Project budget' }).waitFor(WAIT);
    t.equal(await unreadCount(page, 0), 0, 'opening it marks it read: the count goes down');
    t.equal(new URL(page.url()).pathname, `/console/approvals/${requestId}`, 'it opens the request');
    t.same(await page.locator('.approval-history li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-kind'))), ['submit', 'approve', 'send-back'], 'the history so far');
    t.equal(await page.locator('.approval-history li[data-kind="send-back"] .decision-comment').textContent(), 'Add the inverter to the budget', "with approver 2's comment");
    t.equal(await page.locator('.approval-history li[data-kind="approve"] .decision-comment').textContent(), 'Numbers look right');
    await openRecord();
    t.equal(await page.locator('#record-lock').count(), 0, 'sent back: the lock is lifted for the revision');
    t.equal(await page.locator('#field-budget').isDisabled(), false);
    await page.locator('#field-budget').fill('1400');
    await page.locator('#save-record').click();
    await page.locator('#saved').waitFor(WAIT);
    t.equal((await server.api('GET', `/data/project/${project.body.id}`, undefined, sam.token)).body.budget, 1400, 'the revision is saved');
    await page.locator('.approval-comment').fill('Inverter added');
    await page.locator('[data-action="resubmit"]').click();
    await page.locator('#record-lock').waitFor(WAIT);
    t.equal(await page.locator(`#progress-${requestId}`).textContent(), '0 of 1 approvals on step Review', 'resubmitted: from the first step again');
    t.equal(await page.locator('#field-budget').isDisabled(), true, 'and locked again');

    // Both approve.
    for (const approver of [ann, bob]) {
      await as(approver);
      await page.locator('#nav a', { hasText: 'Approvals' }).click();
      await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Project budget' }).click();
      await page.locator('[data-action="approve"]').waitFor(WAIT);
      await page.locator('[data-action="approve"]').click();
      await page.locator('[data-action="approve"]').waitFor({ state: 'detached', ...WAIT });
    }
    const decided = await server.api('GET', `${REQ}/${requestId}`, undefined, sam.token);
    t.equal(decided.body.status, 'approved', 'the API holds the request approved');
    await accessible(t, 'approved request');

    // The submitter sees it approved, the lock lifted, the whole history.
    await as(sam);
    t.equal(await unreadCount(page, 1), 1, 'the submitter is notified of the approval');
    await openRecord();
    t.equal(await page.locator('#record-lock').count(), 0, 'approved: the lock is lifted');
    t.equal(await page.locator('#field-name').isDisabled(), false, 'the form is enabled again');
    t.equal(await page.locator('#save-record').count(), 1, 'and can be saved');
    t.equal(await page.locator(`#progress-${requestId}`).textContent(), 'Approved (2 of 2 steps)', 'the progress says approved');
    t.same(await page.locator('.approval-history li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-kind'))),
      ['submit', 'approve', 'send-back', 'resubmit', 'approve', 'approve'], 'the whole history, in order');
    t.equal(await page.locator('#submit-approval').count(), 1, 'it may be submitted again');
    t.equal((await server.api('PATCH', `/data/project/${project.body.id}`, { budget: 1450 }, sam.token)).status, 200, 'the API agrees: the record is writable');
    await page.goto(`${server.url}/console/approvals/${requestId}`);
    await page.locator('.approval-history li').nth(5).waitFor(WAIT);
    await shoot('approval-request');
    await page.setViewportSize({ width: 390, height: 844 });
    await accessible(t, 'approval request at phone width');
    t.equal(await page.evaluate(() => { const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number }; return g.document.documentElement.scrollWidth <= g.innerWidth; }), true, 'nothing overflows a phone-width screen');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('#notifications-link').click();
    await page.locator('#mark-all-read').click();
    t.equal(await unreadCount(page, 0), 0, 'mark all read: the count goes down to none');
    t.equal((await server.api('GET', '/notifications?unread=true', undefined, sam.token)).body.total, 0, 'as the API counts');
  });
}

async function reassignAndReject(t: Test, run: Run): Promise<void> {
  const { server, page, sam, ann, cy, as, accessible } = run;
  await t.test('an approver reassigns her place with a comment; the new approver rejects with a comment', async (t) => {
    const project = await server.api('POST', '/data/project', { name: 'Heat pump', budget: 9000 }, sam.token);
    const submitted = await server.api('POST', REQ, { process: 'project_budget', recordId: project.body.id }, sam.token);
    t.equal(submitted.status, 201, 'submitted through the API');
    const requestId = String(submitted.body.id);

    await as(ann);
    await page.locator('#nav a', { hasText: 'Approvals' }).click();
    await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Project budget' }).click();
    await page.locator('[data-action="reassign"]').waitFor(WAIT);
    t.equal(await page.locator('[data-action="reassign"]').isDisabled(), true, 'reassign waits for a user');
    await page.locator('.approval-to').fill(cy.id);
    await page.locator('.approval-comment').fill('Cy knows heat pumps');
    await page.locator('[data-action="reassign"]').click();
    await page.locator('.approval-history li[data-kind="reassign"]').waitFor(WAIT);
    t.match(await page.locator('.approval-history li[data-kind="reassign"]').textContent(), /^Reassigned by you on step Review \(to Cy Checker\)/, 'the history says to whom, by name');
    t.equal(await page.locator('.approval-history li[data-kind="reassign"] .decision-comment').textContent(), 'Cy knows heat pumps', 'with the comment');
    t.equal(await page.locator('[data-action="approve"]').count(), 0, 'her place is gone, and her buttons with it');

    await as(cy);
    t.equal(await unreadCount(page, 1), 1, 'the new approver is notified');
    await page.locator('#nav a', { hasText: 'Approvals' }).click();
    await page.locator(`#assigned-requests li[data-id="${requestId}"] a`, { hasText: 'Project budget' }).click();
    await page.locator('[data-action="reject"]').waitFor(WAIT);
    await page.locator('.approval-comment').fill('Over the yearly budget');
    await page.locator('[data-action="reject"]').click();
    await page.locator('.approval-request[data-status="rejected"]').waitFor(WAIT);
    t.equal(await page.locator(`#progress-${requestId}`).textContent(), 'Rejected on step Review', 'rejected');
    t.equal(await page.locator('.approval-history li[data-kind="reject"] .decision-comment').textContent(), 'Over the yearly budget', 'with the comment');
    await accessible(t, 'rejected request');
    const state = await server.api('GET', `/approvals/records/project/${project.body.id}`, undefined, sam.token);
    t.same([state.body.lock, state.body.requests[0].status], [null, 'rejected'], 'the API agrees: rejected, and the lock lifted');
  });
}

/** One agent turn of `who` whose model calls these tools: answers the pending action ids and the conversation. */
async function proposeThrough(run: Run, who: User, calls: Array<{ name: string; args: unknown }>): Promise<{ conversation: string; pending: string[] }> {
  const created = await run.server.api('POST', '/ai/conversations', { agent: 'desk_helper', title: 'Project planning' }, who.token);
  if (created.status !== 201) throw new Error(`conversation: ${JSON.stringify(created.body)}`);
  run.fake.queue.push({ toolCalls: calls }, { content: 'Queued for approval.' });
  const turn = await run.server.api('POST', `/ai/conversations/${created.body.id}/messages`, { content: 'Plan the projects' }, who.token);
  if (turn.status !== 200) throw new Error(`turn: ${JSON.stringify(turn.body)}`);
  return { conversation: String(created.body.id), pending: turn.body.pendingActions as string[] };
}

async function aiActions(t: Test, run: Run): Promise<void> {
  const { server, page, sam, bob, as, accessible, shoot } = run;
  await t.test('AI actions: pending for the proposer, decided by an approver from the diff', async (t) => {
    const mill = await server.api('POST', '/data/project', { name: 'Wind mill', budget: 300 }, sam.token);
    t.equal(mill.status, 201);
    const { conversation, pending } = await proposeThrough(run, sam, [
      { name: 'create_record', args: { object: 'project', values: { name: 'Robot arm', budget: 2500 } } },
      { name: 'update_record', args: { object: 'project', id: mill.body.id, values: { budget: 450 } } },
    ]);
    t.equal(pending.length, 2, 'the model proposed a create and an update');
    const [create, update] = pending as [string, string];
    t.equal((await server.api('GET', '/data/project?where=' + encodeURIComponent(JSON.stringify({ name: 'Robot arm' })), undefined, sam.token)).body.items.length, 0, 'nothing is written yet');

    // The proposer, without ai:approve, sees them pending and cannot decide them.
    await as(sam);
    await page.locator('#nav a', { hasText: 'AI actions' }).click();
    await page.locator(`.action-list li[data-id="${create}"]`).waitFor(WAIT);
    t.same(await page.locator('.action-list li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-status'))), ['pending', 'pending'], 'both pending');
    await page.locator(`.action-list li[data-id="${update}"] a`, { hasText: 'Update Project Wind mill' }).waitFor(WAIT);
    t.equal(await page.locator(`.action-list li[data-id="${create}"] a`).textContent(), 'Create Project', 'each says what it does, and to which record');
    await accessible(t, 'AI actions');
    await page.locator(`.action-list li[data-id="${create}"] a`).click();
    await page.locator('#ai-waiting').waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Create Project');
    t.equal(await page.locator('#ai-waiting').textContent(), 'Waiting for a holder of ai:approve to decide. Nothing is written until then.', 'the proposer is told it waits');
    t.equal(await page.locator('#ai-approve').count() + await page.locator('#ai-reject').count(), 0, 'and is offered no decision');
    // The conversation's title is read after the action: wait for its link, then compare the whole text.
    await page.locator('#ai-conversation a').waitFor(WAIT);
    t.equal(await page.locator('#ai-conversation').textContent(), `Project planning (${conversation})`, 'from her conversation, by its title');
    t.equal(await page.locator('#ai-proposed-by').textContent(), 'you');
    await accessible(t, 'AI action as its proposer');
    const refused = await server.api('POST', `/ai/pending-actions/${create}/approve`, undefined, sam.token);
    t.equal(refused.status, 403, 'the API refuses her approval too');

    // An approver reads the diff of the update and rejects it.
    await as(bob);
    await page.locator('#nav a', { hasText: 'AI actions' }).click();
    await page.locator(`.action-list li[data-id="${update}"] a`).click();
    await page.locator('#ai-diff').waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Update Project');
    t.equal(await page.locator('#ai-proposed-by').textContent(), 'Sam Submitter', 'who proposed it');
    t.equal(await page.locator('#ai-conversation').textContent(), conversation, 'and from which conversation');
    const row = (field: string) => page.locator(`#ai-diff tr[data-field="${field}"]`);
    t.same([await row('budget').getAttribute('class'), await row('budget').locator('td.before').textContent(), await row('budget').locator('td.after').textContent()],
      ['changed', '300', '450'], 'the budget as the model saw it, and as it proposes it');
    t.same([await row('name').getAttribute('class'), await row('name').locator('td.before').textContent(), await row('name').locator('td.after').textContent()],
      [null, 'Wind mill', 'Wind mill'], 'the name unchanged');
    t.equal(await row('owner_id').count(), 0, 'no bookkeeping field');
    await accessible(t, 'AI action diff');
    await shoot('ai-action');
    await page.locator('#ai-reject').click();
    await page.locator('#ai-status-text', { hasText: 'Rejected' }).waitFor(WAIT);
    t.equal((await server.api('GET', `/data/project/${mill.body.id}`, undefined, sam.token)).body.budget, 300, 'rejected: nothing changed');

    // The approver approves the create; the record appears in the list view.
    await page.locator('.crumbs a', { hasText: 'AI actions' }).click();
    await page.locator(`.action-list li[data-id="${create}"] a`).click();
    await page.locator('#ai-approve').waitFor(WAIT);
    t.same([await row('name').locator('td.before').textContent(), await row('name').locator('td.after').textContent(), await row('name').getAttribute('class')],
      ['', 'Robot arm', 'changed'], 'a create: nothing seen, everything proposed');
    await page.locator('#ai-approve').click();
    await page.locator('#ai-status-text', { hasText: 'Applied' }).waitFor(WAIT);
    t.equal(await page.locator('#ai-approve').count(), 0, 'decided: no more buttons');
    const created = await server.api('GET', '/data/project?where=' + encodeURIComponent(JSON.stringify({ name: 'Robot arm' })), undefined, sam.token);
    t.equal(created.body.items.length, 1, 'the record is written');
    await page.locator('#ai-record', { hasText: 'Robot arm' }).waitFor(WAIT);
    t.equal(await page.locator('#ai-record').getAttribute('href'), `/console/records/project/${created.body.items[0].id}`, 'and linked');
    await page.goto(`${server.url}/console/views/project.default`);
    await page.locator(`tbody tr[data-id="${created.body.items[0].id}"]`).waitFor(WAIT);
    t.match(await page.locator(`tbody tr[data-id="${created.body.items[0].id}"]`).textContent(), /Robot arm/, 'the record appears in the list view');

    // The proposer sees the outcome.
    await as(sam);
    await page.goto(`${server.url}/console/ai-actions/${create}`);
    await page.locator('#ai-status-text', { hasText: 'Applied' }).waitFor(WAIT);
    t.equal(await page.locator('#ai-waiting').count(), 0, 'no longer waiting');
  });
}
