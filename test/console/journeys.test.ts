/**
 * The console in Debian's Chromium against `osr start` (a real server, a real first run), on SQLite
 * and PostgreSQL, following the journeys of docs/console.md in order: first run and sign-out; an
 * admin's record (lookup by search, a validation error on its field, edit, 409 with reapply,
 * trash and restore); a member's view of field security, read-only and visibleWhen fields and an
 * unreadable record; a declared view with the user's filter and sort equal to the API's answer,
 * paging through 1,000 rows and the CSV export; a CSV import of 5,000 rows (mapping preview, dry
 * run, progress, the created rows) and an atomic one with 3 bad rows; the History, Activities, Comments, Files and Sharing tabs
 * on an object that enables them and none on one that does not. axe-core checks every screen on the way; the
 * SQLite run takes the screenshots docs/console.md shows.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { printedAdmin, signIn, WAIT } from './signIn.ts';

const NEW_PASSWORD = 'a-new-admin-password-1';
const MEMBER = { email: 'member@example.com', password: 'member-password-123', name: 'Mem Ber' };

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name);
      const shots = c.name === 'sqlite';
      const { page, errors, foreign } = await openPage(context);
      const accessible = async (t: Test, screen: string) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot = async (name: string) => { if (shots) await screenshot(page, name); };

      const admin = await firstRun(t, server, page, accessible, shoot);
      await adminRecord(t, server, page, context, admin, accessible, shoot);
      await member(t, server, page, admin, accessible, shoot);
      await declaredView(t, server, page, admin, accessible, shoot);
      await importCsv(t, server, page, admin, accessible, shoot);
      await recordTabs(t, server, page, admin, accessible, shoot);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

type Check = (t: Test, screen: string) => Promise<unknown>;
/** The page's document, as the functions run in the page read it (this file is type-checked without the DOM's types). */
type Doc = { document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null; querySelectorAll(selector: string): { length: number } } };
type Shoot = (name: string) => Promise<void>;

/** The printed one-time password, the forced change, the home screen, sign-out. Returns the admin's bearer token. */
async function firstRun(t: Test, server: ConsoleServer, page: Page, accessible: Check, shoot: Shoot): Promise<string> {
  let token = '';
  await t.test('first run: one-time password, forced change, home, sign-out', async (t) => {
    const { email, password } = printedAdmin(server);
    t.ok(email && password, 'osr start printed the first admin');
    t.match(server.output(), `osr: the console is at ${server.url}/console/`, 'and where the console is');
    await page.goto(`${server.url}/console/`);
    await page.locator('#signin-email').waitFor(WAIT);
    await accessible(t, 'sign-in');
    await shoot('sign-in');
    await signIn(page, email, 'not-the-password');
    await page.locator('.notice.error').waitFor(WAIT);
    t.match(await page.locator('.notice.error').textContent(), /UNAUTHENTICATED|password/i, 'a wrong password is said so');
    await signIn(page, email, password);
    await page.locator('#new-password').waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Choose a new password', 'PASSWORD_EXPIRED is a screen');
    await accessible(t, 'change password');
    await shoot('change-password');
    await page.locator('#current-password').fill(password);
    await page.locator('#new-password').fill(NEW_PASSWORD);
    await page.locator('#repeat-password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    const objects = await page.locator('#nav a[data-object]').evaluateAll((as) => as.map((a) => a.getAttribute('data-object')));
    for (const name of ['project', 'ticket', 'vault']) t.ok(objects.includes(name), `${name} is in the navigation`);
    await accessible(t, 'home');
    await shoot('home');
    await page.setViewportSize({ width: 390, height: 844 });
    t.equal(await page.locator('#nav').isVisible(), false, 'phone width: the navigation folds away');
    await page.locator('.menu-toggle').click();
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    t.pass('and opens from the Menu button');
    await accessible(t, 'home at phone width');
    await page.emulateMedia({ colorScheme: 'dark' });
    t.equal(await page.evaluate(() => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string }; document: { body: unknown } }).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body).backgroundColor), 'rgb(15, 19, 24)', 'dark mode follows the system');
    await accessible(t, 'home in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('#sign-out').click();
    await page.locator('#signin-email').waitFor(WAIT);
    t.pass('sign-out returns to sign-in');
    const signedIn = await server.api('POST', '/auth/sign-in', { email, password: NEW_PASSWORD });
    t.equal(signedIn.status, 200, 'the new password is the one in effect');
    t.equal(signedIn.body.user.mustChangePassword, false);
    token = signedIn.body.token;
    const old = await server.api('POST', '/auth/sign-in', { email, password });
    t.equal(old.status, 401, 'the one-time password no longer signs in');
    await signIn(page, email, NEW_PASSWORD);
    await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
  });
  return token;
}

