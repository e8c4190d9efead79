/** The form page in headless Chromium on both drivers: filled and sent, client and server errors shown by their fields, no CSP violation. */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { formsWorld } from './formsHarness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  if (process.env.CI === 'true') t.fail(`Chromium is required when CI=true but was not found at ${CHROMIUM} (apt-get install chromium)`);
  else t.plan(0, `Chromium not found at ${CHROMIUM}; install it (apt-get install chromium) or set CHROMIUM_PATH to run this test`);
} else {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  await run(browser);
}

/** A page that records console errors (CSP violations among them) and the submissions it sent. */
async function open(browser: Browser, url: string): Promise<{ page: Page; errors: string[]; posts: string[]; status: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  const posts: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url());
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  const response = await page.goto(url);
  return { page, errors, posts, status: response?.status() ?? 0 };
}

async function run(browser: Browser): Promise<void> {
  await eachBackend(t, ['formpage'], async (t, site) => {
    const w = await formsWorld(t, site, { server: { listen: true, port: 0, host: '127.0.0.1' } });
    const base = w.rt.runtime.http().url();
    if (!base) throw new Error('the runtime is not listening');

    await t.test('filled and sent: the success message shows and the record holds the values', async (t) => {
      const { page, errors, status } = await open(browser, `${base}/f/contact`);
      t.teardown(() => page.context().close());
      t.equal(status, 200);
      t.equal(await page.title(), 'Contact us');
      await page.getByLabel('Subject').fill('Printer on fire');
      await page.getByLabel('Email address').fill('pat@example.com');
      await page.getByLabel('Quantity').fill('7');
      await page.getByLabel('Priority').selectOption('normal');
      await page.getByLabel('support').check();
      await page.getByLabel('Notes').fill('Second floor');
      await page.getByLabel('Due').fill('2026-12-24');
      await page.getByLabel('Urgent').check();
      await page.getByRole('button', { name: 'Submit' }).click();
      const success = page.locator('#form-success');
      await success.waitFor({ state: 'visible' });
      t.equal(await success.textContent(), 'Thanks, we will get back to you.');
      t.equal(await page.locator('#public-form').isVisible(), false, 'the form is put away');
      const stored = (await w.tickets()).filter((r) => r.subject === 'Printer on fire');
      t.equal(stored.length, 1);
      t.match(stored[0], { email: 'pat@example.com', quantity: 7, priority: 'normal', topics: ['support'], notes: 'Second floor', due: '2026-12-24', urgent: true });
      t.same(errors, [], 'no console error, no CSP violation');
    });

    await t.test('the client checks what the server checks, by each field, before sending', async (t) => {
      const { page, errors, posts } = await open(browser, `${base}/f/contact`);
      t.teardown(() => page.context().close());
      await page.getByLabel('Email address').fill('not-an-address');
      await page.getByLabel('Quantity').fill('500');
      await page.getByRole('button', { name: 'Submit' }).click();
      t.equal(await page.locator('#f-subject-error').textContent(), 'is required');
      t.equal(await page.locator('#f-email-error').textContent(), 'must be an email address');
      t.equal(await page.locator('#f-quantity-error').textContent(), 'must be at most 100');
      t.equal(await page.getByLabel('Subject').getAttribute('aria-invalid'), 'true');
      t.equal(await page.getByLabel('Subject').getAttribute('aria-describedby'), 'f-subject-help f-subject-error', 'the error is read out with the field');
      t.equal(await page.locator('#f-notes-error').isVisible(), false, 'a valid field shows no error');
      t.same(posts, [], 'nothing was sent');
      t.same(errors, []);
    });

    await t.test('a server-side error appears next to its field', async (t) => {
      const { page, errors, posts } = await open(browser, `${base}/f/contact`);
      t.teardown(() => page.context().close());
      await page.getByLabel('Subject').fill('forbidden');
      await page.getByLabel('Email address').fill('pat@example.com');
      await page.getByRole('button', { name: 'Submit' }).click();
      const error = page.locator('#f-subject-error');
      await error.waitFor({ state: 'visible' });
      t.equal(await error.textContent(), 'This subject is not accepted.');
      t.equal(await page.getByLabel('Subject').getAttribute('aria-invalid'), 'true');
      t.equal(await page.locator('#form-error').textContent(), 'Please correct the fields marked below.');
      t.equal(await page.locator('#form-success').isVisible(), false);
      t.equal(posts.length, 1, 'the server was asked');
      t.equal((await w.tickets()).filter((r) => r.subject === 'forbidden').length, 0);
      t.same(errors.filter((e) => !/status of 400|^400 \/api\/v1\/forms\/contact\/submit$/.test(e)), [], 'no error but the 400 answer itself');
    });

    await t.test('a signed-in form works with the session cookie, and records the submitter', async (t) => {
      const context = await browser.newContext();
      t.teardown(() => context.close());
      const [name, value] = [w.admin.cookie.slice(0, w.admin.cookie.indexOf('=')), w.admin.cookie.slice(w.admin.cookie.indexOf('=') + 1)];
      await context.addCookies([{ name, value, url: base }]);
      const page = await context.newPage();
      const response = await page.goto(`${base}/f/members`);
      t.equal(response?.status(), 200);
      await page.getByLabel('Subject').fill('Signed-in request');
      await page.getByLabel('Email address').fill('admin@example.com');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.locator('#form-success').waitFor({ state: 'visible' });
      t.equal(await page.locator('#form-success').textContent(), 'Request stored.');
      const stored = (await w.tickets()).filter((r) => r.subject === 'Signed-in request');
      t.equal(stored.length, 1);
      t.equal(stored[0]!.created_by, w.admin.id, 'the signed-in submitter created it');
    });

    await t.test('a signed-in form shows anonymous visitors a sign-in hint with 401', async (t) => {
      const { page, status } = await open(browser, `${base}/f/members`);
      t.teardown(() => page.context().close());
      t.equal(status, 401);
      t.match(await page.locator('main').textContent(), /This form is for signed-in users/);
      t.equal(await page.locator('form').count(), 0);
    });
  });
}
