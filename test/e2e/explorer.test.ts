/** The API explorer in a real headless Chromium: it loads the live document and lists the CRM objects. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import t from 'tap';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { BUILTINS } from '../meta/metaFixtures.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CRM = ['account', 'contact', 'lead', 'opportunity', 'task'];
const ADMIN = { email: 'explorer-admin@example.com', password: 'explorer-password-1' };

if (!existsSync(CHROMIUM)) {
  if (process.env.CI === 'true') t.fail(`Chromium is required when CI=true but was not found at ${CHROMIUM} (apt-get install chromium)`);
  else t.plan(0, `Chromium not found at ${CHROMIUM}; install it (apt-get install chromium) or set CHROMIUM_PATH to run this test`);
} else {
  await run();
}

/** A runtime listening on a real port (chosen by the system); `realAuth` keeps the real identity plugins and makes an admin. */
async function listening(requireAuth: boolean, realAuth = false): Promise<{ rt: TestRuntime; base: string }> {
  const rt = await startTestRuntime({
    config: { apps: ['metadata/apps/crm'], api: { requireAuth }, server: { listen: true, port: 0, host: '127.0.0.1' }, ...(realAuth ? { auth: { admin: ADMIN } } : {}) },
    ...(requireAuth && !realAuth ? { builtins: BUILTINS } : {}),
  });
  const base = rt.runtime.http().url();
  if (!base) throw new Error('the runtime is not listening');
  return { rt, base };
}

/** Opens a page that records console errors (CSP violations among them) and every URL it requested. */
async function open(context: BrowserContext): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, errors, requests };
}

