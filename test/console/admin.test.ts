/**
 * The console's administration in Debian's Chromium against `osr start`, on SQLite and PostgreSQL:
 * the admin creates a user (its one-time password shown once), a permission set with an object
 * grant, a position carrying it, assignments with validity windows, then a field grant whose
 * preview names, before saving, who loses the field; the new user signs in with the one-time
 * password, changes it and finds the field absent from the record page, as the preview said, while
 * the holder of the set reads it. A member gets no administration link, no administration code, and
 * the API refuses it. The admin ends a user's session, bans and unbans it, resets its password by a
 * mailed link (read from the development outbox) and by setting one; imports users from CSV and
 * XLSX with the dry run first; mints an API key with `data:read`, copies it once, reads with it,
 * cannot write with it, and revokes it in the console (the next request is 401). axe-core checks
 * every screen; the SQLite run takes the screenshots docs/console.md shows.
 */
import ExcelJS from 'exceljs';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { CONSOLE_DIR, ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_MANIFEST, type ConsoleManifest } from '../../plugins/console/consoleBuild.js';

const ADMIN_PASSWORD = 'a-new-admin-password-1';
const CAROL = { email: 'carol@example.com', password: 'carol-password-123', name: 'Carol' };
const BOB = { email: 'bob@example.com', name: 'Bob', password: 'bob-own-password-1' };
const SECRET = 'the-secret-value';
const HOUR = 3_600_000;

type Check = (t: Test, screen: string) => Promise<unknown>;
type Shoot = (name: string) => Promise<void>;
interface Run {
  server: ConsoleServer;
  context: BrowserContext;
  page: Page;
  admin: { email: string; token: string };
  carol: { id: string; token: string };
  ticket: string;
  accessible: Check;
  shoot: Shoot;
  /** Filled along the way. */
  ids: Record<string, string>;
  bobOneTime: string;
}

