/**
 * The console's Trash, Search and Device screens and a record's Comments tab in Debian's Chromium
 * against `osr start`, on SQLite and PostgreSQL: the navigation opens each object's default view;
 * a record's form is laid out by the view the user came from, else the first view with a form;
 * the trash lists the deleted records and a restore
 * brings one back; the comments posted through the API and through the tab are listed newest
 * first, and the API's refusal is shown; a member's search finds a record by a readable field and
 * neither shows nor finds it by a field hidden from them; the device page signs in first, keeps
 * the code of its address, approves (the device gets its token), denies (the device is refused)
 * and says why a wrong code is refused. axe-core checks every screen; the SQLite run takes the
 * screenshots docs/console.md shows.
 */
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';

const NEW_PASSWORD = 'a-new-admin-password-1';
const MEMBER = { email: 'member@example.com', password: 'member-password-123', name: 'Mem Ber' };
const DEVICE_CLIENT = 'tv-app';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type Check = (t: Test, screen: string) => Promise<unknown>;
type Shoot = (name: string) => Promise<void>;
interface Run { server: ConsoleServer; page: Page; token: string; accessible: Check; shoot: Shoot }

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name, { plugins: { auth: { deviceAuthorization: { enabled: true, clientIds: [DEVICE_CLIENT], interval: 1 } } } });
      const { page, errors, foreign } = await openPage(context);
      const accessible: Check = async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot: Shoot = async (name) => { if (c.name === 'sqlite') await screenshot(page, name); };
      const { token } = await adminFirstRun(server, page, NEW_PASSWORD);
      const run: Run = { server, page, token, accessible, shoot };

      await navigation(t, run);
      await recordForm(t, run);
      await trash(t, run);
      await comments(t, run);
      await search(t, run);
      await device(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function navigation(t: Test, { page }: Run): Promise<void> {
  await t.test("navigation and home open each object's default view", async (t) => {
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    const links = await page.locator('#nav a[data-object]').evaluateAll((as) => as.map((a) => [a.getAttribute('data-object'), a.getAttribute('href')]));
    t.same(links.filter(([object]) => ['case', 'project', 'ticket'].includes(object!)).sort(), [
      ['case', '/console/views/case.default'],
      ['project', '/console/views/project.default'],
      ['ticket', '/console/views/ticket.open_tickets'],
    ], 'one link an object: the view marked default (declared after another), or the one made for an object without views');
    t.same(await page.locator('.tiles a', { hasText: 'Tickets' }).getAttribute('href'), '/console/views/ticket.open_tickets', 'the home tile too');
  });
}

async function recordForm(t: Test, { server, page, token }: Run): Promise<void> {
  await t.test('the record form is laid out by the view the user came from, else the first view with a form', async (t) => {
    const ticket = (await server.api('POST', '/data/ticket', { title: 'Wobbly desk', status: 'open', score: 3 }, token)).body;
    const legends = () => page.locator('.record-form legend').allTextContents();
    const fromList = async (view: string) => {
      await page.goto(`${server.url}/console/views/${view}`);
      await page.locator(`tbody tr[data-id="${ticket.id}"] a`).click();
      await page.locator('h1', { hasText: 'Wobbly desk' }).waitFor(WAIT);
      await page.locator('.record-form legend').first().waitFor(WAIT);
    };
    await fromList('ticket.open_tickets');
    t.same(await legends(), ['Ticket', 'Details'], "from Open tickets: that view's sections");
    t.equal(new URL(page.url()).search, '?view=ticket.open_tickets', 'the address names the view');
    t.equal(await page.locator('#field-project').count(), 1, 'with its fields');
    await fromList('ticket.by_score');
    t.same(await legends(), ['Scoring'], "from By score: that view's section");
    t.equal(await page.locator('#field-project').count(), 0, 'and only its fields');
    t.equal(await page.locator('.crumbs a').getAttribute('href'), '/console/views/ticket.by_score', 'the way back is to that view');
    await fromList('ticket.all_tickets');
    t.same(await legends(), ['Scoring'], 'from All tickets (no form): the first view with a form, By score, not the default view');
    t.equal(await page.locator('.crumbs a').getAttribute('href'), '/console/views/ticket.all_tickets', 'the way back is still to the view the user came from');
    await page.goto(`${server.url}/console/records/ticket/${ticket.id}`);
    await page.locator('h1', { hasText: 'Wobbly desk' }).waitFor(WAIT);
    t.same(await legends(), ['Scoring'], 'from nowhere: the first view with a form');
    await page.goto(`${server.url}/console/records/ticket/${ticket.id}?view=project.default`);
    await page.locator('h1', { hasText: 'Wobbly desk' }).waitFor(WAIT);
    t.same(await legends(), ['Scoring'], "a view of another object is not the record's");

    await page.goto(`${server.url}/console/views/ticket.by_score`);
    await page.locator('#new-record').click();
    await page.locator('#field-title').waitFor(WAIT);
    t.same(await legends(), ['Scoring'], "a new record from By score: that view's form");
    await page.locator('#field-title').fill('Squeaky door');
    await page.locator('#save-record').click();
    await page.locator('h1', { hasText: 'Squeaky door' }).waitFor(WAIT);
    t.equal(new URL(page.url()).search, '?view=ticket.by_score', 'once created, the record keeps the view');
    t.same(await legends(), ['Scoring']);
  });
}

async function trash(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('Trash: the deleted records listed, one restored', async (t) => {
    const titles = ['Broken chair', 'Dusty shelf', 'Kept lamp'];
    const ids: string[] = [];
    for (const title of titles) ids.push((await server.api('POST', '/data/ticket', { title }, token)).body.id);
    const [chair, shelf, lamp] = ids as [string, string, string];
    for (const id of [chair, shelf]) t.equal((await server.api('DELETE', `/data/ticket/${id}`, undefined, token)).status, 204, 'deleted through the API');

    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator('#open-trash').click();
    await page.locator('.trash-list li').nth(1).waitFor(WAIT);
    // The heading names the object once its view is read, which may come after the list.
    await page.locator('h1', { hasText: 'Trash of' }).waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Trash of tickets', 'the trash of the object');
    const listed = async () => page.locator('.trash-list li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-id'), li.querySelector('span')?.textContent]));
    t.same((await listed()).sort(), [[chair, 'Broken chair'], [shelf, 'Dusty shelf']].sort(), 'the two deleted records, by their name, and not the kept one');
    t.notOk((await page.locator('.trash-list').textContent())?.includes('Kept lamp'), 'a record not deleted is not in the trash');
    await accessible(t, 'trash');
    await shoot('trash');

    await page.locator(`.trash-list li[data-id="${chair}"] button`, { hasText: 'Restore' }).click();
    await page.locator(`.trash-list li[data-id="${chair}"]`).waitFor({ state: 'detached', ...WAIT });
    t.same(await listed(), [[shelf, 'Dusty shelf']], 'the restored record leaves the trash');
    const back = await server.api('GET', `/data/ticket/${chair}`, undefined, token);
    t.equal(back.status, 200, 'and is back');
    t.equal(back.body.title, 'Broken chair', 'as it was');
    t.equal((await server.api('GET', `/data/ticket/${shelf}`, undefined, token)).status, 404, 'the other stays deleted');
    t.equal((await server.api('GET', `/data/ticket/${lamp}`, undefined, token)).status, 200);

    await page.locator(`.trash-list li[data-id="${shelf}"] button`, { hasText: 'Restore' }).click();
    await page.locator('.trash .empty').waitFor(WAIT);
    t.equal(await page.locator('.trash .empty').textContent(), 'The trash is empty.', 'an empty trash says so');
    await page.locator('.crumbs a').click();
    await page.locator(`tbody tr[data-id="${chair}"]`).waitFor(WAIT);
    t.equal(await page.locator(`tbody tr[data-id="${chair}"] td:nth-child(2)`).textContent(), 'Broken chair', 'the list view shows the restored record again');
  });
}

