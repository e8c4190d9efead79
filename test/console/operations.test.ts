/**
 * The console's Operations screens in Debian's Chromium against `osr start`, on SQLite and
 * PostgreSQL: a dead job is retried from the Jobs screen and completes; a running flow (its http
 * step held by a test server) is cancelled from its run page and shows cancelled, its next step
 * never run; the hook deliveries, the lifecycle dry run, the index advice, the plugins and the
 * health show what the API answers. A member gets no Operations link and the API refuses it.
 * axe-core checks every screen; the SQLite run takes the screenshots docs/console.md shows.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { signPayload } from '../../plugins/automation/verifySignature.ts';
import { databaseCases } from '../harness/databases.ts';
import { freePort } from '../harness/freePort.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { DESK_APP, startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { FLAKY_ERROR, FLAKY_JOB } from './fixtures/ops-probe/index.ts';
import { adminFirstRun, signIn, WAIT } from './signIn.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const OPERATIONS_APP = join(ROOT, 'test/console/fixtures/operations');
const OPS_PROBE = join(ROOT, 'test/console/fixtures/ops-probe/index.ts');
const NEW_PASSWORD = 'a-new-admin-password-1';
const MEMBER = { email: 'member@example.com', password: 'member-password-123', name: 'Mem Ber' };
const HOOK_SECRET = 'operations-hook-secret-for-tests';
process.env.OSR_TEST_OPS_HOOK_SECRET = HOOK_SECRET;

type Check = (t: Test, screen: string) => Promise<unknown>;
type Shoot = (name: string) => Promise<void>;
interface Run { server: ConsoleServer; page: Page; token: string; upstream: Upstream; accessible: Check; shoot: Shoot }

/** The other end of the flow's http steps: `/call` answers only once released; `/report` is counted. */
interface Upstream {
  url: string;
  calls: string[];
  release(): void;
}

async function startUpstream(t: Test): Promise<Upstream> {
  const calls: string[] = [];
  const held: ServerResponse[] = [];
  let released = false;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    calls.push(request.url ?? '');
    request.resume();
    if (request.url === '/call' && !released) held.push(response);
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    release() {
      released = true;
      for (const response of held.splice(0)) response.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":"late"}');
    },
  };
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const upstream = await startUpstream(t);
      const server = await startConsoleServer(t, c.name, {
        apps: [DESK_APP, OPERATIONS_APP],
        plugins: {
          'ops-probe': { path: OPS_PROBE, grants: ['jobs.queue', 'http.routes'] },
          flows: { http: { allow: [`${upstream.url}/`] } },
          // Every read is recorded for the index advice.
          data: { slowQueryMs: 0 },
        },
      });
      const { page, errors, foreign } = await openPage(context);
      const accessible: Check = async (t, screen) => t.same(await axeViolations(page), [], `axe: no serious or critical violation on ${screen}`);
      const shoot: Shoot = async (name) => { if (c.name === 'sqlite') await screenshot(page, name); };
      const { token } = await adminFirstRun(server, page, NEW_PASSWORD);
      const run: Run = { server, page, token, upstream, accessible, shoot };

      await navigation(t, run);
      await retryDeadJob(t, run);
      await cancelRunningFlow(t, run);
      await hookDeliveries(t, run);
      await lifecycle(t, run);
      await indexAdvice(t, run);
      await plugins(t, run);
      await health(t, run);
      await member(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function openScreen(page: Page, link: string, title: string): Promise<void> {
  await page.locator('#nav').getByRole('link', { name: link, exact: true }).click();
  await page.locator('h1', { hasText: title }).waitFor(WAIT);
}

async function navigation(t: Test, { page }: Run): Promise<void> {
  await t.test('an admin finds the Operations screens in the navigation', async (t) => {
    await page.locator('#nav h2', { hasText: 'Operations' }).waitFor(WAIT);
    const links = await page.locator('#nav .ops-nav a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    t.same(links, [
      ['Jobs', '/console/ops/jobs'], ['Flow runs', '/console/ops/flows'], ['Hook deliveries', '/console/ops/hooks'], ['Lifecycle', '/console/ops/lifecycle'],
      ['Index advice', '/console/ops/index-advice'], ['Plugins', '/console/ops/plugins'], ['Health', '/console/ops/health'],
    ]);
  });
}

