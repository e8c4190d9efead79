/**
 * The console's Outbox in Debian's Chromium against `osr start` (SQLite: the outbox is memory, no
 * data): an admin reads the mails the log provider kept, code and reset link included; axe-core clean.
 */
import t from 'tap';
import { axeViolations, chromiumPresent, launch, openPage } from './browser.ts';
import { startConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, WAIT } from './signIn.ts';

const NEW_PASSWORD = 'a-new-admin-password-1';

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  await t.test('an admin reads the development outbox', async (t) => {
    const server = await startConsoleServer(t, 'sqlite');
    const { page, errors } = await openPage(context);
    const { email, token } = await adminFirstRun(server, page, NEW_PASSWORD);

    const sent = await server.api('POST', '/email/send', { to: 'ada@example.com', subject: 'Your code', text: 'Your code is 987654' }, token);
    t.equal(sent.status, 200);
    const reset = await server.api('POST', '/auth/request-password-reset', { email });
    t.equal(reset.status, 200);
    const api = await server.api('GET', '/dev/outbox', undefined, token);
    t.equal(api.status, 200);
    const link = api.body.items[0].links[0] as string;
    t.match(link, /reset-password/);

    await page.getByRole('link', { name: 'Outbox' }).click();
    await page.locator('h1', { hasText: 'Outbox' }).waitFor(WAIT);
    await page.locator('.outbox-list > li').nth(1).waitFor(WAIT);
    t.same(await page.locator('.outbox-list h2').allTextContents(), ['Reset your password', 'Your code'], 'newest first, by subject');
    t.match(await page.locator('.outbox-list > li').nth(1).locator('pre').textContent(), 'Your code is 987654', 'the code is shown');
    t.equal(await page.locator('.outbox-list > li').nth(0).locator('.outbox-links a').getAttribute('href'), link, 'the reset link is a link');
    t.same(await axeViolations(page), [], 'axe: no serious or critical violation on the outbox');
    t.same(errors, [], 'no script error and no CSP violation in the page');
    await page.close();
  });
}
