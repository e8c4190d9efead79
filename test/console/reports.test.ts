/**
 * Reports, dashboards, sharing rules and delegations in the console, in Debian's Chromium against
 * `osr start`, on SQLite and PostgreSQL: a report grouped by status is drawn as a chart whose
 * numbers (the chart's data and its data table) are the report's `run` answer, its delivery is
 * scheduled (a bad pattern refused on its field) and stopped; a dashboard's widgets are its `run`
 * answer; a sharing rule created in the console shows the `/sharing/rules/:id/evaluate` answer for
 * a user, is changed and deleted; a member delegates a position: over 30 days is refused with the
 * API's message on its field, within is recorded, listed and ended. axe-core checks each screen;
 * the SQLite run takes the screenshots docs/console.md shows.
 */
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { DESK_APP, startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';

const INSIGHTS_APP = join(DESK_APP, '../insights');
const ADMIN_PASSWORD = 'a-new-admin-password-1';
const CAROL = { email: 'carol@example.com', password: 'carol-password-123', name: 'Carol' };
const BOB = { email: 'bob@example.com', password: 'bob-password-12345', name: 'Bob' };
const DAY = 86_400_000;
const TICKETS: Array<[string, number]> = [['open', 1], ['open', 2], ['open', 3], ['pending', 4], ['pending', 5], ['closed', 6]];

type Check = (t: Test, screen: string) => Promise<unknown>;
interface Run {
  server: ConsoleServer;
  page: Page;
  admin: string;
  carol: { id: string; token: string };
  accessible: Check;
  shoot: (name: string) => Promise<void>;
}

/** A `datetime-local` value `offset` ms from now, in the browser's (the machine's) time zone. */
function local(offset: number): string {
  const d = new Date(Date.now() + offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** What the chart was drawn with (its figure's `data-chart`) and the cells of its data table (the API's values). */
async function drawn(page: Page, scope: string): Promise<{ chart: { labels: string[]; series: Array<{ key: string; values: number[] }> }; table: Array<Record<string, unknown>> }> {
  const chart = JSON.parse((await page.locator(`${scope} figure.chart`).getAttribute('data-chart')) ?? 'null');
  const table = await page.locator(`${scope} table.result-table tbody tr`).evaluateAll((rows) => rows.map((row) => Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.getAttribute('data-key'), JSON.parse(td.getAttribute('data-value') ?? 'null')]))));
  return { chart, table };
}

