import { randomBytes } from 'node:crypto';
import type { AuthUser } from '../../../capabilities/authIdentity.ts';
import type { EnvironmentAuth } from '../createEnvironmentAuth.ts';
import { environmentAuthBase } from '../environmentAuthUrl.ts';
import type { ImportDeps } from './importUsers.ts';

/**
 * Email a set-password link to a new user. The link is the engine's password-reset flow (which
 * creates the password on first use), with an invitation's longer lifetime.
 */
export async function sendInvite(deps: ImportDeps & { env: EnvironmentAuth }, user: AuthUser): Promise<void> {
  if (!deps.email) throw new Error('no email service is configured');
  const token = randomBytes(24).toString('base64url');
  await deps.env.context.internalAdapter.createVerificationValue({
    identifier: `reset-password:${token}`,
    value: user.id,
    expiresAt: new Date(Date.now() + deps.inviteExpiresIn * 1000),
  });
  const url = `${deps.origin}${environmentAuthBase(deps.env.id)}/reset-password/${token}?callbackURL=%2F`;
  const days = Math.max(1, Math.round(deps.inviteExpiresIn / 86_400));
  await deps.email.send({
    to: user.email,
    environmentId: deps.env.id,
    subject: 'Your new account',
    text: `An account was created for ${user.email}.\n\nChoose your password: ${url}\n\nThe link is valid for ${days} day(s).`,
  });
}
