import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import { phoneNumber } from 'better-auth/plugins';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import { isCodedError } from '../../kernel/errors.ts';
import { normalizePhone, placeholderEmail } from './import/normalizeRow.ts';
import type { PhoneNumberOptions } from './phoneNumberOptions.ts';

/** Columns of sys_user behind the engine's phone fields. */
export const PHONE_FIELDS = { phoneNumber: 'phone_number', phoneNumberVerified: 'phone_number_verified' } as const;

interface PhoneContext {
  context: {
    adapter: { findOne<T>(query: { model: string; where: Array<{ field: string; value: string }> }): Promise<T | null> };
    internalAdapter: { findCredentialAccount(userId: string): Promise<{ password?: string | null } | null> };
    password: { hash(password: string): Promise<string>; config: { maxPasswordLength: number } };
  };
}

/**
 * Phone sign-in hashes the password once whether or not the number has an account with a
 * password, as the engine's email sign-in does: without it a refusal for an unknown number came
 * back without hashing, several times faster than a wrong password (an account oracle by timing).
 * Runs before the engine's endpoint, which then refuses as usual.
 */
const SIGN_IN_PATH = '/sign-in/phone-number';
const equalSignInWork = {
  matcher: (ctx: { path?: string }) => ctx.path === SIGN_IN_PATH,
  handler: createAuthMiddleware(async (ctx) => {
    const { phoneNumber: number, password } = (ctx.body ?? {}) as { phoneNumber?: unknown; password?: unknown };
    const { context } = ctx as unknown as PhoneContext;
    if (typeof number !== 'string' || typeof password !== 'string' || password.length > context.password.config.maxPasswordLength) return;
    const user = await context.adapter.findOne<{ id: string }>({ model: 'user', where: [{ field: 'phoneNumber', value: number }] });
    const account = user ? await context.internalAdapter.findCredentialAccount(user.id) : null;
    if (!account?.password) await context.password.hash(password);
  }),
};

/**
 * A provider refusal reaches the client as SMS_PROVIDER_ERROR (502), not as an engine 500. The
 * environment goes with the message: its `sms` settings choose the provider (docs/settings.md).
 */
async function deliver(sms: SmsSend, environmentId: string, to: string, body: string): Promise<void> {
  try {
    await sms.send({ to, body, environmentId });
  } catch (error) {
    if (isCodedError(error) && error.code === 'SMS_PROVIDER_ERROR') {
      throw new APIError('BAD_GATEWAY', { code: 'SMS_PROVIDER_ERROR', message: error.message });
    }
    throw error;
  }
}

/**
 * The engine's phone-number plugin: codes texted through `sms.send`, numbers in E.164 form,
 * sign-up by a verified number when allowed (with a placeholder email, as user import gives).
 */
export function phoneNumberPlugin(options: PhoneNumberOptions, signUp: boolean, sms: SmsSend, environmentId: string): BetterAuthPlugin {
  const minutes = Math.max(1, Math.round(options.expiresIn / 60));
  const plugin = phoneNumber({
    otpLength: options.codeLength,
    expiresIn: options.expiresIn,
    allowedAttempts: options.allowedAttempts,
    // The HTTP edge normalizes first (phoneRequest.ts); this holds for the engine's server API too.
    phoneNumberValidator: (value) => normalizePhone(value) === value,
    async sendOTP({ phoneNumber: to, code }, ctx) {
      // Without sign-up a code to an unknown number could only be spent on texting strangers:
      // nothing is sent, and the answer is the same.
      if (!signUp) {
        const user = await (ctx as unknown as PhoneContext | undefined)?.context.adapter.findOne({ model: 'user', where: [{ field: 'phoneNumber', value: to }] });
        if (!user) return;
      }
      await deliver(sms, environmentId, to, `${code} is your sign-in code. It expires in ${minutes} minute(s). Do not share it.`);
    },
    async sendPasswordResetOTP({ phoneNumber: to, code }) {
      await deliver(sms, environmentId, to, `${code} is your password reset code. It expires in ${minutes} minute(s). If you did not ask for it, ignore this message.`);
    },
    ...(signUp ? { signUpOnVerification: { getTempEmail: placeholderEmail, getTempName: (phone: string) => phone } } : {}),
    schema: { user: { fields: PHONE_FIELDS } },
  }) as unknown as BetterAuthPlugin & { schema: { user: { fields: Record<string, { input?: boolean }> } } };
  // The number is set by verifying it, never by sign-up or profile bodies.
  plugin.schema.user.fields.phoneNumber!.input = false;
  plugin.hooks = { ...plugin.hooks, before: [...(plugin.hooks?.before ?? []), equalSignInWork] };
  return plugin;
}
