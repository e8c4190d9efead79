import { codedError } from '../../kernel/errors.ts';
import type { AuthOptions } from './authOptions.ts';

type PasskeyConfig = Pick<AuthOptions, 'passkeys' | 'baseURL'>;

export interface RelyingParty {
  rpID: string;
  rpName: string;
  /** Expected origins of the ceremonies; null: the request's Origin (checked against the trusted ones first). */
  origins: string[] | null;
}

/** Who the passkeys belong to: the configured values, else what `baseURL` says, else localhost. */
export function relyingParty(options: PasskeyConfig): RelyingParty {
  const base = options.baseURL ? new URL(options.baseURL) : null;
  const origins = options.passkeys.origins?.map((o) => new URL(o).origin) ?? (base ? [base.origin] : null);
  return {
    rpID: options.passkeys.rpID?.toLowerCase() ?? base?.hostname ?? 'localhost',
    rpName: options.passkeys.rpName,
    origins,
  };
}

/**
 * In production, passkeys need a relying party other than `localhost`: no browser would use them
 * elsewhere. Refuses the configuration otherwise.
 */
export function checkPasskeyConfig(options: PasskeyConfig, production: boolean): void {
  if (production && options.passkeys.enabled && !options.passkeys.rpID && !options.baseURL) {
    throw codedError('CONFIG_INVALID', { path: 'plugins.auth.passkeys.rpID', reason: 'passkeys in production need plugins.auth.baseURL or plugins.auth.passkeys.rpID' });
  }
}
