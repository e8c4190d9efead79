import type { Page } from 'playwright-core';
import type { ConsoleServer } from './consoleServer.ts';

export const WAIT = { timeout: 30_000 };

/** Fills the console's sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.locator('#signin-email').waitFor(WAIT);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The first admin `osr start` printed (of the default environment, or of the one named): its email and one-time password. */
export function printedAdmin(server: ConsoleServer, environment = server.environments[0]!): { email: string; password: string } {
  const output = server.output();
  const from = output.indexOf(`first admin of environment '${environment}'`);
  const printed = /email +(\S+)\n +password +(\S+) /.exec(from < 0 ? '' : output.slice(from));
  if (!printed) throw new Error(`osr start printed no first admin of ${environment}:\n${output}`);
  return { email: printed[1]!, password: printed[2]! };
}

/**
 * The first run through the console: the printed one-time password, the forced change to
 * `newPassword`, the home screen. Answers the admin's email and a bearer token for API calls.
 */
export async function adminFirstRun(server: ConsoleServer, page: Page, newPassword: string, base = server.url): Promise<{ email: string; token: string }> {
  const { email, password } = printedAdmin(server);
  await page.goto(`${base}/console/`);
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
