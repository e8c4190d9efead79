import type { Page } from 'playwright-core';
import type { ConsoleServer } from './consoleServer.ts';

export const WAIT = { timeout: 30_000 };

/** Fills the console's sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.locator('#signin-email').waitFor(WAIT);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The first admin `osr start` printed: its email and one-time password. */
export function printedAdmin(server: ConsoleServer): { email: string; password: string } {
  const printed = /email +(\S+)\n +password +(\S+) /.exec(server.output());
  if (!printed) throw new Error(`osr start printed no first admin:\n${server.output()}`);
  return { email: printed[1]!, password: printed[2]! };
}

/**
 * The first run through the console: the printed one-time password, the forced change to
 * `newPassword`, the home screen. Answers the admin's email and a bearer token for API calls.
 */
export async function adminFirstRun(server: ConsoleServer, page: Page, newPassword: string): Promise<{ email: string; token: string }> {
  const { email, password } = printedAdmin(server);
  await page.goto(`${server.url}/console/`);
  await signIn(page, email, password);
  await page.locator('#new-password').waitFor(WAIT);
  await page.locator('#current-password').fill(password);
  await page.locator('#new-password').fill(newPassword);
  await page.locator('#repeat-password').fill(newPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.locator('h1', { hasText: 'Welcome' }).waitFor(WAIT);
  const signedIn = await server.api('POST', '/auth/sign-in', { email, password: newPassword });
  if (signedIn.status !== 200) throw new Error(`the new password does not sign in: ${signedIn.status} ${JSON.stringify(signedIn.body)}`);
  return { email, token: signedIn.body.token as string };
}
