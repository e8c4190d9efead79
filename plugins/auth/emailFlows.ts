import type { BetterAuthOptions } from 'better-auth';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { AuthEngine } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { MAX_PASSWORD } from './createUser.ts';
import { environmentAuthUrl } from './environmentAuthUrl.ts';

type EmailAndPassword = NonNullable<BetterAuthOptions['emailAndPassword']>;
type EmailVerification = NonNullable<BetterAuthOptions['emailVerification']>;

export interface EmailFlowSettings {
  environmentId: string;
  options: AuthOptions;
  email: EmailSend | undefined;
  engine: { current: AuthEngine | null };
}

const RESET_PREFIX = 'reset-password:';

/** A link of the engine, moved under the environment's prefix, with a callback when it has none. */
function mailLink(url: string, environmentId: string): string {
  const link = new URL(environmentAuthUrl(url, environmentId));
  // Without a callbackURL the engine's reset link only leads to an error page.
  if (link.searchParams.has('callbackURL') && !link.searchParams.get('callbackURL')) link.searchParams.set('callbackURL', '/');
  return link.href;
}

/**
 * After a reset: clear the forced rotation, and spend every other reset or invitation link of
 * the user, so an older mail cannot set the password again.
 */
async function afterPasswordReset(s: EmailFlowSettings, userId: string): Promise<void> {
  const engine = s.engine.current;
  if (!engine) return;
  const context = await engine.$context;
  await context.internalAdapter.updateUser(userId, { must_change_password: false });
  await context.adapter.deleteMany({
    model: 'verification',
    where: [{ field: 'value', value: userId }, { field: 'identifier', operator: 'starts_with', value: RESET_PREFIX }],
  });
}

/** The password part of the engine's options: reset mails, their lifetime, what a reset revokes. */
export function passwordOptions(s: EmailFlowSettings): Omit<EmailAndPassword, 'enabled'> {
  const { options, email } = s;
  return {
    disableSignUp: !options.signUp,
    minPasswordLength: options.minPasswordLength,
    maxPasswordLength: MAX_PASSWORD,
    revokeSessionsOnPasswordReset: true,
    resetPasswordTokenExpiresIn: options.passwordResetExpiresIn,
    requireEmailVerification: options.emailVerification.required,
    onPasswordReset: ({ user }) => afterPasswordReset(s, user.id),
    ...(email
      ? {
        async sendResetPassword({ user, url }) {
          const minutes = Math.max(1, Math.round(options.passwordResetExpiresIn / 60));
          await email.send({
            to: user.email,
            environmentId: s.environmentId,
            subject: 'Reset your password',
            text: `A password reset was requested for ${user.email}.\n\nSet a new password: ${mailLink(url, s.environmentId)}\n\nThe link works once, within ${minutes} minute(s). If you did not ask for it, ignore this message.`,
          });
        },
      }
      : {}),
  };
}

/** Verification mails (on sign-up, on sign-in when required, or on request); none without `email.send`. */
export function verificationOptions(s: EmailFlowSettings): EmailVerification | undefined {
  const { options, email } = s;
  if (!email) return undefined;
  const settings = options.emailVerification;
  return {
    sendOnSignUp: settings.sendOnSignUp,
    sendOnSignIn: settings.required,
    autoSignInAfterVerification: settings.autoSignIn,
    expiresIn: settings.expiresIn,
    async sendVerificationEmail({ user, url }) {
      await email.send({
        to: user.email,
        environmentId: s.environmentId,
        subject: 'Confirm your email address',
        text: `Confirm ${user.email}: ${mailLink(url, s.environmentId)}\n\nIf you did not ask for it, ignore this message.`,
      });
    },
  };
}
