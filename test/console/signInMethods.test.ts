/**
 * The console's sign-in methods and environments in Debian's Chromium against `osr start` with
 * passkeys and magic links on and three environments, on SQLite and PostgreSQL: a member turns on
 * two-factor from the account screen (the key shown, a code computed here from it), then signs in
 * with a code and with a backup code; registers a passkey with Chromium's virtual authenticator
 * (CDP) and signs in with it; signs in by a link taken from the development outbox, landing where
 * the link was asked for. Then the environment switcher lists the environments the browser is
 * signed in to (not the third), and a record's address opened in a fresh page shows the record of
 * its environment. axe-core checks every screen; the SQLite run takes the screenshots of
 * docs/console.md.
 */
import * as OTPAuth from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { axeViolations, chromiumPresent, launch, openPage, screenshot } from './browser.ts';
import { startConsoleServer, type ConsoleServer } from './consoleServer.ts';
import { ensureConsoleBuilt } from './ensureConsoleBuilt.ts';
import { adminFirstRun, printedAdmin, signIn, WAIT } from './signIn.ts';

const NEW_PASSWORD = 'a-new-admin-password-1';
const MEMBER = { email: 'member@example.com', password: 'member-password-123', name: 'Mem Ber' };
const LABELS = ['Main office', 'Branch office', 'Closed office'];

/** axe-core over the run's page, or the one given. */
type Check = (t: Test, screen: string, on?: Page) => Promise<unknown>;
/** A screenshot of the run's page, or of the one given (SQLite run only). */
type Shoot = (name: string, on?: Page) => Promise<void>;
interface Run { server: ConsoleServer; context: BrowserContext; page: Page; base: string; token: string; accessible: Check; shoot: Shoot }

if (chromiumPresent(t)) {
  await ensureConsoleBuilt();
  const context = await launch(t);
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      const server = await startConsoleServer(t, c.name, { plugins: { auth: { passkeys: { enabled: true }, magicLink: { enabled: true } } } }, LABELS);
      // Passkeys belong to a domain (rpID localhost): an IP address has none.
      const base = server.url.replace('127.0.0.1', 'localhost');
      const { page, errors, foreign } = await openPage(context);
      // Only the page in front has focus, and WebAuthn works only there.
      await page.bringToFront();
      const accessible: Check = async (t, screen, on = page) => t.same(await axeViolations(on), [], `axe: no serious or critical violation on ${screen}`);
      const shoot: Shoot = async (name, on = page) => { if (c.name === 'sqlite') await screenshot(on, name); };
      const { token } = await adminFirstRun(server, page, NEW_PASSWORD, base);
      const run: Run = { server, context, page, base, token, accessible, shoot };

      await signInScreen(t, run);
      const backupCodes = await twoFactor(t, run);
      await backupCode(t, run, backupCodes);
      await passkey(t, run);
      await magicLink(t, run);
      await environments(t, run);

      t.same(errors, [], 'no script error and no CSP violation in the page');
      t.same(foreign, [], 'nothing requested from another origin');
      await page.close();
    });
  }
}

async function signOut(page: Page): Promise<void> {
  await page.locator('#sign-out').click();
  await page.locator('#signin-email').waitFor(WAIT);
}

/** Waits for the signed-in frame; whether it names this user. */
async function signedInAs(page: Page, email: string): Promise<boolean> {
  await page.locator('#account-link').waitFor(WAIT);
  return (await page.locator('#account-link').textContent()) === email;
}

async function signInScreen(t: Test, { server, page, token, accessible, shoot }: Run): Promise<void> {
  await t.test('the sign-in screen offers what the server has on', async (t) => {
    const methods = await server.api('GET', '/auth/methods');
    t.same(methods.body, { password: true, passkey: true, magicLink: true, phoneNumber: false, twoFactor: true }, 'the API says passkeys and links are on');
    t.equal((await server.api('POST', '/auth/admin/create-user', { ...MEMBER, mustChangePassword: false }, token)).status, 201, 'a member');
    await signOut(page);
    await page.locator('#signin-passkey').waitFor(WAIT);
    t.equal(await page.locator('#signin-passkey').textContent(), 'Sign in with a passkey', 'a passkey button');
    t.equal(await page.locator('#signin-magic-link').textContent(), 'Email me a sign-in link', 'a sign-in link button');
    await accessible(t, 'sign-in with passkeys and links');
    await shoot('sign-in-methods');
  });
}

