import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import { READS_ONLY, type DataDatabase } from '../../capabilities/dataDatabase.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedForm } from '../../metadata/formTypes.ts';

type UserRow = Record<string, unknown>;

const truthy = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';

function banned(row: UserRow, now: number): boolean {
  if (!truthy(row.banned)) return false;
  const until = row.banExpires ?? row.ban_expires;
  return until === null || until === undefined || new Date(until as string).getTime() > now;
}

/**
 * The principal of a form's runAs user in one environment, with its positions and permission sets:
 * looked up at every submission (by id, or by email without regard to case), so a user created,
 * renamed or banned after boot is seen at once. A missing or banned user makes the form unavailable
 * (503 FORM_UNAVAILABLE) rather than fall back to another identity.
 */
export async function resolveRunAs(database: DataDatabase, grants: AccessGrants, form: ResolvedForm & { runAs: string }, environmentId: string): Promise<Principal> {
  const row = await database.withDatabase(environmentId, async ({ knex }) => {
    const query = knex('sys_user').first('*');
    if (form.runAs.includes('@')) query.whereRaw('lower(email) = ?', [form.runAs.toLowerCase()]);
    else query.where('id', form.runAs);
    return (await query.catch(() => undefined)) as UserRow | undefined;
  }, undefined, READS_ONLY);
  if (!row || banned(row, Date.now())) {
    throw codedError('FORM_UNAVAILABLE', { slug: form.slug, reason: 'the account it submits as is missing or disabled in this environment' });
  }
  const roles = String(row.role ?? 'user').split(',').map((r) => r.trim());
  const principal: Principal = {
    kind: 'user',
    userId: String(row.id),
    environmentId,
    email: typeof row.email === 'string' ? row.email : null,
    isAdmin: roles.includes('admin'),
    positions: [],
    permissionSets: [],
    permissions: [],
  };
  return grants.resolve(principal);
}
