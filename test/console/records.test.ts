/**
 * The console's record features beyond the form, in Debian's Chromium against `osr start`, on
 * SQLite and PostgreSQL: a list view's XLSX and PDF exports hold the view's rows; lookup cells
 * and lookup fields show the referenced record's name, read in one list request per referenced
 * object; a record's Related records (lookups pointing to it), its Activities (the timeline, paged)
 * and, on its Sharing tab, the `/access/explain` answer for a user picked by search; the trash
 * paged past 100 records. A member then sees none of a field hidden from it in any export, no
 * name of a record it may not read (the id instead) and no related records through a lookup
 * hidden from it. axe-core checks every screen; the SQLite run takes the screenshots
 * docs/console.md shows.
 */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { pdfText } from '../io/pdfText.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';

const NEW_PASSWORD = 'a-new-admin-password-1';
const MEMBER = { email: 'member@example.com', password: 'member-password-123', name: 'Mem Ber' };
/** Marks every value of the field hidden from the member (ticket.secret). */
const SECRET = 'hush-';

type Check = (t: Test, screen: string) => Promise<unknown>;
type Shoot = (name: string) => Promise<void>;
type Row = Record<string, any>;
/** The page's document, as the functions run in the page read it (this file is type-checked without the DOM's types). */
type Doc = { document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null } };
interface Seed { apollo: Row; zephyr: Row; vault: Row; milestones: Row[]; memberId: string }
interface Run { server: ConsoleServer; page: Page; token: string; accessible: Check; shoot: Shoot; seed: Seed }

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name);
      const { page, errors, foreign } = await openPage(context);
      const accessible: Check = async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot: Shoot = async (name) => { if (c.name === 'sqlite') await screenshot(page, name); };
      const { token } = await adminFirstRun(server, page, NEW_PASSWORD);
      const run: Run = { server, page, token, accessible, shoot, seed: await seed(t, server, token) };

      await exports(t, run);
      await lookupNames(t, run);
      await related(t, run);
      await activities(t, run);
      await explain(t, run);
      await trashPages(t, run);

      await page.locator('#sign-out').click();
      await signIn(page, MEMBER.email, MEMBER.password);
      await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
      await memberExports(t, run);
      await memberLookups(t, run);
      await memberRelated(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function ok(t: Test, res: Promise<{ status: number; body: any }>, status: number, what: string): Promise<any> {
  const answer = await res;
  t.equal(answer.status, status, what);
  if (answer.status !== status) t.comment(JSON.stringify(answer.body).slice(0, 400));
  return answer.body;
}

/**
 * Two projects, 30 tickets (even ones open, each with a secret), milestones of Apollo with an
 * admin's vault entry, a contract of Apollo (an object nobody may list), the member, and the
 * permission sets that hide ticket.secret and milestone.project from it.
 */
async function seed(t: Test, server: ConsoleServer, token: string): Promise<Seed> {
  const api = server.api;
  await ok(t, api('POST', '/data/sys_permission_set', { name: 'auditors', fields: { 'ticket.secret': { read: true, edit: true } } }, token), 201, 'ticket.secret hidden from members');
  await ok(t, api('POST', '/data/sys_permission_set', { name: 'planners', fields: { 'milestone.project': { read: true, edit: true } } }, token), 201, 'milestone.project hidden from members');
  const member = await ok(t, api('POST', '/auth/admin/create-user', { ...MEMBER, mustChangePassword: false }, token), 201, 'the member');
  const apollo = await ok(t, api('POST', '/data/project', { name: 'Apollo' }, token), 201, 'project Apollo');
  const zephyr = await ok(t, api('POST', '/data/project', { name: 'Zephyr' }, token), 201, 'project Zephyr');
  const operations = Array.from({ length: 30 }, (_, k) => {
    const i = k + 1;
    return { method: 'create', values: { title: `R${String(i).padStart(2, '0')} ticket`, status: i % 2 === 0 ? 'open' : 'pending', score: i % 11, project: i % 3 === 0 ? zephyr.id : apollo.id, secret: `${SECRET}${i}` } };
  });
  await ok(t, api('POST', '/data/ticket/bulk', { operations }, token), 200, '30 tickets');
  const vault = await ok(t, api('POST', '/data/vault', { label: 'Admin vault entry' }, token), 201, "an admin's vault entry");
  const milestones: Row[] = [];
  for (const name of ['Kickoff', 'Launch']) milestones.push(await ok(t, api('POST', '/data/milestone', { name, project: apollo.id, vault: vault.id }, token), 201, `milestone ${name}`));
  await ok(t, api('POST', '/data/contract', { title: 'Apollo contract', project: apollo.id }, token), 201, 'a contract of Apollo (its object has no list)');
  return { apollo, zephyr, vault, milestones, memberId: member.user.id };
}

/** Clicks an export button and answers the downloaded file. */
async function download(page: Page, button: string): Promise<Buffer> {
  const [file] = await Promise.all([page.waitForEvent('download', WAIT), page.locator(button).click()]);
  return readFileSync((await file.path())!);
}

/** The sheet's rows as arrays of cell values (the first row is the header). */
async function xlsxRows(data: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

/** Every record of a list query, through the API's cursors. */
async function allRows(server: ConsoleServer, token: string, object: string, where: unknown): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `where=${encodeURIComponent(JSON.stringify(where))}&limit=200&count=none${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await server.api('GET', `/data/${object}?${query}`, undefined, token);
    rows.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return rows;
}

async function exports(t: Test, { server, page, token, accessible }: Run): Promise<void> {
  await t.test("XLSX and PDF exports hold the view's rows", async (t) => {
    await page.goto(`${server.url}/console/views/ticket.open_tickets`);
    await page.locator('tbody tr').first().waitFor(WAIT);
    t.same(await page.locator('.actions button[id^="export-"]').allTextContents(), ['Export CSV', 'Export XLSX', 'Export PDF'], 'the three exports side by side');
    await accessible(t, 'list view with the exports');
    const open = await allRows(server, token, 'ticket', { status: { $eq: 'open' } });
    t.equal(open.length, 15, "the view's where holds 15 tickets");

    const rows = await xlsxRows(await download(page, '#export-xlsx'));
    t.same(rows[0], ['id', 'title', 'status', 'score', 'project'], 'XLSX: the header, id then the view\'s columns');
    t.same(rows.slice(1).map((r) => String(r[0])).sort(), open.map((r) => String(r.id)).sort(), 'XLSX: exactly the rows of the view');
    const byId = new Map(open.map((r) => [String(r.id), r]));
    t.ok(rows.slice(1).every((r) => byId.get(String(r[0]))?.title === r[1] && byId.get(String(r[0]))?.project === r[4]), 'XLSX: each row with its values');

    const pdf = await download(page, '#export-pdf');
    t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'PDF: a PDF document');
    const text = pdfText(pdf);
    t.same(open.map((r) => r.title).filter((title) => !text.includes(title)), [], 'PDF: every title of the view');
    t.notOk(text.some((s) => /^R\d\d ticket$/.test(s) && !open.some((r) => r.title === s)), 'PDF: no ticket outside the view');
    t.ok(text.includes('Title') && text.includes('Project'), 'PDF: the column labels');
  });
}

async function lookupNames(t: Test, { server, page, token, seed }: Run): Promise<void> {
  await t.test("lookups show the referenced record's name, one read per referenced object", async (t) => {
    const reads: string[] = [];
    const listen = (r: { url(): string }) => { if (/\/api\/v1\/data\/project(\?|\/)/.test(r.url())) reads.push(r.url()); };
    page.on('request', listen);
    await page.goto(`${server.url}/console/views/ticket.open_tickets`);
    await page.locator('tbody td [data-lookup="name"]').first().waitFor(WAIT);
    const cells = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => {
      const a = tr.querySelector('td:nth-child(5) a');
      return [tr.getAttribute('data-id'), a?.textContent ?? null, a?.getAttribute('href') ?? null];
    }));
    page.off('request', listen);
    const open = new Map((await allRows(server, token, 'ticket', { status: { $eq: 'open' } })).map((r) => [String(r.id), r]));
    const names = new Map([[seed.apollo.id, 'Apollo'], [seed.zephyr.id, 'Zephyr']]);
    t.equal(cells.length, 15);
    t.same(cells.filter(([id, name, link]) => {
      const project = open.get(id!)?.project;
      return name !== names.get(project) || link !== `/console/records/project/${project}`;
    }), [], "each project cell: the project's name, linking to its page");
    t.equal(reads.length, 1, `the page's projects were read in one request (${reads.length})`);
    t.match(decodeURIComponent(reads[0] ?? ''), /"\$in":\[/, 'with an $in filter on the ids');

    const ticket = [...open.values()][0]!;
    await page.goto(`${server.url}/console/records/ticket/${ticket.id}?view=ticket.open_tickets`);
    await page.locator('#field-project-chosen a').waitFor(WAIT);
    t.equal(await page.locator('#field-project-chosen a').textContent(), names.get(ticket.project), "the record page's lookup field shows the name");
    t.equal(await page.locator('#field-project-chosen a').getAttribute('href'), `/console/records/project/${ticket.project}`, 'linking to the record');
  });
}