function valueOf(page: Page, field: string): Promise<string> {
  return page.locator(`#field-${field}`).inputValue();
}

async function adminRecord(t: Test, server: ConsoleServer, page: Page, context: BrowserContext, token: string, accessible: Check, shoot: Shoot): Promise<void> {
  await t.test('an admin creates, edits, meets a conflict, trashes and restores a record', async (t) => {
    const apollo = (await server.api('POST', '/data/project', { name: 'Apollo' }, token)).body;
    await server.api('POST', '/data/project', { name: 'Zephyr' }, token);
    await page.goto(`${server.url}/console/views/ticket.open_tickets`);
    await page.locator('#new-record').click();
    await page.locator('#field-title').waitFor(WAIT);
    await page.locator('#field-title').fill('Printer on fire');
    await page.locator('#field-project').fill('Apol');
    await page.getByRole('option', { name: 'Apollo' }).waitFor(WAIT);
    t.equal(await page.locator('#field-project-options [role="option"]').count(), 1, 'the search finds the one matching project');
    await accessible(t, 'the record form with a lookup\'s matches open');
    await page.locator('#field-project').press('ArrowDown');
    t.equal(await page.locator('#field-project').getAttribute('aria-activedescendant'), 'field-project-option-0', 'the arrow key makes the match active');
    await page.locator('#field-project').press('Enter');
    t.equal(await page.locator('#field-project-chosen').textContent(), 'Apollo', 'the lookup shows its name');
    await page.locator('#field-score').fill('50');
    await page.locator('#save-record').click();
    const scoreError = page.locator('.field[data-field="score"] .field-error');
    await scoreError.waitFor(WAIT);
    t.equal(await scoreError.textContent(), 'The score is at most 10.', "the API's validation error is on its field");
    t.equal(await page.locator('.field-error').count(), 1, 'and on no other');
    await accessible(t, 'record form with an error');
    await shoot('record-error');
    await page.locator('#field-score').fill('5');
    await page.locator('#save-record').click();
    await page.waitForURL(/\/console\/records\/ticket\/(?!new(?:\?|$))[^/?]+(?:\?.*)?$/, WAIT);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const created = (await server.api('GET', `/data/ticket/${id}`, undefined, token)).body;
    t.match(created, { title: 'Printer on fire', project: apollo.id, score: 5, status: 'open' }, 'stored as typed, with the project chosen by search');
    await page.locator('h1', { hasText: 'Printer on fire' }).waitFor(WAIT);

    await page.locator('#field-title').fill('Printer on fire again');
    await page.locator('#save-record').click();
    await page.locator('#saved').waitFor(WAIT);
    t.equal((await server.api('GET', `/data/ticket/${id}`, undefined, token)).body.title, 'Printer on fire again', 'an edit is saved');

    const other = await context.newPage();
    await other.goto(page.url());
    await other.locator('#field-score').waitFor(WAIT);
    await other.locator('#field-score').fill('7');
    await other.locator('#save-record').click();
    await other.locator('#saved').waitFor(WAIT);
    await other.close();

    await page.locator('#field-title').fill('Printer fixed');
    await page.locator('#save-record').click();
    await page.locator('#conflict').waitFor(WAIT);
    t.match(await page.locator('#conflict').textContent(), /CONCURRENT_UPDATE/, 'the 409 is explained');
    await accessible(t, 'conflict');
    await shoot('conflict');
    await page.locator('#conflict-reapply').click();
    await page.locator('#saved', { hasText: 'applied' }).waitFor(WAIT);
    t.equal(await valueOf(page, 'title'), 'Printer fixed', 'my change is kept');
    t.equal(await valueOf(page, 'score'), '7', "and theirs is in");
    await page.locator('#save-record').click();
    await page.locator('#saved', { hasText: 'Saved.' }).waitFor(WAIT);
    t.match((await server.api('GET', `/data/ticket/${id}`, undefined, token)).body, { title: 'Printer fixed', score: 7 }, 'both changes are stored');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#delete-record').click();
    await page.locator('#trashed').waitFor(WAIT);
    t.equal((await server.api('GET', `/data/ticket/${id}`, undefined, token)).status, 404, 'deleted');
    await page.locator('#restore-record').click();
    await page.locator('#saved', { hasText: 'Restored.' }).waitFor(WAIT);
    t.equal((await server.api('GET', `/data/ticket/${id}`, undefined, token)).status, 200, 'restored from the trash');
  });
}

