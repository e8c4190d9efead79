import type { ImportDeps } from './importUsers.ts';

/**
 * Text a new user that an account exists for their number. It carries no code or link token: the
 * user signs in with the number, by a code texted at that moment (phone sign-in).
 */
export async function sendSmsInvite(deps: ImportDeps, phone: string): Promise<void> {
  if (!deps.sms) throw new Error('no SMS service is configured');
  await deps.sms.send({
    to: phone,
    environmentId: deps.env.id,
    body: `An account was created for this number at ${deps.origin}. Sign in with this phone number: a code is texted to you when you do.`,
  });
}
