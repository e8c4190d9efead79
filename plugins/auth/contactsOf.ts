import type { UserContact } from '../../capabilities/authIdentity.ts';
import { codedError } from '../../kernel/errors.ts';
import { MODELS, type EngineUser } from './authEngine.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { isPlaceholderEmail } from './import/normalizeRow.ts';

export const MAX_CONTACT_IDS = 500;

/** Addresses and phone numbers of users, read in one query; unknown ids are left out. */
export async function contactsOf(env: EnvironmentAuth, userIds: readonly string[]): Promise<UserContact[]> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return [];
  if (ids.length > MAX_CONTACT_IDS) throw codedError('VALIDATION_ERROR', { summary: `at most ${MAX_CONTACT_IDS} user ids per lookup` });
  const users = await env.context.adapter.findMany<EngineUser>({
    model: MODELS.user,
    where: [{ field: 'id', operator: 'in', value: ids }],
    limit: ids.length,
  });
  return users.map((user) => ({
    id: user.id,
    name: user.name,
    email: user.email && !isPlaceholderEmail(user.email.toLowerCase()) ? user.email : null,
    phoneNumber: user.phoneNumber ?? null,
  }));
}