async function retryDeadJob(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('a dead job is retried from the console and completes', async (t) => {
    const queued = await server.api('POST', '/ops-probe/flaky', {}, token);
    t.equal(queued.status, 200, 'a job that fails once, with one attempt');
    const id = queued.body.id as string;
    await until(async () => (await server.api('GET', `/jobs/${id}`, undefined, token)).body.state === 'dead', 'the job to die');

    await openScreen(page, 'Jobs', 'Jobs');
    const row = page.locator(`#dead-jobs tr[data-id="${id}"]`);
    await row.waitFor(WAIT);
    t.equal(await row.locator('td').first().textContent(), FLAKY_JOB, 'the dead letter by its job name');
    t.equal(await row.locator('.last-error').textContent(), FLAKY_ERROR, 'with its last error');
    t.equal(await page.locator(`#job-counts tr[data-name="${FLAKY_JOB}"] td[data-state="dead"]`).textContent(), '1', 'counted dead');
    t.equal(await page.locator('#jobs-backend').textContent(), 'embedded');
    await accessible(t, 'the jobs');
    await shoot('ops-jobs');

    await row.getByRole('button', { name: 'Retry' }).click();
    await page.locator('#retried[data-state="completed"]').waitFor(WAIT);
    t.match(await page.locator('#retried').textContent(), `${id} was queued again: completed`, 'the console follows it to completion');
    const after = await server.api('GET', `/jobs/${id}`, undefined, token);
    t.equal(after.body.state, 'completed', 'the API says it completed');
    await page.locator('#no-dead').waitFor(WAIT);
    t.equal(await page.locator('#dead-jobs').count(), 0, 'no dead letter left');
    t.equal(await page.locator(`#job-counts tr[data-name="${FLAKY_JOB}"] td[data-state="completed"]`).textContent(), '1', 'counted completed');
    await page.locator('#job-state').selectOption('completed');
    await page.locator(`#state-jobs tr[data-id="${id}"]`).waitFor(WAIT);
    t.pass('listed among the completed jobs');
    await accessible(t, 'the jobs after a retry');
  });
}

async function cancelRunningFlow(t: Test, { server, page, token, upstream, accessible, shoot }: Run): Promise<void> {
  await t.test('a running flow is cancelled from the console and shows cancelled', async (t) => {
    const started = await server.api('POST', '/flows/slow_call/start', { url: upstream.url }, token);
    t.equal(started.status, 202);
    const runId = started.body.runId as string;
    await until(async () => upstream.calls.includes('/call'), 'the run to call out');

    await openScreen(page, 'Flow runs', 'Flow runs');
    const row = page.locator(`#flow-runs tr[data-id="${runId}"]`);
    await row.waitFor(WAIT);
    t.equal(await row.getAttribute('data-status'), 'running', 'listed running');
    await accessible(t, 'the flow runs');
    await shoot('ops-flow-runs');

    await row.getByRole('link', { name: runId }).click();
    await page.locator('h1', { hasText: 'Run of slow_call' }).waitFor(WAIT);
    t.equal(await page.locator('#run-status').textContent(), 'running');
    await page.locator('#cancel-run').click();
    await page.locator('[role="status"]', { hasText: 'Cancel asked' }).waitFor(WAIT);
    t.pass('the cancel is asked while the step runs');
    upstream.release();
    await page.locator('#run-status', { hasText: 'cancelled' }).waitFor(WAIT);
    t.same(await page.locator('#run-steps tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-step'), r.getAttribute('data-status')])), [['call', 'completed']],
      'the step in progress finished and was recorded; the next one never ran');
    t.equal(await page.locator('#cancel-run').count(), 0, 'a cancelled run offers no cancel');
    const read = await server.api('GET', `/flows/slow_call/runs/${runId}`, undefined, token);
    t.equal(read.body.status, 'cancelled', 'the API says it was cancelled');
    t.notOk(upstream.calls.includes('/report'), 'its second step never called out');
    await accessible(t, 'a cancelled run');
    await shoot('ops-flow-run');
  });
}