async function comments(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('Comments: those of the API and those posted in the tab, newest first; a refusal shown', async (t) => {
    const record = (await server.api('POST', '/data/case', { subject: 'Leaking roof' }, token)).body;
    t.equal((await server.api('POST', `/data/case/${record.id}/comments`, { body: 'Reported by the tenant' }, token)).status, 201);
    await page.goto(`${server.url}/console/records/case/${record.id}`);
    await page.locator('#tab-comments').click();
    await page.locator('.comment-list li').first().waitFor(WAIT);
    t.equal(await page.locator('#tab-comments').getAttribute('aria-selected'), 'true', 'the Comments tab is the selected one');
    const shown = () => page.locator('.comment-list li p').allTextContents();
    t.same(await shown(), ['Reported by the tenant'], 'the comment posted through the API is listed');

    await page.locator('#comment-body').fill('Roofer booked for Monday');
    await page.locator('#post-comment').click();
    await page.locator('.comment-list li', { hasText: 'Roofer booked' }).waitFor(WAIT);
    t.same(await shown(), ['Roofer booked for Monday', 'Reported by the tenant'], 'the posted comment first, then the older one');
    t.equal(await page.locator('#comment-body').inputValue(), '', 'the box is emptied');
    const stored = await server.api('GET', `/data/case/${record.id}/comments`, undefined, token);
    t.same(stored.body.items.map((c: { body: string }) => c.body), ['Roofer booked for Monday', 'Reported by the tenant'], 'the API lists the same comments in the same order');
    await accessible(t, 'comments tab');
    await shoot('comments');

    const long = 'x'.repeat(10_001);
    await page.locator('#comment-body').fill(long);
    await page.locator('#post-comment').click();
    await page.locator('.comments .notice.error').waitFor(WAIT);
    t.match(await page.locator('.comments .notice.error').textContent(), /10000|10,000/, "the API's refusal is shown with its limit");
    t.equal((await page.locator('#comment-body').inputValue()).length, long.length, 'the text is kept to be shortened');
    t.equal((await server.api('GET', `/data/case/${record.id}/comments`, undefined, token)).body.items.length, 2, 'and nothing was stored');
    await accessible(t, 'comments tab with an error');
  });
}