async function twoFactor(t: Test, { server, page, accessible, shoot }: Run): Promise<string[]> {
  let backupCodes: string[] = [];
  await t.test('two-factor: turned on from the account screen, then asked at sign-in', async (t) => {
    await signIn(page, MEMBER.email, MEMBER.password);
    t.ok(await signedInAs(page, MEMBER.email), 'the member is in');
    await page.locator('#nav a', { hasText: 'Your account' }).click();
    await page.locator('h1', { hasText: 'Your account' }).waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, '/console/account', 'the account screen has its address');
    t.equal(await page.locator('#account-email').textContent(), MEMBER.email);
    t.match(await page.locator('#two-factor-state').textContent(), /^Off/, 'two-factor is off');
    await accessible(t, 'account screen');

    await page.locator('#two-factor-password').fill('not-the-password');
    await page.locator('#two-factor-start').click();
    await page.locator('.settings .notice.error').waitFor(WAIT);
    t.match(await page.locator('.settings .notice.error').textContent(), /password/i, 'a wrong password is refused with the reason');
    await page.locator('#two-factor-password').fill(MEMBER.password);
    await page.locator('#two-factor-start').click();
    await page.locator('#totp-secret').waitFor(WAIT);
    const secret = (await page.locator('#totp-secret').textContent())!.replace(/\s+/g, '');
    const uri = OTPAuth.URI.parse((await page.locator('#totp-uri').getAttribute('href'))!) as OTPAuth.TOTP;
    t.equal(secret, uri.secret.base32, 'the key shown is the secret of the otpauth URI');
    t.match(uri.label, MEMBER.email, "the URI names the member's account");
    backupCodes = await page.locator('.backup-codes code').allTextContents();
    t.equal(backupCodes.length, 10, 'ten backup codes');
    await accessible(t, 'two-factor setup');
    await shoot('two-factor-setup');

    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    await page.locator('#two-factor-code').fill(totp.generate());
    await page.locator('#two-factor-confirm').click();
    await page.locator('.settings .notice.success').waitFor(WAIT);
    t.equal(await page.locator('.settings .notice.success').textContent(), 'Two-factor authentication is on: signing in now asks for a code.');
    t.match(await page.locator('#two-factor-state').textContent(), /^On/, 'the screen says it is on');
    const api = await server.api('POST', '/auth/sign-in', { email: MEMBER.email, password: MEMBER.password });
    t.equal(api.body.twoFactorRequired, true, 'the API now asks for a second factor');
    t.ok(api.body.methods.includes('totp'), 'a TOTP code');

    await signOut(page);
    await signIn(page, MEMBER.email, MEMBER.password);
    await page.locator('#second-factor-code').waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Two-factor authentication', 'the second step is asked');
    await accessible(t, 'two-factor sign-in');
    await shoot('two-factor');
    const wrong = totp.generate() === '000000' ? '111111' : '000000';
    await page.locator('#second-factor-code').fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.notice.error').waitFor(WAIT);
    t.match(await page.locator('.notice.error').textContent(), /UNAUTHENTICATED/, "a wrong code shows the API's refusal");
    t.equal(await page.locator('#account-link').count(), 0, 'and does not sign in');
    await accessible(t, 'two-factor sign-in with an error');
    await page.locator('#second-factor-code').fill(totp.generate());
    await page.getByRole('button', { name: 'Verify' }).click();
    t.ok(await signedInAs(page, MEMBER.email), 'the right code signs the member in');
    await page.locator('h1', { hasText: 'Your account' }).waitFor(WAIT);
    t.pass('on the screen of the address signed in at');
  });
  return backupCodes;
}