async function hookDeliveries(t: Test, { server, page, accessible, shoot }: Run): Promise<void> {
  await t.test('the inbound hook deliveries, with their runs', async (t) => {
    const runs: string[] = [];
    for (const [order, delivery] of [['A-1', 'order-A-1'], ['A-2', null]] as const) {
      const body = JSON.stringify({ order });
      const at = Math.floor(Date.now() / 1000);
      const res = await fetch(`${server.url}/api/v1/automation/hooks/order_in/orders`, {
        method: 'POST', body,
        headers: { 'content-type': 'application/json', 'x-osr-signature': `t=${at},v1=${signPayload(HOOK_SECRET, at, body)}`, ...(delivery ? { 'x-osr-delivery': delivery } : {}) },
      });
      t.equal(res.status, 202, `the delivery of ${order} is accepted`);
      runs.push(((await res.json()) as { runId: string }).runId);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await openScreen(page, 'Hook deliveries', 'Hook deliveries');
    await page.locator(`#deliveries tr[data-run="${runs[0]}"]`).waitFor(WAIT);
    const rows = await page.locator('#deliveries tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-run'), ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)]));
    t.same(rows, [[runs[1], 'order_in', 'none sent', runs[1]], [runs[0], 'order_in', 'order-A-1', runs[0]]], 'newest first, with the delivery id sent, linked to the run');
    await accessible(t, 'the hook deliveries');
    await shoot('ops-hooks');
    await page.locator(`#deliveries a`, { hasText: runs[0]! }).click();
    await page.locator('h1', { hasText: 'Run of order_in' }).waitFor(WAIT);
    await page.locator('#run-status', { hasText: 'completed' }).waitFor(WAIT);
    t.pass('a delivery opens its run');
  });
}