async function related(t: Test, { server, page, token, accessible, shoot, seed }: Run): Promise<void> {
  await t.test('Related records: the records whose lookups point here, by lookup, linked', async (t) => {
    await page.goto(`${server.url}/console/records/project/${seed.apollo.id}`);
    await page.locator('#tab-related').waitFor(WAIT);
    t.same(await page.locator('[role="tab"]').allTextContents(), ['Related records'], 'a project enables no other tab');
    await page.locator('#tab-related').click();
    await page.locator('.related-list').nth(1).waitFor(WAIT);
    const lists = await page.locator('.related-list').evaluateAll((ss) => ss.map((s) => `${s.getAttribute('data-object')}.${s.getAttribute('data-field')}`));
    t.same(lists.sort(), ['milestone.project', 'ticket.project'], 'tickets and milestones by their project; not contracts (nobody may list them)');

    const tickets = await allRows(server, token, 'ticket', { project: { $eq: seed.apollo.id } });
    t.equal(tickets.length, 20, "Apollo's 20 tickets");
    const ticketList = page.locator('.related-list[data-object="ticket"]');
    // Each list reads its records once it is shown: wait for its first page.
    await ticketList.locator('li').nth(9).waitFor(WAIT);
    t.match(await ticketList.locator('h2').textContent(), /Tickets by Project \(20\)/, 'the list says how many');
    t.equal(await ticketList.locator('li').count(), 10, 'the first ten');
    await ticketList.locator('.related-more').click();
    await ticketList.locator('li').nth(19).waitFor(WAIT);
    const shown = await ticketList.locator('li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-id'), li.querySelector('a')?.textContent, li.querySelector('a')?.getAttribute('href')]));
    t.same(shown.map(([id]) => id).sort(), tickets.map((r) => String(r.id)).sort(), 'then the others: every ticket of the project, once');
    t.ok(shown.every(([id, text, link]) => text === tickets.find((r) => r.id === id)?.title && link === `/console/records/ticket/${id}`), 'each by its title, linking to its page');
    t.equal(await ticketList.locator('.related-more').count(), 0, 'no more to load');
    await page.locator('.related-list[data-object="milestone"] li').nth(1).waitFor(WAIT);
    const milestones = await page.locator('.related-list[data-object="milestone"] li a').allTextContents();
    t.same(milestones.sort(), ['Kickoff', 'Launch'], 'the milestones');
    await accessible(t, 'related records');
    await shoot('related');
    await page.locator('.related-list[data-object="milestone"] a', { hasText: 'Kickoff' }).click();
    await page.locator('h1', { hasText: 'Kickoff' }).waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, `/console/records/milestone/${seed.milestones[0]!.id}`, "a link opens the record's page");
    // The record page shows its form and its tabs at once, with the lookups pointing to it.
    await page.locator('#field-name').waitFor(WAIT);
    t.equal(await page.locator('[role="tab"]').count(), 0, 'a milestone (no timeline, no comments, open to all, nothing pointing to it) has no tab');
  });
}