async function search(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test("Search: a member finds by a readable field, never sees or finds by a hidden field's value", async (t) => {
    const set = await server.api('POST', '/data/sys_permission_set', { name: 'auditors', fields: { 'ticket.secret': { read: true, edit: true } } }, token);
    t.equal(set.status, 201, 'a field grant hides ticket.secret from everyone else');
    t.equal((await server.api('POST', '/auth/admin/create-user', { ...MEMBER, mustChangePassword: false }, token)).status, 201);
    const ticket = (await server.api('POST', '/data/ticket', { title: 'Quokka printer jammed', secret: 'marmoset vault code' }, token)).body;
    await server.api('POST', '/data/ticket', { title: 'Quokka scanner', secret: 'nothing here' }, token);
    const admins = await server.api('GET', '/search?q=marmoset', undefined, token);
    t.same(admins.body.items.map((h: { id: string }) => h.id), [ticket.id], 'the hidden field is searchable: the admin finds the ticket by it');

    await page.locator('#sign-out').click();
    await signIn(page, MEMBER.email, MEMBER.password);
    await page.locator('#global-search').waitFor(WAIT);
    await page.locator('#global-search').fill('quokka');
    await page.locator('#global-search').press('Enter');
    await page.waitForURL(/\/console\/search\?q=quokka$/, WAIT);
    await page.locator('.search-results li').nth(1).waitFor(WAIT);
    t.equal(await page.locator('.search-results h1').textContent(), 'Search: quokka');
    const hits = await page.locator('.search-results li a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    t.same(hits.map(([text]) => text).sort(), ['Quokka printer jammed', 'Quokka scanner'], 'both tickets, by their title');
    t.ok(hits.some(([, link]) => link === `/console/records/ticket/${ticket.id}`), 'each linking to its record');
    t.same(await page.locator('.search-results li .muted').allTextContents(), ['Ticket', 'Ticket'], "with their object's label");
    const text = await page.locator('#main').textContent();
    t.notOk(text?.includes('marmoset'), "the hidden field's value is not shown");
    t.notOk((await page.content()).includes('marmoset'), 'nor anywhere in the page');
    await accessible(t, 'search results');
    await shoot('search');

    await page.locator('#global-search').fill('marmoset');
    await page.locator('#global-search').press('Enter');
    await page.waitForURL(/\/console\/search\?q=marmoset$/, WAIT);
    await page.locator('.search-results .empty').waitFor(WAIT);
    t.equal(await page.locator('.search-results .empty').textContent(), 'Nothing found.', "the member does not find the ticket by the hidden field's words");
    t.equal(await page.locator('.search-results li').count(), 0);
    await accessible(t, 'search with no result');

    await page.locator('#global-search').fill('quokka');
    await page.locator('#global-search').press('Enter');
    await page.locator(`.search-results a[href="/console/records/ticket/${ticket.id}"]`).click();
    await page.locator('h1', { hasText: 'Quokka printer jammed' }).waitFor(WAIT);
    t.equal(await page.locator('#field-secret').count(), 0, 'the record the hit opens has no control for the hidden field');
  });
}

async function device(t: Test, { server, page, accessible, shoot }: Run): Promise<void> {
  await t.test('Device: sign in first, the code from the address, approve, deny, a wrong code', async (t) => {
    const code = async () => {
      const res = await server.api('POST', '/auth/device/code', { client_id: DEVICE_CLIENT });
      t.equal(res.status, 200, 'a device asks for a code');
      return res.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string };
    };
    const poll = (deviceCode: string) => server.api('POST', '/auth/device/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: DEVICE_CLIENT });
    const first = await code();
    t.equal(new URL(first.verification_uri, server.url).pathname, '/device', 'the device is sent to the console\'s device page');

    await page.locator('#sign-out').click();
    await page.locator('#signin-email').waitFor(WAIT);
    await page.goto(new URL(first.verification_uri_complete, server.url).href);
    await page.locator('#signin-email').waitFor(WAIT);
    t.equal(await page.locator('#device-code').count(), 0, 'signed out: the page asks to sign in first');
    await signIn(page, MEMBER.email, MEMBER.password);
    await page.locator('#device-code').waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, '/device', 'and stays on the device page');
    t.equal(await page.locator('h1').textContent(), 'Connect a device');
    t.equal(await page.locator('#device-code').inputValue(), first.user_code, 'the code of the address is filled in');
    t.equal((await poll(first.device_code)).body.error, 'authorization_pending', 'the device waits');
    await accessible(t, 'device page');
    await shoot('device');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.device .notice.success').waitFor(WAIT);
    t.equal(await page.locator('.device .notice.success').textContent(), 'The device is signed in. You can close this page.', 'approved');
    await accessible(t, 'device approved');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const granted = await poll(first.device_code);
    t.equal(granted.status, 200, 'the device gets its token');
    const me = await fetch(`${server.url}/api/v1/auth/get-session`, { headers: { authorization: `Bearer ${granted.body.access_token}` } });
    t.equal(((await me.json()) as { user: { email: string } }).user.email, MEMBER.email, 'and acts as the user who approved');

    const second = await code();
    await page.goto(`${server.url}/device`);
    await page.locator('#device-code').waitFor(WAIT);
    t.equal(await page.locator('#device-code').inputValue(), '', 'without a code in the address the box is empty');
    await page.locator('#device-code').fill(second.user_code.toLowerCase());
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.device .notice.success').waitFor(WAIT);
    t.equal(await page.locator('.device .notice.success').textContent(), 'The request was denied.', 'denied');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await poll(second.device_code);
    t.equal(refused.status, 400);
    t.equal(refused.body.error, 'access_denied', 'the device is refused');

    await page.goto(`${server.url}/device?user_code=WRONG-CODE`);
    await page.locator('#device-code').waitFor(WAIT);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.device .notice.error').waitFor(WAIT);
    t.match(await page.locator('.device .notice.error').textContent(), /code/i, 'a wrong code is refused with the reason');
    t.equal(await page.locator('.device .notice.success').count(), 0, 'and nothing is approved');
    t.equal(await page.locator('#device-code').inputValue(), 'WRONG-CODE', 'the code stays to be corrected');
    await accessible(t, 'device page with an error');
  });
}
