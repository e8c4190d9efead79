import { z } from 'zod';
import type { AuthUser, CreateUserInput } from '../../capabilities/authIdentity.ts';
import { codedError } from '../../kernel/errors.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { generatePassword } from './generatePassword.ts';
import { isPlaceholderEmail, PLACEHOLDER_DOMAIN } from './import/normalizeRow.ts';
import { fromEngineThrow } from './mapAuthError.ts';
import { toAuthUser } from './userView.ts';
import { PROVISIONED_FIELD } from './provisionedAccounts.ts';

/** Longest password taken, here and by the engine (emailFlows.ts). */
export const MAX_PASSWORD = 128;
const emailSchema = z.email();

export function isEmail(value: string): boolean {
  return value.length <= 254 && emailSchema.safeParse(value).success;
}

export interface NewIdentity {
  email: string;
  name: string;
  /** Omitted: an identity without a password (invited, or signing in another way). */
  password?: string | undefined;
  mustChangePassword: boolean;
  phoneNumber?: string | null | undefined;
}

/**
 * Create a user and, with a password, its credential account, in one transaction of the engine:
 * a failure leaves no half-created user. Only the engine's hash of the password is stored.
 */
export async function createIdentity(env: EnvironmentAuth, identity: NewIdentity): Promise<AuthUser> {
  try {
    const { user } = await env.engine.api.createUser({
      body: {
        email: identity.email,
        name: identity.name,
        ...(identity.password !== undefined ? { password: identity.password } : {}),
        data: {
          must_change_password: identity.mustChangePassword,
          // Made by an administrator (create-user, import): a magic link keeps its password (provisionedAccounts.ts).
          [PROVISIONED_FIELD]: true,
          ...(identity.phoneNumber ? { phoneNumber: identity.phoneNumber, phoneNumberVerified: false } : {}),
        },
      },
    });
    // With phone sign-in on, the engine keeps an unverified number out of a new user: set it after.
    if (identity.phoneNumber && user.phoneNumber !== identity.phoneNumber) {
      try {
        await env.context.internalAdapter.updateUser(user.id, { phoneNumber: identity.phoneNumber, phoneNumberVerified: false });
      } catch (error) {
        await env.context.internalAdapter.deleteUser(user.id).catch(() => undefined);
        throw error;
      }
      return toAuthUser({ ...user, phoneNumber: identity.phoneNumber, phoneNumberVerified: false });
    }
    return toAuthUser(user);
  } catch (error) {
    const mapped = fromEngineThrow(error);
    if (mapped && 'code' in mapped && mapped.code === 'VALIDATION_ERROR' && /ALREADY_EXISTS/.test(String(mapped.details.reason))) {
      throw codedError('CONFLICT', { summary: `a user with email ${identity.email} already exists`, reason: mapped.details.reason });
    }
    throw mapped ?? error;
  }
}

/** POST /auth/admin/create-user: validate, then create with the given, a generated or no password. */
export async function createUser(env: EnvironmentAuth, input: CreateUserInput, minPasswordLength: number): Promise<{ user: AuthUser; temporaryPassword?: string }> {
  const email = input.email.trim().toLowerCase();
  const errors: Array<{ path: string; message: string }> = [];
  if (!isEmail(email)) errors.push({ path: 'body/email', message: 'must be an email address' });
  else if (isPlaceholderEmail(email)) errors.push({ path: 'body/email', message: `addresses @${PLACEHOLDER_DOMAIN} are reserved for phone-only accounts` });
  if (input.password !== undefined && input.generatePassword) errors.push({ path: 'body/password', message: 'give a password or generatePassword: true, not both' });
  if (input.password !== undefined && (input.password.length < minPasswordLength || input.password.length > MAX_PASSWORD)) {
    errors.push({ path: 'body/password', message: `must be ${minPasswordLength} to ${MAX_PASSWORD} characters long` });
  }
  if (errors.length > 0) throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
  if (await env.context.internalAdapter.findUserByEmail(email)) {
    throw codedError('CONFLICT', { summary: `a user with email ${email} already exists` });
  }
  const temporaryPassword = input.generatePassword ? generatePassword() : undefined;
  const user = await createIdentity(env, {
    email,
    name: input.name?.trim() || email.split('@')[0]!,
    password: input.password ?? temporaryPassword,
    mustChangePassword: input.mustChangePassword ?? temporaryPassword !== undefined,
  });
  return temporaryPassword === undefined ? { user } : { user, temporaryPassword };
}
