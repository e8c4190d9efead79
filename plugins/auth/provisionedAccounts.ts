import { createHash } from 'node:crypto';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';

/**
 * The user field that marks an account an administrator made (create-user, or a user import):
 * the administrator vouched for it, its password and sessions are its owner's.
 */
export const PROVISIONED_FIELD = 'provisioned';

interface MagicLinkRecord {
  type?: unknown;
  email?: unknown;
}

/**
 * The engine, proving an email by a magic link, strips an unverified account of its password,
 * links and sessions: for an account anyone could have signed up with that address, they may not
 * be the mailbox owner's. An account an administrator created or imported is not such an account:
 * just before the link is verified, its email is marked verified (the link is the proof), so the
 * engine keeps its password and its other sessions. Self-sign-up accounts keep the engine's rule.
 * The link's token is stored hashed (signInMethods.ts): the record is found by the same hash.
 */
export function provisionedMagicLink(): BetterAuthPlugin {
  return {
    id: 'osr-provisioned-magic-link',
    hooks: {
      before: [{
        matcher: (ctx) => ctx.path === '/magic-link/verify',
        handler: createAuthMiddleware(async (ctx) => {
          const token = typeof ctx.query?.token === 'string' ? ctx.query.token : '';
          if (token === '') return;
          const adapter = ctx.context.internalAdapter;
          const pending = await adapter.findVerificationValue(`magic-link:${createHash('sha256').update(token).digest('base64url')}`);
          if (!pending || pending.expiresAt < new Date()) return;
          let record: MagicLinkRecord;
          try {
            record = JSON.parse(pending.value) as MagicLinkRecord;
          } catch {
            return;
          }
          if (record.type !== 'magic-link' || typeof record.email !== 'string') return;
          const found = await adapter.findUserByEmail(record.email);
          const user = found?.user as (Record<string, unknown> & { id: string; emailVerified: boolean }) | undefined;
          if (!user || user.emailVerified || !truthy(user[PROVISIONED_FIELD])) return;
          await adapter.updateUser(user.id, { emailVerified: true });
        }),
      }],
    },
  };
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}