async function activities(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('Activities: the timeline, newest first, paged', async (t) => {
    const record = await ok(t, server.api('POST', '/data/case', { subject: 'Flooded basement' }, token), 201, 'a case');
    for (let i = 1; i <= 22; i++) await ok(t, server.api('POST', `/data/case/${record.id}/comments`, { body: `Note ${i}` }, token), 201, `comment ${i}`);
    await ok(t, server.api('PATCH', `/data/case/${record.id}`, { details: 'Pump ordered', expectedVersion: record.version }, token), 200, 'an edit');
    const timeline: Row[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: any } = await server.api('GET', `/data/case/${record.id}/activities?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, token);
      timeline.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    t.equal(timeline.length, 24, 'the API: the creation, 22 comments, the edit');

    await page.goto(`${server.url}/console/records/case/${record.id}`);
    await page.locator('#tab-activities').waitFor(WAIT);
    t.same(await page.locator('[role="tab"]').allTextContents(), ['History', 'Activities', 'Comments', 'Files', 'Sharing'], 'Activities beside the other tabs');
    await page.locator('#tab-activities').click();
    await page.locator('.activity-list li').first().waitFor(WAIT);
    const summaries = () => page.locator('.activity-list > li > strong').allTextContents();
    t.equal((await summaries()).length, 20, 'a first page of 20');
    t.equal((await summaries())[0], 'Updated: details', 'newest first: the edit');
    t.equal(await page.locator('.activity-list > li').nth(1).locator('p').textContent(), 'Note 22', "a comment's text");
    await accessible(t, 'activities tab');
    await shoot('activities');
    await page.locator('#activities-more').click();
    await page.locator('.activity-list > li').nth(23).waitFor(WAIT);
    t.same(await summaries(), timeline.map((a) => a.summary), "then the rest: the API's timeline, in its order");
    t.equal(await page.locator('.activity-list > li').last().getAttribute('data-kind'), 'history', 'ending with the creation');
    t.equal(await page.locator('#activities-more').count(), 0, 'nothing more');
  });
}

async function explain(t: Test, { server, page, token, accessible, shoot, seed }: Run): Promise<void> {
  await t.test('Sharing: why a person picked by search may or may not see the record', async (t) => {
    const record = await ok(t, server.api('POST', '/data/case', { subject: 'Leaking tap' }, token), 201, 'a private case');
    await page.goto(`${server.url}/console/records/case/${record.id}`);
    await page.locator('#tab-sharing').click();
    await page.locator('#explain-user').fill('Mem B');
    await page.locator(`#explain-user-options [data-user="${seed.memberId}"] button`).waitFor(WAIT);
    t.equal(await page.locator('#explain-user-options li').count(), 1, 'the search by name finds the member alone');
    await page.locator('#explain-user').fill('member@');
    t.equal(await page.locator('#explain-user-options').count(), 0, 'a new text drops the previous matches');
    await page.locator(`#explain-user-options [data-user="${seed.memberId}"] button`).waitFor(WAIT);
    t.pass('and by email');
    await page.locator(`#explain-user-options [data-user="${seed.memberId}"] button`).click();
    await page.locator('#explain-answer .decision[data-operation="read"]').waitFor(WAIT);
    const api = (await server.api('GET', `/access/explain?userId=${seed.memberId}&object=case&recordId=${record.id}`, undefined, token)).body;
    t.equal(api.read.allowed, false, 'the API: the member may not read it');
    const decision = (op: string) => page.locator(`#explain-answer .decision[data-operation="${op}"]`);
    t.equal(await decision('read').getAttribute('data-allowed'), 'false', 'shown: read not allowed');
    t.equal(await decision('edit').getAttribute('data-allowed'), 'false', 'nor edit');
    t.same(await decision('read').locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-source'))), api.read.reasons.map((r: { source: string }) => r.source), "with the API's reasons, in order");
    t.match(await decision('read').locator('li[data-source="sharingModel"]').textContent(), /Denies · sharingModel private: not the owner/, 'the deny said in words');
    await accessible(t, 'sharing tab with an explanation');

    await page.locator('#share-recipient').fill(seed.memberId);
    await page.locator('#share-record').click();
    await page.locator(`.share-list li[data-recipient="${seed.memberId}"]`).waitFor(WAIT);
    await page.locator('#explain-answer .decision[data-operation="read"][data-allowed="true"]').waitFor(WAIT);
    t.ok(await decision('read').locator('li[data-source="share"][data-effect="grant"]').count() === 1, 'once shared: read allowed through the share');
    t.equal(await decision('edit').getAttribute('data-allowed'), 'false', 'edit still not (a read share)');
    t.equal(await page.locator('#explain-user-options').count(), 0, 'the picked search is closed');
    await page.locator('#explain-answer').scrollIntoViewIfNeeded();
    await shoot('sharing-explain');
  });
}

async function trashPages(t: Test, { server, page, token, accessible }: Run): Promise<void> {
  await t.test('Trash: more than 100 deleted records, paged to the end', async (t) => {
    const operations = Array.from({ length: 130 }, (_, k) => ({ method: 'create', values: { title: `D${String(k + 1).padStart(3, '0')}` } }));
    const created = await ok(t, server.api('POST', '/data/ticket/bulk', { operations }, token), 200, '130 tickets');
    const ids = created.results.map((r: { body: { id: string } }) => r.body.id) as string[];
    await ok(t, server.api('POST', '/data/ticket/bulk', { operations: ids.map((id) => ({ method: 'delete', id })) }, token), 200, 'deleted into the trash');

    await page.goto(`${server.url}/console/trash/ticket`);
    await page.locator('.trash-list li').first().waitFor(WAIT);
    t.equal(await page.locator('#trash-total').textContent(), '130 records in the trash', 'the total');
    const seen: string[] = [];
    for (let n = 1; n < 10; n++) {
      await page.locator('.pager span', { hasText: `Page ${n}` }).waitFor(WAIT);
      seen.push(...await page.locator('.trash-list li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')!)));
      if (await page.locator('#trash-next').isDisabled()) break;
      const before = await page.locator('.trash-list li').first().getAttribute('data-id');
      await page.locator('#trash-next').click();
      await page.waitForFunction((id) => (globalThis as unknown as Doc).document.querySelector('.trash-list li')?.getAttribute('data-id') !== id, before, WAIT);
    }
    t.equal(seen.length, 130, 'paging reaches every deleted record');
    t.equal(new Set(seen).size, 130, 'with no duplicate');
    t.same([...seen].sort(), [...ids].sort(), 'exactly the deleted ones');
    await accessible(t, 'trash, last page');
    const last = seen[seen.length - 1]!;
    await page.locator(`.trash-list li[data-id="${last}"] button`).click();
    await page.locator(`.trash-list li[data-id="${last}"]`).waitFor({ state: 'detached', ...WAIT });
    t.equal((await server.api('GET', `/data/ticket/${last}`, undefined, token)).status, 200, 'a restore from a later page');
    const lastPage = await page.locator('.trash-list li').first().getAttribute('data-id');
    await page.locator('#trash-prev').click();
    await page.waitForFunction((id) => (globalThis as unknown as Doc).document.querySelector('.trash-list li')?.getAttribute('data-id') !== id, lastPage, WAIT);
    t.equal(await page.locator('.trash-list li').count(), 50, 'back a page: 50 more');
    t.equal(await page.locator('.pager span').textContent(), 'Page 2');
  });
}

