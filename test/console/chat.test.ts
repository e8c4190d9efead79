/**
 * The console's chat in Debian's Chromium against `osr start`, on SQLite and PostgreSQL, with a
 * local OpenAI-compatible server speaking SSE with tool calls (test/ai/fakeProvider.ts): a turn
 * streams its text into the panel while the model still writes, shows its tool calls (the object
 * queried and the rows the model received: those the user may see) and the record it proposes;
 * the proposer, without ai:approve, follows the link to the pending action and sees it pending; an
 * approver approves it and the record appears in the list view. Conversations are listed, reopened
 * with their history, and deleted; a turn stopped or failed keeps nothing and gives the message
 * back. axe-core checks every screen; the SQLite run takes the screenshots docs/console.md shows.
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
const PASSWORD = 'chat-password-123';

interface User { id: string; email: string; token: string }
interface Run {
  server: ConsoleServer;
  page: Page;
  fake: FakeProvider;
  admin: string;
  sam: User;
  bob: User;
  ann: User;
  accessible(t: Test, screen: string): Promise<unknown>;
  shoot(name: string): Promise<void>;
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
      const must = async (path: string, body: unknown, token = admin) => {
        const res = await server.api('POST', path, body, token);
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
      const bob = await user('bob', 'Bob Approver', ['ai:chat', 'ai:read', 'ai:approve']);
      const ann = await user('ann', 'Ann Member', []);
      const run: Run = {
        server, page, fake, admin, sam, bob, ann,
        accessible: async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`),
        shoot: async (name) => { if (c.name === 'sqlite') await screenshot(page, name); },
        as: async (who) => {
          await page.locator('#sign-out').click();
          await signIn(page, who.email, PASSWORD);
          await page.locator('#notifications-link').waitFor(WAIT);
        },
      };

      await streamedTurn(t, run, must);
      await conversations(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function streamedTurn(t: Test, run: Run, must: (path: string, body: unknown, token?: string) => Promise<{ id: string }>): Promise<void> {
  const { server, page, fake, sam, bob, as, accessible, shoot } = run;
  await t.test('a turn streams into the panel, shows its tool calls and proposes a record; an approver approves it', async (t) => {
    // Cases are private: sam reads her two, not the admin's.
    await must('/data/case', { subject: 'Printer jams' }, sam.token);
    await must('/data/case', { subject: 'Badge lost' }, sam.token);
    await must('/data/case', { subject: 'Payroll question' });

    await as(sam);
    await page.locator('#chat-link').click();
    await page.locator('#new-conversation').waitFor(WAIT);
    await page.locator('#no-conversations').waitFor(WAIT);
    const agents = await server.api('GET', '/meta/agent', undefined, sam.token);
    t.same(await page.locator('#chat-agent option').evaluateAll((os) => os.map((o) => (o as unknown as { textContent: string }).textContent)),
      [...agents.body.items.map((a: { label: string }) => a.label), 'No agent (the default model, no tools)'], 'the agents of /meta/agent are offered, then none');
    t.equal(await page.locator('#chat-agent').inputValue(), 'desk_helper', 'the first agent is chosen');
    await accessible(t, 'the chat without a conversation');

    await page.locator('#chat-title').fill('Robot planning');
    await page.locator('#chat-start').click();
    await page.locator('#conversation-empty').waitFor(WAIT);
    const listed = await server.api('GET', '/ai/conversations', undefined, sam.token);
    const conversation = String(listed.body.items[0].id);
    t.same([listed.body.total, listed.body.items[0].title, listed.body.items[0].agent], [1, 'Robot planning', 'desk_helper'], 'the API holds the conversation');
    t.equal(new URL(page.url()).pathname, `/console/chat/${conversation}`, 'it opens in the panel');
    t.equal(await page.locator('#conversation-title').textContent(), 'Robot planning');
    t.equal(await page.locator('#conversation-agent').textContent(), 'Desk helper');
    t.equal(await page.locator(`.conversation-list li[data-id="${conversation}"] a`).getAttribute('aria-current'), 'page', 'and is marked in the list');

    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    fake.queue.push(
      { toolCalls: [{ name: 'query_data', args: { object: 'case' } }] },
      { toolCalls: [{ name: 'create_record', args: { object: 'project', values: { name: 'Robot arm', budget: 2500 } } }] },
      { deltas: ['You have 2 open cases. ', 'I proposed the project ', 'Robot arm.'], hold: { after: 1, until: gate } },
    );
    await page.locator('#chat-message').fill('What is open, and plan a robot arm');
    await page.locator('#chat-send').click();

    // While the model still writes: the first piece of text, the tool calls, the turn not ended.
    const live = page.locator('.chat-log li.message.assistant.live');
    await live.filter({ hasText: 'You have 2 open cases.' }).waitFor(WAIT);
    t.equal(await live.locator('.text').textContent(), 'You have 2 open cases. ', 'the text arrived before the turn ended');
    t.equal(await page.locator('#chat-status').textContent(), 'Answering…', 'the panel says the model is answering');
    t.equal(await page.locator('#chat-send').isDisabled(), true, 'no second message meanwhile');
    t.equal(await page.locator('#chat-stop').count(), 1, 'the turn can be stopped');
    t.same((await server.api('GET', `/ai/conversations/${conversation}`, undefined, sam.token)).body.messages, [], 'the API has stored nothing yet: the turn is still running');
    const query = page.locator('.chat-log li.tool-call[data-tool="query_data"]');
    t.equal(await query.getAttribute('data-object'), 'case', 'the tool call names the object queried');
    t.equal(await query.locator('.tool-text').textContent(), 'Queried Cases: 2 rows', 'and the rows the model received: the two cases sam may read, not the admin\'s');
    const proposal = page.locator('.chat-log li.tool-call[data-tool="create_record"]');
    t.equal(await proposal.locator('.tool-text').textContent(), 'Proposed: Create Project', 'the proposal');
    const pendingId = String(await proposal.getAttribute('data-pending'));
    t.equal((await server.api('GET', `/ai/pending-actions/${pendingId}`, undefined, sam.token)).body.status, 'pending', 'its pending action is in the queue');
    t.equal(await page.locator('.chat-log li.message.user').textContent(), 'YouWhat is open, and plan a robot arm', "the user's message is shown");
    await accessible(t, 'a conversation while the turn streams');
    await shoot('chat-streaming');

    release();
    await page.locator('.chat-log li.live').first().waitFor({ state: 'detached', ...WAIT });
    t.equal(await page.locator('#chat-status').textContent(), '', 'the turn has ended');
    const stored = await server.api('GET', `/ai/conversations/${conversation}`, undefined, sam.token);
    t.same(stored.body.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], 'the turn is stored');
    t.equal(await page.locator('.chat-log li.live').count(), 0, 'the panel shows the stored turn');
    t.same(await page.locator('.chat-log > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('class'))),
      ['message user', 'tool-call', 'tool-call', 'message assistant'], 'the message, the two tool calls, the answer');
    t.equal(await page.locator('.chat-log li.message.assistant .text').textContent(), 'You have 2 open cases. I proposed the project Robot arm.', 'the whole answer');
    t.equal(await page.locator('#chat-send').isDisabled(), true, 'the box is empty again');
    t.notMatch(await page.locator('.chat-log').textContent() ?? '', /Printer jams|Badge lost|Payroll/, 'no row the tool read is shown');
    await accessible(t, 'a conversation after its turn');

    // The proposer, without ai:approve, follows the link and sees the action pending.
    const link = proposal.locator('a.pending-link');
    t.equal(await link.getAttribute('href'), `/console/ai-actions/${pendingId}`, 'the proposal links to its pending action');
    await link.click();
    await page.locator('#ai-waiting').waitFor(WAIT);
    t.equal(await page.locator('#ai-status-text').textContent(), 'Pending', 'pending');
    t.equal(await page.locator('#ai-approve').count(), 0, 'the proposer cannot approve it');
    await page.locator('#ai-conversation', { hasText: 'Robot planning' }).waitFor(WAIT);
    t.equal(await page.locator('#ai-conversation').textContent(), `Robot planning (${conversation})`, 'from this conversation, by its title');
    t.equal(await page.locator('#ai-conversation a').getAttribute('href'), `/console/chat/${conversation}`, 'which its proposer opens in the chat');
    await accessible(t, 'the pending action, for its proposer');

    // An approver approves it; the record appears in the list view.
    await as(bob);
    await page.goto(`${server.url}/console/ai-actions/${pendingId}`);
    await page.locator('#ai-approve').waitFor(WAIT);
    await page.locator('#ai-approve').click();
    await page.locator('#ai-status-text', { hasText: 'Applied' }).waitFor(WAIT);
    const created = await server.api('GET', '/data/project?where=' + encodeURIComponent(JSON.stringify({ name: 'Robot arm' })), undefined, bob.token);
    t.equal(created.body.items.length, 1, 'the record is written');
    await page.goto(`${server.url}/console/views/project.default`);
    const row = page.locator(`tbody tr[data-id="${created.body.items[0].id}"]`);
    await row.waitFor(WAIT);
    t.match(await row.textContent(), /Robot arm/, 'and appears in the list view');
  });
}

async function conversations(t: Test, run: Run): Promise<void> {
  const { server, page, fake, sam, ann, as, accessible, shoot } = run;
  await t.test('conversations: listed, reopened with their history, deleted; a stopped or failed turn keeps nothing', async (t) => {
    await as(sam);
    await page.locator('#chat-link').click();
    await page.locator('.conversation-list li').first().waitFor(WAIT);
    const first = String(await page.locator('.conversation-list li').first().getAttribute('data-id'));

    // A second conversation, without an agent: the default model answers, with no tools.
    await page.locator('#chat-agent').selectOption('');
    await page.locator('#chat-title').fill('Quick question');
    await page.locator('#chat-start').click();
    await page.locator('#conversation-title', { hasText: 'Quick question' }).waitFor(WAIT);
    t.equal(await page.locator('#conversation-agent').textContent(), 'No agent');
    const second = new URL(page.url()).pathname.split('/').pop()!;
    fake.queue.push({ deltas: ['Hello ', 'there.'], gapMs: 50 });
    await page.locator('#chat-message').fill('Hi');
    await page.locator('#chat-message').press('Enter');
    await page.locator('.chat-log li.message.assistant:not(.live)').waitFor(WAIT);
    t.equal(await page.locator('.chat-log li.message.assistant .text').textContent(), 'Hello there.', 'Enter sends; the answer is shown');
    t.same(fake.requests.at(-1)!.body.tools, undefined, 'no tools without an agent');

    // A stopped turn keeps nothing and gives the message back.
    fake.queue.push({ deltas: ['Thinking'], thenHang: true });
    await page.locator('#chat-message').fill('Think long');
    await page.locator('#chat-send').click();
    await page.locator('.chat-log li.message.assistant.live').waitFor(WAIT);
    await page.locator('#chat-stop').click();
    await page.locator('.chat .notice.error').waitFor(WAIT);
    t.match(await page.locator('.chat .notice.error').textContent(), /Stopped: nothing of this turn was kept/, 'stopped');
    t.equal(await page.locator('#chat-message').inputValue(), 'Think long', 'the message is back in the box');
    t.equal(await fake.waitClosedEarly(5000), true, 'the provider request was closed');
    // A failed turn too.
    fake.queue.push({ status: 500 });
    await page.locator('#chat-send').click();
    await page.locator('.chat .notice.error', { hasText: 'AI_PROVIDER_ERROR' }).waitFor(WAIT);
    t.equal(await page.locator('#chat-message').inputValue(), 'Think long', 'a failed turn gives the message back too');
    t.equal((await server.api('GET', `/ai/conversations/${second}`, undefined, sam.token)).body.messages.length, 2, 'only the answered turn is stored');
    await accessible(t, 'a conversation with a failed turn');

    // Listed, newest first; the first reopened (after a page load) with its history.
    t.same(await page.locator('.conversation-list li a').allTextContents(), ['Quick question', 'Robot planning'], 'both listed, newest first');
    await page.goto(`${server.url}/console/chat`);
    await page.locator('#chat-empty').waitFor(WAIT);
    await page.locator(`.conversation-list li[data-id="${first}"] a`).click();
    await page.locator('.chat-log li.tool-call').first().waitFor(WAIT);
    t.same(await page.locator('.chat-log > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('class'))),
      ['message user', 'tool-call', 'tool-call', 'message assistant'], 'reopened: its history');
    t.equal(await page.locator('.chat-log li.tool-call[data-tool="query_data"] .tool-text').textContent(), 'Queried Cases: 2 rows', 'the tool calls as they ran');
    t.equal(await page.locator('.chat-log li.tool-call[data-tool="create_record"] a.pending-link').count(), 1, 'the proposal still linked');
    t.equal(await page.locator('.chat-log li.message.assistant .text').textContent(), 'You have 2 open cases. I proposed the project Robot arm.');
    await page.setViewportSize({ width: 390, height: 844 });
    await accessible(t, 'the chat at phone width');
    t.equal(await page.evaluate(() => { const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number }; return g.document.documentElement.scrollWidth <= g.innerWidth; }), true, 'nothing overflows a phone-width screen');
    await page.setViewportSize({ width: 1280, height: 800 });
    await shoot('chat-history');

    // Deleted: the other one, then the open one.
    page.once('dialog', (d) => void d.accept());
    await page.locator(`.conversation-list li[data-id="${second}"] .delete-conversation`).click();
    await page.locator(`.conversation-list li[data-id="${second}"]`).waitFor({ state: 'detached', ...WAIT });
    t.equal((await server.api('GET', `/ai/conversations/${second}`, undefined, sam.token)).status, 404, 'deleted: the API no longer has it');
    t.equal(await page.locator('#conversation-title').textContent(), 'Robot planning', 'the open conversation stays open');
    page.once('dialog', (d) => void d.dismiss());
    await page.locator(`.conversation-list li[data-id="${first}"] .delete-conversation`).click();
    t.equal((await server.api('GET', `/ai/conversations/${first}`, undefined, sam.token)).status, 200, 'a dismissed confirmation deletes nothing');
    page.once('dialog', (d) => void d.accept());
    await page.locator(`.conversation-list li[data-id="${first}"] .delete-conversation`).click();
    await page.locator('#no-conversations').waitFor(WAIT);
    await page.locator('#chat-empty').waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, '/console/chat', 'deleting the open one closes it');
    t.equal((await server.api('GET', '/ai/conversations', undefined, sam.token)).body.total, 0, 'none left');
    await page.goto(`${server.url}/console/chat/${first}`);
    await page.locator('.chat-panel .not-found').waitFor(WAIT);
    t.equal(await page.locator('.chat-panel .not-found h2').textContent(), 'Not found', 'a deleted conversation is not found');
    await accessible(t, 'a conversation not found');

    // A user without ai:chat has no chat link.
    const probe = page.waitForResponse((r) => r.url().includes('/api/v1/ai/conversations?limit=1'), WAIT);
    await as(ann);
    t.equal((await probe).status(), 403, 'the conversation API refuses a user without ai:chat');
    await page.locator('#nav a', { hasText: 'Approvals' }).waitFor(WAIT);
    t.equal(await page.locator('#chat-link').count(), 0, 'and the navigation has no chat link for her');
  });
}
