import { passkey } from '@better-auth/passkey';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError } from 'better-auth/api';
import { TABLES } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { relyingParty } from './passkeyRelyingParty.ts';

/** The engine's passkey plugin with our table, relying party and user-verification rule; null when off. */
export function passkeyPlugin(options: Pick<AuthOptions, 'passkeys' | 'baseURL'>): BetterAuthPlugin | null {
  if (!options.passkeys.enabled) return null;
  const rp = relyingParty(options);
  const requireUv = options.passkeys.requireUserVerification;
  return passkey({
    rpID: rp.rpID,
    rpName: rp.rpName,
    origin: rp.origins,
    schema: { passkey: { modelName: TABLES.passkey } },
    authenticatorSelection: { residentKey: 'preferred', userVerification: requireUv ? 'required' : 'preferred' },
    authentication: {
      // The engine accepts an assertion without user verification; a passkey alone must not be
      // a possession-only factor unless configured so.
      afterVerification({ verification }) {
        if (requireUv && !verification.authenticationInfo.userVerified) {
          throw new APIError('UNAUTHORIZED', { code: 'USER_VERIFICATION_REQUIRED', message: 'The authenticator did not verify the user' });
        }
      },
    },
  }) as unknown as BetterAuthPlugin;
}