async function lifecycle(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('the lifecycle dry run', async (t) => {
    await openScreen(page, 'Lifecycle', 'Lifecycle');
    await page.locator('#contracts tbody tr').first().waitFor(WAIT);
    const shown = await page.locator('#contracts tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-contract')} ${tr.getAttribute('data-object')}`));
    const api = await server.api('GET', '/lifecycle/dry-run', undefined, token);
    t.equal(api.status, 200);
    t.same(shown, api.body.contracts.map((c: { name: string; object: string }) => `${c.name} ${c.object}`), "the API's contracts, in its order");
    t.ok(shown.includes('system.activity sys_job') && shown.includes('flows.runs sys_flow_run'), 'jobs and flow runs among them');
    t.match(await page.locator('#contracts tr[data-object="sys_flow_run"] td').last().textContent(), /^0 rows would be removed/, 'nothing is old enough yet');
    await accessible(t, 'the lifecycle dry run');
    await shoot('ops-lifecycle');
  });
}

async function indexAdvice(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('the index advice', async (t) => {
    for (let i = 0; i < 3; i++) t.equal((await server.api('POST', '/data/ticket', { title: `Ticket ${i}`, status: 'open', score: i }, token)).status, 201);
    // A shape no declared view (nor index) serves: the views sort by title, or filter open tickets by score.
    const where = encodeURIComponent(JSON.stringify({ status: 'open', score: { $gte: 1 } }));
    t.equal((await server.api('GET', `/data/ticket?where=${where}&orderBy=created_at`, undefined, token)).status, 200, 'a read the advice records');
    await openScreen(page, 'Index advice', 'Index advice');
    await page.locator('#index-advice tr[data-object="ticket"]').first().waitFor(WAIT);
    const api = await server.api('GET', '/metrics/index-advice', undefined, token);
    const shown = await page.locator('#index-advice tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelector('code')?.textContent));
    t.ok(api.body.items.length >= 1, 'the API advises');
    const sql = api.body.items.filter((i: { object: string }) => i.object === 'ticket').map((i: { sql: string }) => i.sql);
    t.ok(sql.length >= 1 && sql.every((s: string) => shown.includes(s)), "each of the API's statements for tickets is shown");
    t.ok(shown.every((s) => api.body.items.some((i: { sql: string }) => i.sql === s)), 'and nothing else');
    await accessible(t, 'the index advice');
    await shoot('ops-index-advice');
  });
}

async function plugins(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('the plugins and their state', async (t) => {
    await openScreen(page, 'Plugins', 'Plugins');
    await page.locator('#plugins tr[data-name="ops-probe"]').waitFor(WAIT);
    const shown = await page.locator('#plugins tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-name'), tr.getAttribute('data-state')]));
    const api = await server.api('GET', '/plugins', undefined, token);
    t.same(shown, api.body.items.map((p: { name: string; state: string }) => [p.name, p.state]), "the API's plugins and states, in configuration order");
    t.ok(shown.some(([name, state]) => name === 'ops-probe' && state === 'enabled'), 'the local plugin enabled');
    t.ok(shown.some(([, state]) => state === 'disabled'), 'a disabled one says so');
    await accessible(t, 'the plugins');
    await shoot('ops-plugins');
  });
}

async function health(t: Test, { server, page, accessible, shoot }: Run): Promise<void> {
  await t.test('the health of the server', async (t) => {
    await openScreen(page, 'Health', 'Health');
    await page.locator('#health-status').waitFor(WAIT);
    const api = await server.api('GET', '/health');
    t.equal(await page.locator('#health-status').textContent(), api.body.status);
    t.equal(await page.locator('#health-caches').textContent(), api.body.details.caches);
    t.match(await page.locator('.facts').textContent(), api.body.version, 'with the version');
    await accessible(t, 'the health');
    await shoot('ops-health');
  });
}

async function member(t: Test, { server, page, token, accessible }: Run): Promise<void> {
  await t.test('a member gets no Operations link, and the API refuses it', async (t) => {
    t.equal((await server.api('POST', '/auth/admin/create-user', { ...MEMBER, mustChangePassword: false }, token)).status, 201);
    await page.locator('#sign-out').click();
    await signIn(page, MEMBER.email, MEMBER.password);
    await page.locator('#nav a[data-object="ticket"]').waitFor(WAIT);
    t.equal(await page.locator('#nav h2', { hasText: 'Operations' }).count(), 0, 'no Operations section');
    t.equal(await page.locator('#nav a[href*="/ops/"]').count(), 0, 'no link to an Operations screen');
    await page.goto(`${server.url}/console/ops/jobs`);
    await page.locator('[role="alert"]', { hasText: 'admin is required' }).waitFor(WAIT);
    t.match(await page.locator('[role="alert"]', { hasText: 'admin is required' }).textContent(), 'PERMISSION_DENIED', "the address typed in shows the API's refusal");
    t.equal(await page.locator('#dead-jobs, #job-counts').count(), 0, 'and no job');
    await accessible(t, "the member's refused Jobs screen");
    const signedIn = await server.api('POST', '/auth/sign-in', { email: MEMBER.email, password: MEMBER.password });
    const memberToken = signedIn.body.token as string;
    for (const path of ['/jobs', '/automation/deliveries', '/lifecycle/dry-run', '/plugins', '/metrics/index-advice', '/data/sys_flow_run']) {
      const res = await server.api('GET', path, undefined, memberToken);
      t.equal(res.status, 403, `GET ${path} refuses a member`);
    }
  });
}