/** A `datetime-local` value `offset` ms from now, in the browser's (the machine's) time zone. */
function local(offset: number): string {
  const d = new Date(Date.now() + offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const manifest = JSON.parse(readFileSync(join(CONSOLE_DIR, CONSOLE_MANIFEST), 'utf8')) as ConsoleManifest;
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const { page, errors, foreign } = await openPage(context);
      const accessible: Check = async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot: Shoot = async (name) => { if (c.name === 'sqlite') await screenshot(page, name); };
      const admin = await adminFirstRun(server, page, ADMIN_PASSWORD);
      t.equal((await server.api('POST', '/auth/admin/create-user', { ...CAROL, mustChangePassword: false }, admin.token)).status, 201, 'a member to compare with');
      const carolSession = await server.api('POST', '/auth/sign-in', { email: CAROL.email, password: CAROL.password });
      const ticket = (await server.api('POST', '/data/ticket', { title: 'Budget review', secret: SECRET }, admin.token)).body.id as string;
      t.ok(ticket, 'a ticket whose secret field is open to everyone so far');
      const run: Run = { server, context, page, admin, carol: { id: carolSession.body.user.id, token: carolSession.body.token }, ticket, accessible, shoot, ids: {}, bobOneTime: '' };

      await createUser(t, run);
      await permissionSet(t, run);
      await positions(t, run);
      await assignments(t, run);
      await fieldGrant(t, run);
      await newUserSignsIn(t, run);
      await member(t, run, manifest);
      await userPage(t, run);
      await importUsers(t, run);
      await apiKeys(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

/** The columns of the list on the page, by field name. */
function columns(page: Page): Promise<Array<string | null>> {
  return page.locator('thead th button.sort').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-column')));
}

async function createUser(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('Users: the admin creates a user, its one-time password shown once', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Users', exact: true }).click();
    await page.locator('h1', { hasText: 'Users' }).waitFor(WAIT);
    await page.locator(`#users tr`, { hasText: CAROL.email }).waitFor(WAIT);
    await page.locator('#new-user-email').fill(BOB.email);
    await page.locator('#new-user-name').fill(BOB.name);
    await page.locator('#create-user').click();
    await page.locator('#once-secret').waitFor(WAIT);
    run.bobOneTime = (await page.locator('#once-secret').textContent()) ?? '';
    t.match(run.bobOneTime, /^[A-Za-z2-9]{16}$/, 'the generated one-time password is shown');
    await page.locator('#users tr', { hasText: BOB.email }).waitFor(WAIT);
    t.equal(await page.locator('#users tr', { hasText: BOB.email }).locator('.status').textContent(), 'Must change password', 'listed, with its password to change');
    await accessible(t, 'users');
    await shoot('admin-users');
    await page.locator('#close-secret').click();
    await page.locator('#once-secret').waitFor({ state: 'detached', ...WAIT });
    t.notOk((await page.content()).includes(run.bobOneTime), 'once closed, the password is nowhere on the page');
    const listed = await server.api('GET', `/auth/admin/list-users?searchValue=${encodeURIComponent(BOB.email)}`, undefined, admin.token);
    t.equal(listed.body.users.length, 1, 'the API lists the user');
    run.ids.bob = listed.body.users[0].id;
    t.equal(listed.body.users[0].name, BOB.name);
  });
}

async function permissionSet(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('Permission sets: a new set with an object grant from the matrix', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Permission sets', exact: true }).click();
    await page.locator('h1', { hasText: 'Permission sets' }).waitFor(WAIT);
    t.match(await page.locator('[role="note"]').textContent(), 'A field named in any permission set is hidden from everyone who holds no set granting it', 'the rule is stated on the list');
    await accessible(t, 'permission sets, empty');
    await page.locator('#new-permission-set').click();
    await page.locator('#set-name').waitFor(WAIT);
    await page.locator('#set-name').fill('secret_readers');
    await page.locator('#set-label').fill('Secret readers');
    await page.getByRole('checkbox', { name: 'Ticket: Read', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Ticket: View all', exact: true }).check();
    await page.locator('#field-preview .no-change').waitFor(WAIT);
    t.pass('with no field named, the preview says nobody gains or loses a field');
    await page.locator('#save-set').click();
    await page.locator('#set-saved').waitFor(WAIT);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const stored = await server.api('GET', `/data/sys_permission_set/${id}`, undefined, admin.token);
    t.equal(stored.status, 200, 'saved, and the address is its own');
    t.same([stored.body.name, stored.body.label, stored.body.objects, stored.body.fields], ['secret_readers', 'Secret readers', { ticket: { read: true, viewAll: true } }, {}], 'as the matrix says');
    run.ids.set = id;
    await page.locator('#nav').getByRole('link', { name: 'Permission sets', exact: true }).click();
    await page.locator('#permission-sets tr', { hasText: 'secret_readers' }).waitFor(WAIT);
    t.equal(await page.locator('#permission-sets tr', { hasText: 'secret_readers' }).locator('td').nth(2).textContent(), 'ticket', 'listed with its objects');
    await accessible(t, 'permission sets');
    await shoot('permission-sets');
  });
}

async function positions(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('Positions: a position that carries the set', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Positions', exact: true }).click();
    await page.locator('#position-name').waitFor(WAIT);
    await page.locator('#position-name').fill('support');
    await page.locator('#position-label').fill('Support');
    await page.locator('#create-position').click();
    const row = page.locator('#positions tr', { hasText: 'Support (support)' });
    await row.waitFor(WAIT);
    const position = await row.getAttribute('data-id');
    await row.locator('select').selectOption({ label: 'secret_readers' });
    await row.getByRole('button', { name: 'Add to support' }).click();
    await row.locator('ul.links li', { hasText: 'secret_readers' }).waitFor(WAIT);
    const links = await server.api('GET', `/data/sys_position_permission_set?where=${encodeURIComponent(JSON.stringify({ position }))}`, undefined, admin.token);
    t.same(links.body.items.map((l: { permission_set: string }) => l.permission_set), [run.ids.set], 'the position carries the set');
    await accessible(t, 'positions');
    await shoot('positions');
  });
}

async function assignments(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot, carol } = run;
  await t.test('Assignments: the set to Carol from now for 30 days, to Bob from tomorrow', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Assignments', exact: true }).click();
    await page.locator('#assign-user').waitFor(WAIT);
    await page.locator('#assign-user').selectOption({ label: CAROL.email });
    await page.locator('#assign-target').selectOption({ label: 'Secret readers (secret_readers)' });
    await page.locator('#assign-until').fill(local(30 * 24 * HOUR));
    await page.locator('#assign').click();
    await page.locator('#assigned').waitFor(WAIT);
    const carolRow = page.locator('#sys_user_permission_set tr', { hasText: CAROL.email });
    await carolRow.waitFor(WAIT);
    t.equal(await carolRow.locator('td').nth(4).textContent(), 'Active', "Carol's assignment holds now");

    await page.locator('#assign-user').selectOption({ label: BOB.email });
    await page.locator('#assign-target').selectOption({ label: 'Secret readers (secret_readers)' });
    await page.locator('#assign-from').fill(local(24 * HOUR));
    await page.locator('#assign-until').fill(local(10 * 24 * HOUR));
    await page.locator('#assign').click();
    const bobRow = page.locator('#sys_user_permission_set tr', { hasText: BOB.email });
    await bobRow.waitFor(WAIT);
    t.equal(await bobRow.locator('td').nth(4).textContent(), 'Not started', "Bob's starts tomorrow");
    await accessible(t, 'assignments');
    await shoot('assignments');

    const rows = await server.api('GET', '/data/sys_user_permission_set', undefined, admin.token);
    const byUser = new Map(rows.body.items.map((r: { user_id: string }) => [r.user_id, r]));
    const mine = byUser.get(carol.id) as { permission_set: string; valid_from: string | null; valid_until: string };
    t.equal(mine.permission_set, run.ids.set, 'stored for Carol');
    t.ok(Math.abs(Date.parse(mine.valid_until) - (Date.now() + 30 * 24 * HOUR)) < 5 * 60_000, 'until 30 days from now (the minute the admin typed, in its time zone)');
    const bobs = byUser.get(run.ids.bob) as { valid_from: string };
    t.ok(Math.abs(Date.parse(bobs.valid_from) - (Date.now() + 24 * HOUR)) < 5 * 60_000, "Bob's from tomorrow");
  });
}