async function member(t: Test, server: ConsoleServer, page: Page, token: string, accessible: Check, shoot: Shoot): Promise<void> {
  await t.test('a member: hidden field absent everywhere, read-only disabled, visibleWhen live, unreadable record not found', async (t) => {
    const set = await server.api('POST', '/data/sys_permission_set', { name: 'auditors', fields: { 'ticket.secret': { read: true, edit: true } } }, token);
    t.equal(set.status, 201, 'a field grant hides ticket.secret from everyone else');
    const created = await server.api('POST', '/auth/admin/create-user', { ...MEMBER, mustChangePassword: false }, token);
    t.equal(created.status, 201);
    const readers = await server.api('POST', '/data/sys_permission_set', { name: 'score_readers', fields: { 'ticket.score': { read: true } } }, token);
    t.equal((await server.api('POST', '/data/sys_user_permission_set', { user_id: created.body.user.id, permission_set: readers.body.id }, token)).status, 201, 'the member may read ticket.score, not write it');
    const ticket = (await server.api('POST', '/data/ticket', { title: 'Member visible', secret: 'the-secret-value' }, token)).body;
    const vault = (await server.api('POST', '/data/vault', { label: 'Admin only' }, token)).body;
    t.ok(ticket.id && vault.id, 'records to look at');

    await page.locator('#sign-out').click();
    await signIn(page, MEMBER.email, MEMBER.password);
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator(`tr[data-id="${ticket.id}"]`).waitFor(WAIT).catch(async (e: Error) => { throw new Error(`${e.message}\n${await page.locator('#main').innerText()}`); });
    const headers = await page.locator('thead th button.sort').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-column')));
    t.same(headers, ['title', 'status', 'score', 'created_at'], 'no column of the hidden field');
    t.notOk((await page.content()).includes('the-secret-value'), 'its value is nowhere on the page');
    await page.locator('#toggle-filters').click();
    await page.locator('#add-filter').click();
    const fields = await page.locator('.filter-field option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    t.notOk(fields.includes('secret'), 'nor in the filter builder');
    t.ok(fields.includes('title') && fields.includes('code'), 'which offers the readable fields');
    await accessible(t, 'member list view with filters');

    await page.goto(`${server.url}/console/records/ticket/${ticket.id}`);
    await page.locator('#field-title').waitFor(WAIT);
    t.equal(await page.locator('#field-secret').count(), 0, 'no control for the hidden field');
    t.equal(await page.locator('#field-code').isDisabled(), true, 'the read-only field is disabled');
    t.equal(await page.locator('#field-score').isDisabled(), true, 'a field its permission sets let it read but not edit is disabled');
    t.equal(await page.locator('#field-title').isDisabled(), false, 'the others are not');
    t.equal(await page.locator('#field-resolution').count(), 0, 'resolution is hidden while the ticket is not closed');
    await page.locator('#field-status').selectOption('closed');
    await page.locator('#field-resolution').waitFor(WAIT);
    t.pass('it appears when the status becomes closed');
    await accessible(t, 'member record form');
    await shoot('record');
    await page.locator('#field-status').selectOption('open');
    await page.locator('#field-resolution').waitFor({ state: 'detached', ...WAIT });
    t.pass('and disappears again');

    await page.goto(`${server.url}/console/records/vault/${vault.id}`);
    await page.locator('h1', { hasText: 'Not found' }).waitFor(WAIT);
    t.equal(await page.locator('.notice.error').count(), 0, 'a record the member may not read is not found, not an error');
    await accessible(t, 'not found');
    await page.locator('#sign-out').click();
    await page.locator('#signin-email').waitFor(WAIT);
  });
}

async function declaredView(t: Test, server: ConsoleServer, page: Page, token: string, accessible: Check, shoot: Shoot): Promise<void> {
  await t.test('a declared view, the user\'s filter and sort as the API answers them, 1,000 rows paged, the CSV export', async (t) => {
    for (let start = 0; start < 1000; start += 100) {
      const operations = Array.from({ length: 100 }, (_, k) => {
        const i = start + k + 1;
        return { method: 'create', values: { title: `T${String(i).padStart(4, '0')}`, status: i % 2 === 0 ? 'open' : 'pending', score: i % 11 } };
      });
      const res = await server.api('POST', '/data/ticket/bulk', { operations }, token);
      if (res.status !== 200) t.fail(`bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    await signIn(page, 'admin@example.com', NEW_PASSWORD);
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    await page.goto(`${server.url}/console/views/ticket.open_tickets`);
    await page.locator('tbody tr').first().waitFor(WAIT);
    const columns = await page.locator('thead th button.sort').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-column')));
    t.same(columns, ['title', 'status', 'score', 'project'], 'the declared columns');
    const statuses = await page.locator('tbody td:nth-child(3)').allTextContents();
    t.ok(statuses.length > 0 && statuses.every((s) => s === 'Open'), 'the declared where: open tickets only');

    await page.locator('#toggle-filters').click();
    await page.locator('#add-filter').click();
    await page.locator('.filter-field').selectOption('score');
    await page.locator('.filter-op').selectOption('$gte');
    await page.locator('.filter-value').fill('5');
    await page.locator('#apply-filters').click();
    await page.locator('thead th button.sort[data-column="title"]').click();
    await page.locator('thead th[aria-sort="ascending"]').waitFor(WAIT);
    const where = { $and: [{ status: { $eq: 'open' } }, { score: { $gte: 5 } }] };
    const expected = await server.api('GET', `/data/ticket?where=${encodeURIComponent(JSON.stringify(where))}&orderBy=title&limit=50`, undefined, token);
    const wantIds = expected.body.items.map((r: { id: string }) => String(r.id));
    await page.waitForFunction((first) => (globalThis as unknown as Doc).document.querySelector('tbody tr')?.getAttribute('data-id') === first, wantIds[0], WAIT);
    const shown = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    t.same(shown, wantIds, 'the same rows, in the same order, as the API for the same structured query');
    t.match(await page.locator('#total').textContent(), new RegExp(`^${expected.body.total} records`), 'the total');
    await accessible(t, 'list view with a filter');
    await shoot('list');

    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator('tbody tr').first().waitFor(WAIT);
    const total = (await server.api('GET', '/data/ticket?limit=1', undefined, token)).body.total as number;
    t.ok(total >= 1000, `${total} tickets`);
    const seen: string[] = [];
    for (let pageNo = 1; pageNo < 100; pageNo++) {
      await page.locator('.pager span', { hasText: `Page ${pageNo}` }).waitFor(WAIT);
      await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('tbody tr').length > 0, undefined, WAIT);
      seen.push(...await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')!)));
      if (await page.locator('#next-page').isDisabled()) break;
      const before = await page.locator('tbody tr').first().getAttribute('data-id');
      await page.locator('#next-page').click();
      await page.waitForFunction((id) => (globalThis as unknown as Doc).document.querySelector('tbody tr')?.getAttribute('data-id') !== id, before, WAIT);
    }
    t.equal(seen.length, total, 'paging reaches the end: every row');
    t.equal(new Set(seen).size, seen.length, 'with no duplicate');

    const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.locator('#export-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    t.equal(csv[0]?.split(',')[0], 'id', 'the export starts with the ids');
    const exported = csv.slice(1).map((line) => line.split(',')[0]!.replace(/"/g, ''));
    t.equal(exported.length, total, 'the CSV export has every row of the view');
    t.same([...exported].sort(), [...seen].sort(), 'the same rows as the pages');
  });
}

async function recordTabs(t: Test, server: ConsoleServer, page: Page, token: string, accessible: Check, shoot: Shoot): Promise<void> {
  await t.test('History, Activities, Comments, Files and Sharing on an object that enables them, none on one that does not', async (t) => {
    const record = (await server.api('POST', '/data/case', { subject: 'Broken lift' }, token)).body;
    const memberId = (await server.api('POST', '/auth/sign-in', { email: MEMBER.email, password: MEMBER.password })).body.user.id as string;
    await page.goto(`${server.url}/console/records/case/${record.id}`);
    await page.locator('[role="tab"]').first().waitFor(WAIT);
    t.same(await page.locator('[role="tab"]').allTextContents(), ['History', 'Activities', 'Comments', 'Files', 'Sharing'], 'the five tabs');
    await page.locator('#field-details').fill('Stuck on floor 3');
    await page.locator('#save-record').click();
    await page.locator('#saved').waitFor(WAIT);
    await page.locator('.history-list > li', { hasText: 'update' }).waitFor(WAIT);
    t.match(await page.locator('.history-list').textContent(), /update[\s\S]*Stuck on floor 3[\s\S]*create/, 'History: the update, newest first, with its change');
    await accessible(t, 'history tab');

    await page.locator('#tab-comments').click();
    await page.locator('#comment-body').fill('Technician called');
    await page.locator('#post-comment').click();
    await page.locator('.comment-list li', { hasText: 'Technician called' }).waitFor(WAIT);
    const comments = await server.api('GET', `/data/case/${record.id}/comments`, undefined, token);
    t.same(comments.body.items.map((c: { body: string }) => c.body), ['Technician called'], 'Comments: posted through the API');

    await page.locator('#tab-files').click();
    await page.locator('#file-upload').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('lift notes\n') });
    await page.locator('.file-list a', { hasText: 'notes.txt' }).waitFor(WAIT);
    const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.locator('.file-list a', { hasText: 'notes.txt' }).click()]);
    t.equal(readFileSync((await download.path())!, 'utf8'), 'lift notes\n', 'Files: uploaded, then downloaded as it was');
    await accessible(t, 'files tab');

    await page.locator('#tab-sharing').click();
    await page.locator('#share-recipient').fill(memberId);
    await page.locator('#share-record').click();
    await page.locator(`.share-list li[data-recipient="${memberId}"]`).waitFor(WAIT);
    const shares = await server.api('GET', `/data/case/${record.id}/shares`, undefined, token);
    t.match(shares.body.items, [{ recipient_type: 'user', recipient_id: memberId, access: 'read' }], 'Sharing: the share is stored');
    await accessible(t, 'sharing tab');
    await shoot('tabs');

    const milestone = (await server.api('POST', '/data/milestone', { name: 'No tabs' }, token)).body;
    await page.goto(`${server.url}/console/records/milestone/${milestone.id}`);
    // The record page shows its form and its tabs at once, with the lookups pointing to it.
    await page.locator('#field-name').waitFor(WAIT);
    t.equal(await page.locator('[role="tab"]').count(), 0, 'an object that enables none (and that no lookup points to) has no tab');
  });
}

async function importCsv(t: Test, server: ConsoleServer, page: Page, token: string, accessible: Check, shoot: Shoot): Promise<void> {
  await t.test('CSV import: mapping preview, dry run, progress, 5,000 rows created; 3 bad rows shown and nothing written', async (t) => {
    const count = async () => (await server.api('GET', '/data/ticket?limit=1&count=exact', undefined, token)).body.total as number;
    const before = await count();
    const lines = ['Title,Status,Score'];
    for (let i = 1; i <= 5000; i++) lines.push(`I${String(i).padStart(5, '0')},open,${i % 11}`);
    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator('#open-import').click();
    await page.locator('#import-file').setInputFiles({ name: 'tickets.csv', mimeType: 'text/csv', buffer: Buffer.from(`${lines.join('\r\n')}\r\n`) });
    await page.locator('#import-preview').waitFor(WAIT);
    const mapped = await page.locator('#import-preview select').evaluateAll((ss) => ss.map((s) => [s.getAttribute('data-column'), (s as unknown as { value: string }).value]));
    t.same(mapped, [['Title', 'title'], ['Status', 'status'], ['Score', 'score']], 'the mapping preview: each column to its field');
    t.same(await page.locator('#import-preview tbody tr').first().locator('td').allTextContents(), ['I00001', 'open', '1'], 'with the first rows');
    await accessible(t, 'import preview');

    await Promise.all([page.locator('#import-progress').waitFor(WAIT), page.locator('#import-dry-run').click()]);
    t.pass('progress is shown while the file is sent and checked');
    await page.locator('#import-result', { hasText: 'Dry run' }).waitFor({ timeout: 120_000 });
    t.match(await page.locator('#import-result').textContent(), /5000 rows, 5000 valid, 0 with errors, 0 created/, 'the dry run checks every row');
    t.equal(await count(), before, 'and writes nothing');

    await page.locator('#import-run').click();
    await page.locator('#import-created').waitFor({ timeout: 120_000 });
    t.match(await page.locator('#import-result').textContent(), /5000 rows, 5000 valid, 0 with errors, 5000 created/, 'the import');
    t.equal(await page.locator('#import-created li a').count(), 20, 'the created rows are listed');
    t.match(await page.locator('#import-created').textContent(), /and 4980 more/);
    t.equal(await count(), before + 5000, 'every row is stored');
    await shoot('import');

    const bad = ['Title,Status,Score', 'B1,open,1', 'B2,open,lots', 'B3,open,2', 'B4,open,3', 'B5,open,50', 'B6,open,4', 'B7,open,5', 'B8,open,6', ',open,7', 'B10,open,8'];
    await page.locator('#import-file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(bad.join('\n')) });
    await page.locator('#import-preview tbody tr', { hasText: 'B1' }).waitFor(WAIT);
    await page.locator('#import-run').click();
    await page.locator('#import-errors').waitFor({ timeout: 120_000 });
    const rows = await page.locator('#import-errors tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')));
    t.same([...new Set(rows)], ['2', '5', '9'], 'the three bad rows, by their row number');
    const text = await page.locator('#import-errors').textContent();
    t.match(text, /whole number|integer/i, "row 2's score");
    t.match(text, /at most 10/, "row 5's validation rule");
    t.match(text, /required/, "row 9's missing title");
    t.match(await page.locator('#import-result').textContent(), /0 created/, 'atomic: nothing created');
    t.equal(await count(), before + 5000, 'and nothing written');
    await accessible(t, 'import errors');
  });
}