async function run(): Promise<void> {
  const profile = mkdtempSync(join(tmpdir(), 'osr-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  t.teardown(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });

  await t.test('requireAuth false: the page renders the document and lists the CRM objects', async (t) => {
    const { rt, base } = await listening(false);
    t.teardown(() => rt.close());
    const { page, errors, requests } = await open(context);
    const response = await page.goto(`${base}/api/v1/docs`);
    t.equal(response?.status(), 200, 'the page is served');
    t.match(response?.headers()['content-security-policy'], /default-src 'none'/, 'under a strict CSP');
    await page.locator('#objects li[data-object]').first().waitFor({ timeout: 15_000 });
    const objects = await page.locator('#objects li[data-object]').evaluateAll((items) => items.map((i) => i.getAttribute('data-object')));
    for (const name of CRM) t.ok(objects.includes(name), `${name} is listed`);
    t.equal(objects.some((name) => name?.startsWith('sys_meta_')), false, 'objects the API does not serve are not');
    t.match(await page.locator('#status').textContent(), /OpenAPI 3\.0\.3/, 'the status names the document');
    t.match(await page.locator('#objects').textContent(), /Opportunity/, 'object labels are shown');
    const operations = await page.locator('details.op').count();
    t.ok(operations > 40, `operations are rendered (${operations})`);
    t.equal(await page.locator('details.op[data-operation="listAccount"] .path').textContent(), '/data/account', 'a per-object path');
    await page.locator('details.op[data-operation="createAccount"] > summary').click();
    t.match(await page.locator('details.op[data-operation="createAccount"] .op-body').textContent(), /billing_email.*string \(email\)/s, 'its request body with field types');
    await page.locator('#filter').fill('openapi.json');
    const visible = await page.locator('details.op:visible').evaluateAll((ops) => ops.map((o) => o.getAttribute('data-operation')));
    t.same(visible, ['getOpenapiJson'], 'the filter keeps matching operations only');
    t.same(await page.locator('#objects li[data-object]:visible').count(), 0, 'and no object matches it');
    await page.locator('#filter').fill('opportun');
    const shown = await page.locator('#objects li[data-object]:visible').evaluateAll((items) => items.map((i) => i.getAttribute('data-object')));
    t.same(shown, ['opportunity'], 'the filter narrows the objects list');
    t.equal(await page.locator('#objects h2').textContent(), `Objects (1 of ${objects.length})`, 'and its heading says how many match');
    await page.locator('#filter').fill('');
    t.equal(await page.locator('#objects li[data-object]:visible').count(), objects.length, 'an empty filter shows them all');
    const servers = await page.locator('#intro p', { hasText: 'Servers:' }).textContent();
    t.notMatch(servers, /object HTML|Servers: ,/, 'the servers line holds no stringified element or list');
    t.equal(servers, 'Servers: /api/v1 (The default environment (default)) · /api/v1/environments/{environmentId} (One environment, chosen in the path)', 'it names the servers');
    t.same(errors, [], 'no console error (no CSP violation)');
    t.same(requests.filter((url) => !url.startsWith(base)), [], 'nothing requested from another origin');
    await page.close();
  });

  await t.test('requireAuth true: the refused document shows the sign-in hint', async (t) => {
    const { rt, base } = await listening(true);
    t.teardown(() => rt.close());
    const { page } = await open(context);
    await page.goto(`${base}/api/v1/docs`);
    await page.locator('#signin').waitFor({ timeout: 15_000 });
    t.match(await page.locator('#signin').textContent(), /POST \/api\/v1\/auth\/sign-in/, 'how to sign in');
    t.match(await page.locator('#status').textContent(), /Sign in/, 'the status says why');
    t.equal(await page.locator('#objects').count(), 0, 'nothing of the API is shown');
    await page.close();
  });

  await t.test('sign in with email and password, then try a GET list with the bearer token', async (t) => {
    const { rt, base } = await listening(true, true);
    t.teardown(() => rt.close());
    const signedIn = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: ADMIN });
    const seeded = await rt.inject({ method: 'POST', url: '/api/v1/data/account', headers: { authorization: `Bearer ${signedIn.json().token}` }, payload: { name: 'Explorer Probe Ltd' } });
    t.equal(seeded.statusCode, 201, 'an account to find');
    const { page, errors, requests } = await open(context);
    await page.goto(`${base}/api/v1/docs`);
    await page.locator('#signin').waitFor({ timeout: 15_000 });

    await page.locator('#auth-email').fill(ADMIN.email);
    await page.locator('#auth-password').fill('not-the-password');
    await page.locator('#auth-submit').click();
    await page.locator('#auth-message').waitFor({ timeout: 15_000 });
    t.match(await page.locator('#auth-message').textContent(), /Authentication required|password/i, 'a wrong password is said so');
    t.equal(await page.locator('#objects').count(), 0, 'and nothing of the API is shown');

    await page.locator('#auth-email').fill(ADMIN.email);
    await page.locator('#auth-password').fill(ADMIN.password);
    await page.locator('#auth-submit').click();
    await page.locator('#objects li[data-object]').first().waitFor({ timeout: 15_000 });
    t.equal(await page.locator('#auth-user').textContent(), `Signed in as ${ADMIN.email}`, 'the page says who is signed in');
    const kept = await page.evaluate<Array<[string, string]>>("Object.entries(sessionStorage).map(([k, v]) => [k, JSON.parse(v).token ? 'token' : 'none'])");
    t.same(kept, [['osr-explorer:/api/v1', 'token']], 'the token is kept in this tab\'s sessionStorage');
    t.same((await context.cookies(base)).filter((c) => c.name.includes('session_token')).map((c) => c.name), [], 'no session cookie: the token is the session');

    const list = page.locator('details.op[data-operation="listAccount"]');
    await list.locator('> summary').click();
    await list.locator('button.try-open').click();
    await list.locator('input[data-param="limit"]').fill('5');
    await list.locator('input[data-param="where"]').fill(JSON.stringify({ name: { $contains: 'Probe' } }));
    await list.locator('button.try-send').click();
    await list.locator('.answer-status').waitFor({ timeout: 15_000 });
    t.match(await list.locator('.answer-status').textContent(), /^200/, 'the list answers 200');
    const answer = JSON.parse((await list.locator('.answer-body').textContent()) ?? 'null') as { items: Array<{ name: string }> };
    t.same(answer.items.map((i) => i.name), ['Explorer Probe Ltd'], 'the answer shows the matching account');

    const get = page.locator('details.op[data-operation="getAccount"]');
    await get.locator('> summary').click();
    await get.locator('button.try-open').click();
    await get.locator('button.try-send').click();
    t.match(await get.locator('.answer-body').textContent(), /Fill in the path parameter id/, 'a missing path parameter is asked for, nothing sent');

    const tokenInUrl = requests.filter((url) => url.includes(String(signedIn.json().token).slice(0, 12)) || /token=/i.test(url));
    t.same(tokenInUrl, [], 'the token never appears in a URL');
    t.ok(requests.some((url) => url.startsWith(`${base}/api/v1/data/account?`) && url.includes('limit=5')), 'the try request went to the list route with its query');

    await page.locator('#auth-signout').click();
    await page.locator('#signin').waitFor({ timeout: 15_000 });
    t.same(await page.evaluate<string[]>('Object.keys(sessionStorage)'), [], 'signing out forgets the token');
    t.same(errors.filter((e) => !/401|Unauthorized/.test(e)), [], 'no console error besides the refused calls (no CSP violation)');
    await page.close();
  });
}