async function memberExports(t: Test, { server, page }: Run): Promise<void> {
  await t.test('a member: no export holds the field hidden from it', async (t) => {
    await page.goto(`${server.url}/console/views/ticket.all_tickets`);
    await page.locator('tbody tr').first().waitFor(WAIT);
    const shownIds = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));

    const csv = (await download(page, '#export-csv')).toString('utf8').trim().split(/\r?\n/);
    t.same(csv[0]?.split(','), ['id', 'title', 'status', 'score', 'created_at'], 'CSV: no secret column');
    t.notOk(csv.join('\n').includes(SECRET), 'CSV: no secret value');

    const rows = await xlsxRows(await download(page, '#export-xlsx'));
    t.same(rows[0], ['id', 'title', 'status', 'score', 'created_at'], 'XLSX: no secret column');
    t.notOk(rows.some((r) => r.some((v) => String(v).includes(SECRET))), 'XLSX: no secret value');
    t.same(rows.slice(1).map((r) => String(r[0])), shownIds, 'XLSX: the rows of the view, in its order');

    const pdf = await download(page, '#export-pdf');
    t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'PDF: a PDF document');
    const text = pdfText(pdf);
    t.notOk(text.some((s) => s.includes(SECRET) || s === 'Secret'), 'PDF: neither the secret column nor a value');
    t.ok(text.includes('R01 ticket') && text.includes('R30 ticket'), 'PDF: the rows');
  });
}

