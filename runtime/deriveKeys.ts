import { hkdfSync } from 'node:crypto';
import type { SecretsKeys } from '../capabilities/secretsKeys.ts';

export function createSecretsKeys(baseSecret: string): SecretsKeys {
  return {
    derive(purpose, environmentId, length = 32) {
      return Buffer.from(hkdfSync('sha256', baseSecret, environmentId, purpose, length));
    },
  };
}
