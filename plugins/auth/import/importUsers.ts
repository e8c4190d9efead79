import type { ImportDelivery, ImportRowResult, ImportUsersInput, ImportUsersResult } from '../../../capabilities/authIdentity.ts';
import type { EmailSend } from '../../../capabilities/emailSend.ts';
import type { SmsSend } from '../../../capabilities/smsSend.ts';
import { MODELS, type EngineUser } from '../authEngine.ts';
import type { EnvironmentAuth } from '../createEnvironmentAuth.ts';
import { createIdentity } from '../createUser.ts';
import { generatePassword } from '../generatePassword.ts';
import { mapLimit } from '../mapLimit.ts';
import { normalizeRow, placeholderEmail, type ImportCandidate, type RowError } from './normalizeRow.ts';
import { readImportRows } from './readImportRows.ts';
import { sendInvite } from './sendInvite.ts';
import { sendSmsInvite } from './sendSmsInvite.ts';

export interface ImportDeps {
  env: EnvironmentAuth;
  email: EmailSend | undefined;
  /** Set when phone sign-in is on: phone rows are then invited by SMS. */
  sms?: SmsSend | undefined;
  /** Server origin, for the links of invitations. */
  origin: string;
  inviteExpiresIn: number;
}

interface Creation {
  result: ImportRowResult;
  email: string;
  name: string;
  phone: string | null;
}

/** Password hashing dominates a large import; a few run at once on the thread pool. */
const CREATE_CONCURRENCY = 4;

const fail = (result: ImportRowResult, errors: RowError[]): ImportRowResult =>
  Object.assign(result, { action: 'error' as const, delivery: 'none' as const, errors });

/**
 * Import users: validate every row, match existing users by email or phone, update their name
 * and phone (never their password), create the others and give each a way in: an email
 * invitation when an email service is wired, else a temporary password shown once.
 */
export async function importUsers(deps: ImportDeps, input: ImportUsersInput): Promise<ImportUsersResult> {
  const { env } = deps;
  const raws = await readImportRows(input);
  const upsertBy = input.upsertBy ?? 'email';
  const policy = input.passwordPolicy ?? 'auto';
  const dryRun = input.dryRun ?? false;
  const byEmail = async (email: string) => (await env.context.internalAdapter.findUserByEmail(email))?.user ?? null;
  const byPhone = (phone: string) => env.context.adapter.findOne<EngineUser>({ model: MODELS.user, where: [{ field: 'phoneNumber', value: phone }] });
  const seen = new Map<string, number>();
  const results: ImportRowResult[] = [];
  const creations: Creation[] = [];

  for (const [index, raw] of raws.entries()) {
    const row: ImportCandidate = normalizeRow(raw);
    const key = upsertBy === 'phone' ? row.phone : row.email ?? (row.phone ? placeholderEmail(row.phone) : null);
    const email = row.email ?? (row.phone ? placeholderEmail(row.phone) : null);
    const result: ImportRowResult = { row: index + 1, email, action: 'skip', delivery: 'none' };
    results.push(result);
    const errors = [...row.errors];
    if (upsertBy === 'phone' && !row.phone && !errors.some((e) => e.field === 'phone')) errors.push({ field: 'phone', message: 'is required when upsertBy is phone' });
    for (const [kind, value] of [['email', email], ['phone', row.phone]] as const) {
      if (value && seen.has(`${kind}:${value}`)) errors.push({ field: kind, message: `repeats row ${seen.get(`${kind}:${value}`)}` });
    }
    if (errors.length > 0 || !key || !email) {
      fail(result, errors);
      continue;
    }
    seen.set(`email:${email}`, result.row);
    if (row.phone) seen.set(`phone:${row.phone}`, result.row);

    const existing = upsertBy === 'phone' ? await byPhone(key) : await byEmail(key);
    const phoneOwner = row.phone ? await byPhone(row.phone) : null;
    if (phoneOwner && phoneOwner.id !== existing?.id) {
      fail(result, [{ field: 'phone', message: 'belongs to another account' }]);
      continue;
    }
    if (existing) {
      if (upsertBy === 'phone' && row.email && row.email !== existing.email) {
        fail(result, [{ field: 'email', message: `differs from the account's (${existing.email}); an import never changes an email` }]);
        continue;
      }
      const patch: Record<string, unknown> = {};
      if (row.name && row.name !== existing.name) patch.name = row.name;
      if (row.phone && row.phone !== existing.phoneNumber) Object.assign(patch, { phoneNumber: row.phone, phoneNumberVerified: false });
      if (Object.keys(patch).length === 0) continue;
      result.action = 'update';
      if (!dryRun) await env.context.internalAdapter.updateUser(existing.id, patch);
      continue;
    }
    if (upsertBy === 'phone' && (await byEmail(email))) {
      fail(result, [{ field: 'email', message: 'belongs to another account' }]);
      continue;
    }
    result.action = 'create';
    result.delivery = deliveryOf(policy, row, deps.email !== undefined, deps.sms !== undefined);
    creations.push({ result, email, name: row.name ?? email.split('@')[0]!, phone: row.phone });
  }

  if (!dryRun) await mapLimit(creations, CREATE_CONCURRENCY, (creation) => create(deps, creation));
  return { dryRun, rows: results, summary: summarize(results) };
}

/**
 * 'auto': invite through a deliverable channel (a real email with an email service, else a phone
 * with phone sign-in and an SMS service), else a temporary password.
 */
function deliveryOf(policy: 'auto' | 'none', row: ImportCandidate, canEmail: boolean, canSms: boolean): ImportDelivery {
  if (policy === 'none') return 'none';
  if (row.email && canEmail) return 'invite_email';
  if (row.phone && canSms) return 'invite_sms';
  return 'temporary_password';
}

async function create(deps: ImportDeps, creation: Creation): Promise<void> {
  const { result } = creation;
  const password = result.delivery === 'temporary_password' ? generatePassword() : undefined;
  let userId: string | null = null;
  try {
    const user = await createIdentity(deps.env, {
      email: creation.email,
      name: creation.name,
      password,
      mustChangePassword: password !== undefined,
      phoneNumber: creation.phone,
    });
    userId = user.id;
    if (result.delivery === 'invite_email') await sendInvite(deps, user);
    if (result.delivery === 'invite_sms') await sendSmsInvite(deps, creation.phone!);
    if (password !== undefined) result.temporaryPassword = password;
  } catch (error) {
    // An invitation that cannot be sent would leave an account nobody can enter: undo it.
    if (userId) await deps.env.context.internalAdapter.deleteUser(userId).catch(() => undefined);
    fail(result, [{ field: 'row', message: (error as Error).message.slice(0, 300) }]);
  }
}

function summarize(rows: ImportRowResult[]): ImportUsersResult['summary'] {
  const delivery: Record<ImportDelivery, number> = { invite_email: 0, invite_sms: 0, temporary_password: 0, none: 0 };
  const count = (action: ImportRowResult['action']) => rows.filter((r) => r.action === action).length;
  for (const row of rows) delivery[row.delivery] += 1;
  return { created: count('create'), updated: count('update'), skipped: count('skip'), errors: count('error'), delivery };
}