async function fieldGrant(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('the field grant: before saving, the preview names who loses the field', async (t) => {
    await page.goto(`${server.url}/console/admin/permission-sets/${run.ids.set}`);
    await page.locator('#field-object').waitFor(WAIT);
    await page.locator('#field-object').selectOption('ticket');
    await page.locator('#level-secret').selectOption('read');
    const lost = page.locator('#field-preview [data-field="ticket.secret"] [data-kind="read-lost"]');
    await lost.waitFor(WAIT);
    const lostText = (await lost.textContent()) ?? '';
    t.match(lostText, BOB.email, 'Bob loses the field: his assignment has not started');
    t.notMatch(lostText, CAROL.email, 'Carol keeps it: she holds the set');
    t.notMatch(lostText, admin.email, 'the admin reads every field');
    t.match(await page.locator('#field-preview [data-field="ticket.secret"] [data-kind="edit-lost"]').textContent(), CAROL.email, 'a read grant: Carol loses edit');
    const api = await server.api('POST', '/access/field-preview', { permissionSet: run.ids.set, fields: { 'ticket.secret': { read: true } } }, admin.token);
    t.equal(api.status, 200);
    t.same(api.body.changes.find((c: { field: string }) => c.field === 'ticket.secret').read.lost.map((u: { email: string }) => u.email), [BOB.email], 'the page shows the answer of the API');
    t.equal((await server.api('GET', `/data/ticket/${run.ticket}`, undefined, run.carol.token)).body.secret, SECRET, 'nothing is saved yet');
    await accessible(t, 'permission set editor with its preview');
    await page.locator('#fields-title').evaluate((h) => h.scrollIntoView());
    await shoot('permission-set');
    await page.locator('#save-set').click();
    await page.locator('#set-saved').waitFor(WAIT);
    await page.locator('#field-preview .no-change').waitFor(WAIT);
    t.pass('once saved, the preview of the same fields says nothing more changes');
    const stored = await server.api('GET', `/data/sys_permission_set/${run.ids.set}`, undefined, admin.token);
    t.same(stored.body.fields, { 'ticket.secret': { read: true } }, 'the field grant is stored');
  });
}