async function backupCode(t: Test, { page, accessible }: Run, codes: string[]): Promise<void> {
  await t.test('two-factor: a backup code instead of the app, once', async (t) => {
    const use = async (code: string) => {
      await signOut(page);
      await signIn(page, MEMBER.email, MEMBER.password);
      await page.locator('#second-factor-switch').click();
      await page.locator('label[for="second-factor-code"]', { hasText: 'Backup code' }).waitFor(WAIT);
      await page.locator('#second-factor-code').fill(code);
      await page.getByRole('button', { name: 'Verify' }).click();
    };
    t.ok(codes.length > 0, 'the codes of the setup');
    await use(codes[0]!);
    t.ok(await signedInAs(page, MEMBER.email), 'a backup code signs in');
    await use(codes[0]!);
    await page.locator('.notice.error').waitFor(WAIT);
    t.equal(await page.locator('#account-link').count(), 0, 'the same code a second time does not');
    t.equal(await page.locator('#second-factor-code').getAttribute('autocomplete'), 'one-time-code');
    await accessible(t, 'backup code sign-in');
    await page.locator('#second-factor-code').fill(codes[1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    t.ok(await signedInAs(page, MEMBER.email), 'another one does');
  });
}

async function passkey(t: Test, { server, context, page, accessible, shoot }: Run): Promise<void> {
  await t.test("passkeys: registered from the account screen with the browser's authenticator, then a sign-in with it", async (t) => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.locator('#nav a', { hasText: 'Your account' }).click();
    await page.locator('#passkeys-title').waitFor(WAIT);
    await page.locator('#passkeys-title ~ .empty').waitFor(WAIT);
    t.equal(await page.locator('#passkeys-title ~ .empty').textContent(), 'You have no passkey yet.', 'none yet');
    await page.locator('#passkey-name').fill('Test laptop');
    await page.locator('#passkey-add').click();
    await page.locator('.passkey-list li').first().waitFor(WAIT);
    t.match(await page.locator('.passkey-list li strong').allTextContents(), ['Test laptop'], 'the new passkey is listed by its name');
    const held = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    t.equal(held.credentials.length, 1, 'the authenticator holds one credential');
    t.equal(held.credentials[0]!.rpId, 'localhost', 'for the relying party localhost');
    await accessible(t, 'account screen with a passkey');
    await shoot('account');

    await signOut(page);
    await page.locator('#signin-passkey').click();
    t.ok(await signedInAs(page, MEMBER.email), 'the passkey alone signs the member in (no password, no second factor)');
    const sessions = await server.api('POST', '/auth/sign-in', { email: MEMBER.email, password: MEMBER.password });
    t.equal(sessions.body.twoFactorRequired, true, 'while a password sign-in still asks for the second factor');

    // The authenticator now fails to verify its user (no PIN, no fingerprint): the server requires it.
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await signOut(page);
    await page.locator('#signin-passkey').click();
    await page.locator('.notice.error').waitFor(WAIT);
    t.equal(await page.locator('.notice.error').textContent(), 'No passkey was used: the request was cancelled, timed out or refused by the authenticator.', "the browser's refusal in words");
    t.equal(await page.locator('#account-link').count(), 0, 'nobody is signed in');
    await accessible(t, 'passkey sign-in refused');
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    await cdp.detach();
  });
}

async function magicLink(t: Test, { server, page, base, token, accessible, shoot }: Run): Promise<void> {
  await t.test('magic link: asked for on the sign-in screen, followed from the outbox, back where it was asked', async (t) => {
    await page.goto(`${base}/console/account`);
    await page.locator('#signin-magic-link').click();
    await page.locator('#magic-email').waitFor(WAIT);
    t.equal(await page.locator('h1').textContent(), 'Sign in with a link');
    await accessible(t, 'magic link form');
    await page.locator('#magic-email').fill(MEMBER.email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.locator('.notice.success').waitFor(WAIT);
    t.match(await page.locator('.notice.success').textContent(), `If ${MEMBER.email} has an account, a sign-in link is on its way.`, 'the screen says a link is sent');
    await accessible(t, 'magic link sent');
    await shoot('magic-link');

    const outbox = await server.api('GET', '/dev/outbox', undefined, token);
    t.equal(outbox.status, 200, 'the admin reads the outbox');
    const mail = (outbox.body.items as Array<{ to: string; subject: string; links: string[] }>).find((m) => m.to === MEMBER.email && m.subject === 'Your sign-in link');
    t.ok(mail, 'the mail is in the development outbox');
    const link = mail!.links[0]!;
    const target = new URL(link);
    t.equal(target.pathname, `/api/v1/environments/${server.environments[0]}/auth/magic-link/verify`, "it is a link of the API, in the environment's path");
    t.equal(target.searchParams.get('callbackURL'), '/console/account', 'back to the address the link was asked on');

    await page.goto(link);
    await page.locator('h1', { hasText: 'Your account' }).waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, '/console/account', 'the link lands on the account screen');
    t.ok(await signedInAs(page, MEMBER.email), 'signed in as the member');

    await page.locator('#two-factor-password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.locator('.settings .notice.success').waitFor(WAIT);
    t.equal(await page.locator('.settings .notice.success').textContent(), 'Two-factor authentication is off.', 'two-factor turned off from the account screen');
    t.match(await page.locator('#two-factor-state').textContent(), /^Off/);
    const direct = await server.api('POST', '/auth/sign-in', { email: MEMBER.email, password: MEMBER.password });
    t.equal(typeof direct.body.token, 'string', 'a password alone signs in again');

    await page.locator('.passkey-list li button', { hasText: 'Remove' }).click();
    await page.locator('#passkeys-title ~ .empty').waitFor(WAIT);
    t.equal(await page.locator('.passkey-list li').count(), 0, 'the passkey removed from the account screen');
    t.same((await server.api('GET', '/auth/passkey/list-user-passkeys', undefined, direct.body.token)).body, [], 'and from the account');

    await signOut(page);
    await page.goto(link);
    await page.locator('#signin-email').waitFor(WAIT);
    await page.locator('.auth .notice.error').waitFor(WAIT);
    t.equal(await page.locator('.auth .notice.error').textContent(), 'That sign-in link is used or expired: ask for a new one.', 'a used link comes back to sign-in, saying why');
    t.equal(new URL(page.url()).search, '', 'and the address loses the error');
    t.equal(await page.locator('#account-link').count(), 0, 'nobody is signed in');
  });
}

async function environments(t: Test, { server, context, token, accessible, shoot }: Run): Promise<void> {
  await t.test('environments: the switcher lists those signed in to; a record link opens in its own environment', async (t) => {
    const [main, branch, closed] = server.environments as [string, string, string];
    // Another host name: a cookie jar of its own, nobody signed in yet.
    const { page, errors } = await openPage(context);
    await page.goto(`${server.url}/console/`);
    await signIn(page, 'admin@example.com', NEW_PASSWORD);
    await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
    t.equal(await page.locator('.env-switch').count(), 0, 'signed in to one environment: no switcher');

    const printed = printedAdmin(server, branch);
    await page.goto(`${server.url}/console/env/${branch}/`);
    await page.locator('#signin-email').waitFor(WAIT);
    t.pass("the other environment's address asks to sign in there");
    await accessible(t, 'sign-in of another environment', page);
    await signIn(page, printed.email, printed.password);
    await page.locator('#new-password').waitFor(WAIT);
    await page.locator('#current-password').fill(printed.password);
    await page.locator('#new-password').fill(NEW_PASSWORD);
    await page.locator('#repeat-password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
    await page.locator('.env-switch').waitFor(WAIT);
    t.equal(await page.locator('#current-environment').textContent(), 'Branch office', 'the switcher names the current environment');
    await page.locator('.env-switch summary').click();
    const listed = await page.locator('.env-switch li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-environment'), li.querySelector('a')?.textContent, li.querySelector('a')?.getAttribute('href')]));
    t.same(listed, [[main, 'Main office', '/console/'], [branch, 'Branch office', `/console/env/${branch}/`]], 'the two environments signed in to, not the third');
    t.notOk((await page.locator('.env-switch').textContent())?.includes(closed), 'the third is not named');
    await accessible(t, 'environment switcher', page);
    await shoot('environments', page);
    await page.setViewportSize({ width: 390, height: 844 });
    t.equal(await page.locator('.env-switch a', { hasText: 'Main office' }).isVisible(), true, 'on a phone-width screen the switcher is there too');
    await accessible(t, 'environment switcher at phone width', page);
    await page.setViewportSize({ width: 1280, height: 800 });

    const branchToken = (await server.api('POST', `/environments/${branch}/auth/sign-in`, { email: printed.email, password: NEW_PASSWORD })).body.token as string;
    const inMain = (await server.api('POST', '/data/ticket', { title: 'Main desk lamp' }, token)).body;
    const inBranch = (await server.api('POST', `/environments/${branch}/data/ticket`, { title: 'Branch desk lamp' }, branchToken)).body;
    t.ok(inMain.id && inBranch.id, 'a ticket in each environment');

    await page.locator('#nav a[data-object="ticket"]').click();
    await page.locator(`tbody tr[data-id="${inBranch.id}"] a`).waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, `/console/env/${branch}/views/ticket.open_tickets`, 'the list of the branch keeps its environment in the address');
    t.equal(await page.locator(`tbody tr[data-id="${inMain.id}"]`).count(), 0, "the main office's ticket is not in it");
    await page.locator(`tbody tr[data-id="${inBranch.id}"] a`).click();
    await page.locator('h1', { hasText: 'Branch desk lamp' }).waitFor(WAIT);
    const recordLink = page.url();
    t.equal(new URL(recordLink).pathname, `/console/env/${branch}/records/ticket/${inBranch.id}`, "the record's address names its environment");

    const fresh = await openPage(context);
    await fresh.page.goto(recordLink);
    await fresh.page.locator('h1', { hasText: 'Branch desk lamp' }).waitFor(WAIT);
    t.equal(await fresh.page.locator('#field-title').inputValue(), 'Branch desk lamp', 'the link opened in a fresh page shows the record of the branch');
    t.equal(await fresh.page.locator('#current-environment').textContent(), 'Branch office', 'in the branch');
    await accessible(t, 'a record of another environment', fresh.page);
    await fresh.page.goto(`${server.url}/console/records/ticket/${inBranch.id}`);
    await fresh.page.locator('h1', { hasText: 'Not found' }).waitFor(WAIT);
    t.pass('the same id without the environment is not found in the main office');
    await fresh.page.goto(`${server.url}/console/records/ticket/${inMain.id}`);
    await fresh.page.locator('h1', { hasText: 'Main desk lamp' }).waitFor(WAIT);
    t.equal(await fresh.page.locator('#current-environment').textContent(), 'Main office', "the main office's record is in the main office");
    t.same(fresh.errors, [], 'no script error in the fresh page');
    await fresh.page.close();

    await page.locator('.env-switch summary').click();
    await page.locator('.env-switch a', { hasText: 'Main office' }).click();
    await page.locator('#current-environment', { hasText: 'Main office' }).waitFor(WAIT);
    t.equal(new URL(page.url()).pathname, '/console/', "choosing the main office opens its home, at the default environment's address");
    await page.locator('#nav a[data-object="ticket"]').click();
    await page.locator(`tbody tr[data-id="${inMain.id}"]`).waitFor(WAIT);
    t.equal(await page.locator(`tbody tr[data-id="${inBranch.id}"]`).count(), 0, "and its lists are the main office's");
    t.same(errors, [], 'no script error in the page');
    await page.close();
  });
}