const asNumber = (v: unknown) => (typeof v === 'string' ? Number(v) : v);

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name, { apps: [DESK_APP, INSIGHTS_APP] });
      const { page, errors, foreign } = await openPage(context);
      const accessible: Check = async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot = async (name: string) => {
        if (c.name !== 'sqlite') return;
        await page.evaluate("window.scrollTo(0, 0); document.querySelectorAll('.table-wrap').forEach((wrap) => { wrap.scrollLeft = 0; })");
        await screenshot(page, name);
      };
      const { token: admin } = await adminFirstRun(server, page, ADMIN_PASSWORD);
      for (const user of [CAROL, BOB]) t.equal((await server.api('POST', '/auth/admin/create-user', { ...user, mustChangePassword: false }, admin)).status, 201, `${user.name}, a member`);
      const carolSession = await server.api('POST', '/auth/sign-in', { email: CAROL.email, password: CAROL.password });
      for (const [status, score] of TICKETS) t.equal((await server.api('POST', '/data/incident', { title: `I ${status} ${score}`, status, score }, admin)).status, 201);
      const run: Run = { server, page, admin, carol: { id: carolSession.body.user.id, token: carolSession.body.token }, accessible, shoot };

      await reports(t, run);
      await dashboards(t, run);
      await sharingRules(t, run);
      await delegations(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function reports(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test('a report grouped by status is drawn with the numbers of its run', async (t) => {
    const created = await server.api('POST', '/reports', {
      name: 'Incidents by status', description: 'Count and total score per status',
      query: { object: 'incident', groupBy: ['status'], aggregations: [{ function: 'count', alias: 'incidents' }, { function: 'sum', field: 'score', alias: 'score' }], orderBy: 'status' },
      shared: true,
    }, admin);
    t.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    await page.locator('#nav').getByRole('link', { name: 'Reports', exact: true }).click();
    const row = page.locator(`#reports tr[data-id="${id}"]`);
    await row.waitFor(WAIT);
    t.equal(await row.locator('td').nth(1).textContent(), 'incident', 'listed with what it reads');
    await accessible(t, 'reports');
    await shoot('reports');
    await row.getByRole('link', { name: 'Incidents by status' }).click();
    await page.locator('#report-run figure.chart canvas').waitFor(WAIT);

    const api = await server.api('POST', `/reports/${id}/run`, undefined, admin);
    t.equal(api.status, 200);
    const items = api.body.items as Array<{ status: string; incidents: number | string; score: number | string }>;
    t.same(items.map((i) => [i.status, asNumber(i.incidents), asNumber(i.score)]), [['closed', 1, 6], ['open', 3, 6], ['pending', 2, 9]], 'the API counts the fixture');
    const { chart, table } = await drawn(page, '#report-run');
    t.same(chart.labels, items.map((i) => i.status), "the chart's labels are the run's groups, in its order");
    t.same(chart.series.map((s) => s.key), ['incidents', 'score'], 'one series per aggregation');
    t.same(chart.series[0]!.values, items.map((i) => asNumber(i.incidents)), "the chart's counts are the run's");
    t.same(chart.series[1]!.values, items.map((i) => asNumber(i.score)), "the chart's sums are the run's");
    t.same(table, items, "the chart's data table holds exactly the run's rows");
    t.same(await page.locator('#report-run thead th').allTextContents(), api.body.columns.map((c: { label: string }) => c.label), 'its headers are the run\'s column labels');
    const label = await page.locator('#report-run canvas').getAttribute('aria-label');
    t.equal(label, 'Bar chart of Incidents by status by Status. closed: Incidents 1, Score 6; open: Incidents 3, Score 6; pending: Incidents 2, Score 9.', 'the chart is named by its numbers');
    await page.locator('#report-run-kind').selectOption('pie');
    await page.locator('#report-run figure[data-kind="pie"]').waitFor(WAIT);
    t.same((await drawn(page, '#report-run')).chart.series[0]!.values, items.map((i) => asNumber(i.incidents)), 'drawn as a pie, the same numbers');
    await page.locator('#report-run-kind').selectOption('bar');
    await accessible(t, 'a report');

    await page.locator('#schedule-cron').fill('every morning');
    await page.locator('#schedule-timezone').fill('Europe/Berlin');
    await page.locator('#schedule-recipients').fill('boss@example.com, deputy@example.com');
    await page.locator('#schedule-format').selectOption('xlsx');
    await page.locator('#save-schedule').click();
    await page.locator('#schedule-cron-error').waitFor(WAIT);
    const refused = await server.api('POST', `/reports/${id}/schedule`, { cron: 'every morning', timezone: 'Europe/Berlin', recipients: ['boss@example.com'] }, admin);
    t.equal(await page.locator('#schedule-cron-error').textContent(), refused.body.error.details.errors[0].message, "a bad pattern is refused on its field with the API's message");
    t.equal(await page.locator('#schedule-cron').getAttribute('aria-invalid'), 'true');
    await page.locator('#schedule-cron').fill('30 7 * * 1-5');
    await page.locator('#save-schedule').click();
    await page.locator('#schedule-saved').waitFor(WAIT);
    const scheduled = await server.api('GET', `/reports/${id}`, undefined, admin);
    t.same(scheduled.body.schedule, { cron: '30 7 * * 1-5', timezone: 'Europe/Berlin', recipients: ['boss@example.com', 'deputy@example.com'], format: 'xlsx' }, 'the delivery is scheduled as typed');
    await accessible(t, 'a report with its schedule');
    await shoot('report');
    await page.locator('#stop-schedule').click();
    await page.locator('#schedule-saved', { hasText: 'Delivery stopped.' }).waitFor(WAIT);
    t.equal((await server.api('GET', `/reports/${id}`, undefined, admin)).body.schedule, null, 'and stopped');
  });
}

async function dashboards(t: Test, run: Run): Promise<void> {
  const { server, page, admin, accessible, shoot } = run;
  await t.test("a dashboard's widgets are its run", async (t) => {
    await page.locator('#nav').getByRole('link', { name: 'Dashboards', exact: true }).click();
    await page.locator('#dashboards').getByRole('link', { name: 'Desk overview' }).click();
    await page.locator('#widget-by_status figure.chart canvas').waitFor(WAIT);
    await page.locator('#widget-score_share figure[data-kind="pie"]').waitFor(WAIT);
    const api = await server.api('POST', '/dashboards/desk_overview/run', undefined, admin);
    t.equal(api.status, 200);
    const byName = Object.fromEntries((api.body.widgets as Array<{ id: string; items: Array<Record<string, unknown>> }>).map((w) => [w.id, w.items]));
    t.equal(JSON.parse((await page.locator('[data-widget="all_incidents"] .metric').getAttribute('data-value')) ?? 'null'), byName.all_incidents![0]!.count, 'the metric is the run\'s');
    t.equal(asNumber(byName.all_incidents![0]!.count), TICKETS.length);
    const bars = await drawn(page, '#widget-by_status');
    t.same(bars.chart.labels, byName.by_status!.map((i) => i.status), 'the bar chart\'s labels are the run\'s');
    t.same(bars.chart.series[0]!.values, byName.by_status!.map((i) => asNumber(i.count)), 'its numbers are the run\'s');
    t.same(bars.table, byName.by_status, 'and its data table');
    const pie = await drawn(page, '#widget-score_share');
    t.same(pie.chart.series[0]!.values, byName.score_share!.map((i) => asNumber(i.score)), 'the pie\'s numbers are the run\'s');
    await accessible(t, 'a dashboard');
    await shoot('dashboard');
  });
}

async function sharingRules(t: Test, run: Run): Promise<void> {
  const { server, page, admin, carol, accessible, shoot } = run;
  await t.test('a sharing rule created in the console shows its evaluate answer; changed, deleted', async (t) => {
    const position = (await server.api('POST', '/data/sys_position', { name: 'support', label: 'Support', delegatable: true }, admin)).body.id as string;
    t.equal((await server.api('POST', '/data/sys_user_position', { user_id: carol.id, position }, admin)).status, 201, 'Carol holds Support');
    t.equal((await server.api('POST', '/data/case', { subject: 'Escalated: printer on fire' }, admin)).status, 201, "a private case Carol can't read");
    t.equal((await server.api('GET', '/data/case', undefined, carol.token)).body.items.length, 0, 'not yet');

    await page.locator('#nav').getByRole('link', { name: 'Sharing rules', exact: true }).click();
    await page.locator('#rule-name').waitFor(WAIT);
    await page.locator('#rule-name').fill('escalations_to_support');
    await page.locator('#rule-object').selectOption('case');
    await page.locator('#rule-criteria').fill('{"nope": 1}');
    await page.locator('#rule-recipient').selectOption({ label: 'Support (support)' });
    await page.locator('#save-rule').click();
    await page.locator('#rule-criteria-error').waitFor(WAIT);
    t.pass('a criteria naming an unknown field is refused on its field');
    await page.locator('#rule-criteria').fill('{"subject": {"$startsWith": "Escalated"}}');
    await page.locator('#save-rule').click();
    const row = page.locator('#sharing-rules tr[data-name="escalations_to_support"]');
    await row.waitFor(WAIT);
    t.equal(await row.locator('td').nth(3).textContent(), 'Support (support)', 'listed with its recipient');
    await page.locator('#evaluate-user').selectOption({ label: CAROL.email });
    await row.locator('.evaluation').waitFor(WAIT);
    const rule = (await server.api('GET', '/sharing/rules', undefined, admin)).body.items.find((r: { name: string }) => r.name === 'escalations_to_support');
    const answer = await server.api('POST', `/sharing/rules/${rule.id}/evaluate`, { userId: carol.id }, admin);
    t.same([await row.locator('.evaluation').getAttribute('data-recipient'), await row.locator('.evaluation').getAttribute('data-gained')], [String(answer.body.recipient), String(answer.body.gainedCount)], 'beside it, the evaluate answer for Carol');
    t.equal(answer.body.recipient, true, 'Carol is a recipient');
    t.equal(await row.locator('.evaluation').textContent(), 'Recipient; every record it covers is open to them', 'already reading what it opens');
    t.equal((await server.api('GET', '/data/case', undefined, carol.token)).body.items.length, 1, 'the rule opens the case to Carol');
    await page.locator('#evaluate-user').selectOption({ label: BOB.email });
    await page.locator('#sharing-rules tr[data-name="escalations_to_support"] .evaluation[data-recipient="false"]').waitFor(WAIT);
    const forBob = await server.api('POST', `/sharing/rules/${rule.id}/evaluate`, { userId: (await server.api('GET', `/auth/admin/list-users?searchValue=${BOB.email}`, undefined, admin)).body.users[0].id }, admin);
    const bobCell = page.locator('#sharing-rules tr[data-name="escalations_to_support"] .evaluation');
    t.same([forBob.body.recipient, await bobCell.getAttribute('data-gained')], [false, String(forBob.body.gainedCount)], 'Bob is no recipient, and the case it covers is closed to him, as the API says');
    t.equal(await bobCell.textContent(), `Not a recipient; ${forBob.body.gainedCount} record it covers is closed to them now`);

    await row.getByRole('button', { name: 'Edit escalations_to_support' }).click();
    await page.locator('#rule-access').selectOption('edit');
    await page.locator('#save-rule').click();
    await page.locator('#rule-done', { hasText: 'changed' }).waitFor(WAIT);
    const changed = (await server.api('GET', '/sharing/rules', undefined, admin)).body.items.find((r: { name: string }) => r.name === 'escalations_to_support');
    t.same([changed.access, changed.criteria, changed.version], ['edit', { subject: { $startsWith: 'Escalated' } }, rule.version + 1], 'changed through PATCH');
    await row.locator('.evaluation').waitFor(WAIT);
    await accessible(t, 'sharing rules');
    await shoot('sharing-rules');

    t.equal((await server.api('POST', '/sharing/rules', { name: 'to_delete', object: 'case', kind: 'criteria', criteria: { subject: 'x' }, recipient_type: 'user', recipient_id: carol.id }, admin)).status, 201);
    await page.reload();
    const doomed = page.locator('#sharing-rules tr[data-name="to_delete"]');
    await doomed.waitFor(WAIT);
    await doomed.getByRole('button', { name: 'Delete to_delete' }).click();
    await doomed.waitFor({ state: 'detached', ...WAIT });
    t.equal((await server.api('GET', '/sharing/rules', undefined, admin)).body.items.some((r: { name: string }) => r.name === 'to_delete'), false, 'deleted');
  });
}

async function delegations(t: Test, run: Run): Promise<void> {
  const { server, page, carol, accessible, shoot } = run;
  await t.test('a member delegates: over 30 days refused on its field, within recorded, listed, ended', async (t) => {
    await page.locator('#sign-out').click();
    await signIn(page, CAROL.email, CAROL.password);
    await page.locator('h1', { hasText: 'Administrators only' }).waitFor(WAIT);
    await page.locator('#nav').getByRole('link', { name: 'Delegations', exact: true }).click();
    await page.locator('#delegation-position').waitFor(WAIT);
    await page.locator('#delegation-position').selectOption({ label: 'Support (support)' });
    await page.locator('#delegation-email').fill(BOB.email);
    await page.locator('#delegation-from').fill(local(0));
    await page.locator('#delegation-until').fill(local(31 * DAY));
    await page.locator('#delegation-reason').fill('holiday cover');
    await page.locator('#record-delegation').click();
    await page.locator('#delegation-until-error').waitFor(WAIT);
    const listed = await server.api('GET', '/access/delegations', undefined, carol.token);
    const refused = await server.api('POST', '/access/delegations', { position: listed.body.delegable[0].position, email: BOB.email, valid_from: new Date().toISOString(), valid_until: new Date(Date.now() + 31 * DAY).toISOString(), reason: 'holiday cover' }, carol.token);
    t.same([refused.status, refused.body.error.code], [400, 'DELEGATION_INVALID'], 'the API refuses 31 days');
    t.equal(await page.locator('#delegation-until-error').textContent(), refused.body.error.details.errors[0].message, "the console shows the API's message on Until");
    t.equal(await page.locator('#delegation-until').getAttribute('aria-invalid'), 'true', 'the field is marked invalid');
    await accessible(t, 'a refused delegation');
    t.same((await server.api('GET', '/access/delegations', undefined, carol.token)).body.items, [], 'nothing recorded');

    await page.locator('#delegation-until').fill(local(7 * DAY));
    await page.locator('#record-delegation').click();
    await page.locator('#delegation-done').waitFor(WAIT);
    const row = page.locator('#delegations tbody tr');
    await row.first().waitFor(WAIT);
    const after = await server.api('GET', '/access/delegations', undefined, carol.token);
    t.equal(after.body.items.length, 1, 'one delegation recorded');
    const recorded = after.body.items[0];
    t.same([after.body.people[recorded.user_id].email, recorded.reason, recorded.delegated_by], [BOB.email, 'holiday cover', carol.id], 'to Bob, with its reason, by Carol');
    t.ok(Date.parse(recorded.valid_until) - Date.parse(recorded.valid_from) <= 30 * DAY, 'within 30 days');
    t.equal(await row.getAttribute('data-id'), recorded.id, 'listed');
    t.same(await row.locator('td').evaluateAll((tds) => tds.slice(0, 4).map((td) => td.textContent)), [BOB.email, 'Support', CAROL.email, 'holiday cover'], 'with who, what, by whom and why');
    t.equal(await row.locator('td.delegation-state').textContent(), 'Active');
    await accessible(t, 'delegations');
    await shoot('delegations');
    await row.getByRole('button', { name: `End the delegation of Support to ${BOB.email}` }).click();
    await page.locator('#delegations td.delegation-state', { hasText: 'Ended' }).waitFor(WAIT);
    const ended = (await server.api('GET', '/access/delegations', undefined, carol.token)).body.items[0];
    t.ok(Date.parse(ended.valid_until) <= Date.now(), 'ended now');
  });
}