async function newUserSignsIn(t: Test, run: Run): Promise<void> {
  const { server, page } = run;
  await t.test('the new user signs in with the one-time password, changes it, and sees what the preview said', async (t) => {
    await page.locator('#sign-out').click();
    await signIn(page, BOB.email, run.bobOneTime);
    await page.locator('#new-password').waitFor(WAIT);
    await page.locator('#current-password').fill(run.bobOneTime);
    await page.locator('#new-password').fill(BOB.password);
    await page.locator('#repeat-password').fill(BOB.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    // Signed out on the editor's address, Bob lands on it: it is not his to see.
    await page.locator('h1', { hasText: 'Administrators only' }).waitFor(WAIT);
    t.equal(await page.locator('.who').textContent(), BOB.email, 'the password changed, Bob is in, and the administration is not for him');
    await page.goto(`${server.url}/console/records/ticket/${run.ticket}?view=ticket.open_tickets`);
    await page.locator('h1', { hasText: 'Budget review' }).waitFor(WAIT);
    await page.locator('#field-title').waitFor(WAIT);
    t.equal(await page.locator('#field-secret').count(), 0, 'the field the preview said Bob loses is absent from his record page (in a form that places it)');
    t.notOk((await page.content()).includes(SECRET), 'its value is nowhere on the page');
    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator(`tr[data-id="${run.ticket}"]`).waitFor(WAIT);
    t.notOk((await columns(page)).includes('secret'), 'nor a column of the list that declares it');
    t.equal(await page.locator('#nav').getByText('Administration').count(), 0, 'Bob, a member, has no administration link');
    await page.locator('#sign-out').click();
    await page.locator('#signin-email').waitFor(WAIT);
    const again = await server.api('POST', '/auth/sign-in', { email: BOB.email, password: run.bobOneTime });
    t.equal(again.status, 401, 'the one-time password is spent');
  });
}

async function member(t: Test, run: Run, manifest: ConsoleManifest): Promise<void> {
  const { server, context, carol } = run;
  await t.test('a member: no administration link or code, the API refuses; the holder reads the field', async (t) => {
    const { page, errors } = await openPage(context);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${server.url}/console/`);
    await signIn(page, CAROL.email, CAROL.password);
    await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    const nav = await page.locator('#nav').innerText();
    t.notMatch(nav, /Administration|Permission sets|Assignments|Outbox/, 'no administration link');
    t.match(nav, /API keys/, 'her own API keys are hers to manage');
    await page.goto(`${server.url}/console/records/ticket/${run.ticket}?view=ticket.open_tickets`);
    await page.locator('h1', { hasText: 'Budget review' }).waitFor(WAIT);
    await page.locator('#field-secret').waitFor(WAIT);
    t.equal(await page.locator('#field-secret').inputValue(), SECRET, 'Carol, who holds the set, reads the field, as the preview said');
    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator(`tr[data-id="${run.ticket}"]`).waitFor(WAIT);
    t.ok((await columns(page)).includes('secret'), 'and has its column');
    await page.goto(`${server.url}/console/admin/users`);
    await page.locator('h1', { hasText: 'Administrators only' }).waitFor(WAIT);
    t.pass('an administration address says it is for admins');
    t.same(await axeViolations(page), [], 'axe: no serious or critical violation on "Administrators only"');
    const lazy = Object.keys(manifest.files).filter((name) => name.endsWith('.js') && !manifest.initial.includes(name));
    t.ok(lazy.length >= 1, 'the administration is a file of its own');
    t.same(requested.filter((path) => lazy.some((name) => path.endsWith(name))), [], 'which a member never downloads');
    t.same(errors, [], 'no script error');
    await page.close();

    const refusals: Array<[string, string, unknown?]> = [
      ['GET', '/auth/admin/list-users'],
      ['POST', '/auth/admin/create-user', { email: 'x@example.com' }],
      ['POST', '/auth/admin/import-users', { csv: 'email\nx@example.com\n', dryRun: true }],
      ['POST', '/auth/admin/ban-user', { userId: run.ids.bob }],
      ['POST', '/access/field-preview', { fields: {} }],
      ['POST', '/data/sys_permission_set', { name: 'mine' }],
      ['POST', '/data/sys_user_permission_set', { user_id: carol.id, permission_set: run.ids.set }],
      ['GET', '/data/sys_user_permission_set'],
    ];
    for (const [method, path, body] of refusals) {
      const res = await server.api(method, path, body, carol.token);
      t.equal(res.status, 403, `${method} ${path}: 403 for a member`);
    }
  });
}

async function userPage(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test("a user's page: sessions ended, ban and unban, a reset link from the outbox, a password set", async (t) => {
    const bob = await server.api('POST', '/auth/sign-in', { email: BOB.email, password: BOB.password });
    const bob2 = await server.api('POST', '/auth/sign-in', { email: BOB.email, password: BOB.password });
    t.same([bob.status, bob2.status], [200, 200], 'Bob has two sessions');
    await signIn(page, admin.email, ADMIN_PASSWORD);
    await page.locator('.who', { hasText: admin.email }).waitFor(WAIT);
    await page.locator('#nav').getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('link', { name: BOB.email }).click();
    await page.locator('h1', { hasText: BOB.email }).waitFor(WAIT);
    await page.locator('#sessions tbody tr').nth(1).waitFor(WAIT);
    t.equal(await page.locator('#sessions tbody tr').count(), 2, 'both listed (his browser session ended when he signed out)');
    t.equal(await page.locator('#user-status').textContent(), 'Active', 'active, his password changed');
    await accessible(t, "a user's page");
    await shoot('admin-user');

    await page.getByRole('button', { name: 'End session 1' }).click();
    await page.locator('.notice.success', { hasText: 'The session ended.' }).waitFor(WAIT);
    await page.locator('#sessions tbody tr').nth(1).waitFor({ state: 'detached', ...WAIT });
    const statuses = [(await server.api('GET', '/data/ticket', undefined, bob.body.token)).status, (await server.api('GET', '/data/ticket', undefined, bob2.body.token)).status];
    t.same(statuses.sort(), [200, 401], 'one session ended, the other goes on');
    await page.locator('#end-all').click();
    await page.locator('.notice.success', { hasText: 'Every session of the user ended.' }).waitFor(WAIT);
    await page.locator('#sessions').waitFor({ state: 'detached', ...WAIT });
    t.equal((await server.api('GET', '/data/ticket', undefined, bob.body.token)).status, 401, "every session of Bob's is over");
    t.equal((await server.api('GET', '/data/ticket', undefined, bob2.body.token)).status, 401);

    await page.locator('#ban-reason').fill('left the company');
    await page.locator('#ban').click();
    await page.locator('#user-status', { hasText: 'Banned' }).waitFor(WAIT);
    t.equal(await page.locator('#user-status').textContent(), 'Banned (left the company)');
    const refused = await server.api('POST', '/auth/sign-in', { email: BOB.email, password: BOB.password });
    t.equal(refused.status, 403, 'a banned user cannot sign in');
    await page.locator('#unban').click();
    await page.locator('#user-status', { hasText: 'Active' }).waitFor(WAIT);
    t.equal((await server.api('POST', '/auth/sign-in', { email: BOB.email, password: BOB.password })).status, 200, 'unbanned, he can');

    await page.locator('#mail-reset').click();
    await page.locator('.notice.success', { hasText: 'A reset link was mailed' }).waitFor(WAIT);
    const outbox = await server.api('GET', '/dev/outbox', undefined, admin.token);
    const mail = outbox.body.items.find((m: { to: string; subject: string }) => m.to === BOB.email && /reset/i.test(m.subject));
    t.ok(mail, 'the reset mail is in the development outbox');
    const link = mail.links[0] as string;
    t.match(link, /reset-password/);
    const reader = await run.context.newPage();
    await reader.goto(link);
    await reader.locator('#reset-password').waitFor(WAIT);
    t.match(new URL(reader.url()).pathname, '/console/reset-password', "the link leads to the console's reset page");
    t.same(await axeViolations(reader), [], 'axe: no serious or critical violation on the reset page');
    await reader.locator('#reset-password').fill('bob-reset-password-2');
    await reader.locator('#reset-repeat').fill('bob-reset-password-2');
    await reader.getByRole('button', { name: 'Set password' }).click();
    await reader.locator('.notice.success', { hasText: 'Your password is set.' }).waitFor(WAIT);
    await reader.close();
    t.equal((await server.api('POST', '/auth/sign-in', { email: BOB.email, password: 'bob-reset-password-2' })).status, 200, 'the password chosen through the link signs in');

    await page.locator('#set-password').fill('bob-set-by-admin-3');
    await page.locator('#set-password-button').click();
    await page.locator('.notice.success', { hasText: 'The password is set' }).waitFor(WAIT);
    t.equal((await server.api('POST', '/auth/sign-in', { email: BOB.email, password: 'bob-set-by-admin-3' })).status, 200, 'and so does the one the admin set');
  });
}

async function xlsxOf(rows: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function importUsers(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('import: a CSV and an XLSX file, the dry run first', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('link', { name: 'Import users' }).click();
    await page.locator('#import-file').waitFor(WAIT);
    const csv = 'email,name\ndave@example.com,Dave\nerin@example.com,Erin\nnot-an-email,Nobody\n';
    await page.locator('#import-file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    t.equal(await page.locator('#import-run').isDisabled(), true, 'the import waits for a dry run');
    await page.locator('#import-dry-run').click();
    await page.locator('#import-summary').waitFor(WAIT);
    t.match(await page.locator('.import-report h2').textContent(), 'Dry run: nothing was written or sent');
    t.match(await page.locator('#import-summary').textContent(), 'Would create 2, update 0, skip 0; 1 row with errors.');
    const rows = await page.locator('#import-rows tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    t.same(rows, [['1', 'dave@example.com', 'create'], ['2', 'erin@example.com', 'create'], ['3', 'not-an-email', 'error']], 'each row with what would happen');
    t.match(await page.locator('#import-rows tr[data-row="3"]').textContent(), 'email', 'the bad row says which column');
    const none = await server.api('GET', '/auth/admin/list-users?searchValue=dave', undefined, admin.token);
    t.equal(none.body.users.length, 0, 'a dry run writes nothing');
    await accessible(t, 'import users, dry run');
    await shoot('import-users');
    t.equal(await page.locator('#import-run').isDisabled(), false, 'the import opens after the dry run');
    await page.locator('#import-run').click();
    await page.locator('.import-report h2', { hasText: 'Imported' }).waitFor(WAIT);
    t.match(await page.locator('#import-summary').textContent(), 'Created 2, updated 0, skipped 0; 1 row with errors. Delivery: 2 invitations by email, 1 nothing.');
    const made = await server.api('GET', '/auth/admin/list-users?searchValue=example.com&limit=100', undefined, admin.token);
    const emails = made.body.users.map((u: { email: string }) => u.email);
    t.ok(emails.includes('dave@example.com') && emails.includes('erin@example.com'), 'the two users exist');
    const outbox = await server.api('GET', '/dev/outbox', undefined, admin.token);
    t.ok(outbox.body.items.some((m: { to: string }) => m.to === 'dave@example.com'), 'their invitations are in the outbox');

    const xlsx = await xlsxOf([['Email', 'Full name'], ['erin@example.com', 'Erin Renamed'], ['frank@example.com', 'Frank']]);
    await page.locator('#import-file').setInputFiles({ name: 'people.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: xlsx });
    t.equal(await page.locator('#import-run').isDisabled(), true, 'another file needs its own dry run');
    await page.locator('#import-dry-run').click();
    await page.locator('#import-summary', { hasText: 'Would create 1, update 1' }).waitFor(WAIT);
    const planned = await page.locator('#import-rows tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 3).map((td) => td.textContent)));
    t.same(planned, [['erin@example.com', 'update'], ['frank@example.com', 'create']], 'the workbook read: an update and a creation');
    await page.locator('#import-run').click();
    await page.locator('.import-report h2', { hasText: 'Imported' }).waitFor(WAIT);
    const erin = await server.api('GET', '/auth/admin/list-users?searchValue=erin', undefined, admin.token);
    t.equal(erin.body.users[0].name, 'Erin Renamed', 'the XLSX import updated the name');
  });
}

async function apiKeys(t: Test, run: Run): Promise<void> {
  const { server, page, accessible, shoot } = run;
  await t.test('API keys: data:read minted, copied once, reads and cannot write; revoked, the next request is 401', async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'API keys', exact: true }).click();
    await page.locator('#key-name').waitFor(WAIT);
    await page.locator('#key-name').fill('reports');
    t.same(await page.locator('input[name="scope"]:checked').evaluateAll((is) => is.map((i) => i.getAttribute('value'))), ['data:read'], 'data:read is the scope offered first');
    await page.getByRole('button', { name: 'Mint key' }).click();
    await page.locator('#once-secret').waitFor(WAIT);
    const key = (await page.locator('#once-secret').textContent()) ?? '';
    t.match(key, /^osk_/, 'the key is shown');
    await page.locator('#copy-secret').click();
    await page.locator('.once-secret [role="status"]', { hasText: 'Copied.' }).waitFor(WAIT);
    t.equal(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()), key, 'the copy button put it on the clipboard');
    await accessible(t, 'API keys with a new key');
    await shoot('api-keys');
    await page.locator('#close-secret').click();
    await page.locator('#once-secret').waitFor({ state: 'detached', ...WAIT });
    t.notOk((await page.content()).includes(key), 'once closed, the key is nowhere on the page');
    const row = page.locator('#keys tr', { hasText: 'reports' });
    await row.waitFor(WAIT);
    t.equal(await row.locator('td').nth(2).textContent(), 'data:read', 'listed with its scope');

    const read = await server.api('GET', '/data/ticket', undefined, key);
    t.equal(read.status, 200, 'the key reads');
    t.ok(read.body.items.length >= 1);
    const write = await server.api('POST', '/data/ticket', { title: 'Written with a read key' }, key);
    t.equal(write.status, 403, 'and cannot write');
    t.equal(write.body.error.code, 'SCOPE_DENIED');

    await row.getByRole('button', { name: 'Revoke reports' }).click();
    await row.waitFor({ state: 'detached', ...WAIT });
    const after = await server.api('GET', '/data/ticket', undefined, key);
    t.equal(after.status, 401, 'revoked in the console: the next request is 401');
  });
}
