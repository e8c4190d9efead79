import { createHmac } from 'node:crypto';
import type { BetterAuthPlugin } from 'better-auth';

/** Identifiers under which the engine's phone-number plugin stores its codes. */
const PHONE_CODE_IDENTIFIER = /^phone-number-(otp|reset)-/;
/** The engine's stored form: the code and its attempt count. */
const PLAIN = /^(\d{4,10}):(\d+)$/;

/** The keyed hash a code is stored as, and compared as (the engine compares strings). */
export function hashPhoneCode(secret: string, code: string): string {
  return `h.${createHmac('sha256', secret).update(`phone-code:${code}`).digest('base64url')}`;
}

/**
 * Store phone codes as keyed hashes: a read of sys_verification does not yield codes that sign in.
 * The HTTP edge hashes the code of each verify and reset request the same way (phoneRequest.ts),
 * so the engine's own comparison, attempt count and voiding work unchanged.
 */
export function phoneCodeHashPlugin(secret: string): BetterAuthPlugin {
  return {
    id: 'osr-phone-code-hash',
    init() {
      return {
        options: {
          databaseHooks: {
            verification: {
              create: {
                async before(data: { identifier?: unknown; value?: unknown }) {
                  if (typeof data.identifier !== 'string' || !PHONE_CODE_IDENTIFIER.test(data.identifier) || typeof data.value !== 'string') return;
                  const plain = PLAIN.exec(data.value);
                  if (!plain) return;
                  return { data: { ...data, value: `${hashPhoneCode(secret, plain[1]!)}:${plain[2]}` } };
                },
              },
            },
          },
        },
      };
    },
  } as unknown as BetterAuthPlugin;
}