async function memberLookups(t: Test, { server, page, accessible, seed }: Run): Promise<void> {
  await t.test("a member: a lookup to a record it may not read shows the id, never the record's name", async (t) => {
    await page.goto(`${server.url}/console/views/milestone.default`);
    await page.locator('tbody td [data-lookup="hidden"]').first().waitFor(WAIT);
    const columns = await page.locator('thead th button.sort').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-column')));
    t.notOk(columns.includes('project'), 'the hidden lookup has no column');
    t.ok(columns.includes('vault'), 'the vault lookup has one');
    t.same(await page.locator('tbody td [data-lookup="hidden"]').allTextContents(), [seed.vault.id, seed.vault.id], "the vault entry's id, not its label");
    t.equal(await page.locator('tbody td [data-lookup="name"]').count(), 0, 'no name');
    t.notOk((await page.content()).includes('Admin vault entry'), "the label is nowhere in the page");
    await accessible(t, 'member list with an unreadable lookup');

    await page.goto(`${server.url}/console/records/milestone/${seed.milestones[0]!.id}`);
    await page.locator('#field-vault-chosen[data-lookup="hidden"]').waitFor(WAIT);
    t.equal(await page.locator('#field-vault-chosen').textContent(), seed.vault.id, 'the record page: the id');
    t.equal(await page.locator('#field-project').count(), 0, 'and no control for the hidden lookup');
    t.notOk((await page.content()).includes('Admin vault entry'), 'no label there either');

    await page.goto(`${server.url}/console/views/ticket.open_tickets`);
    await page.locator('tbody td [data-lookup="name"]').first().waitFor(WAIT);
    t.same([...new Set(await page.locator('tbody td [data-lookup="name"]').allTextContents())].sort(), ['Apollo', 'Zephyr'], 'projects it may read: by name');
  });
}

async function memberRelated(t: Test, { server, page, accessible, seed }: Run): Promise<void> {
  await t.test('a member: no related records through a lookup hidden from it', async (t) => {
    await page.goto(`${server.url}/console/records/project/${seed.apollo.id}`);
    await page.locator('#tab-related').click();
    await page.locator('.related-list[data-object="ticket"] li').first().waitFor(WAIT);
    const lists = await page.locator('.related-list').evaluateAll((ss) => ss.map((s) => `${s.getAttribute('data-object')}.${s.getAttribute('data-field')}`));
    t.same(lists, ['ticket.project'], 'tickets only: milestone.project is hidden from the member');
    t.notOk((await page.locator('.related').textContent())?.includes('Kickoff'), 'no milestone');
    await accessible(t, 'member related records');
  });
}
