import { defineCapability } from './defineCapability.ts';

export interface SecretsKeys {
  /**
   * A key derived (HKDF-SHA256) from the base secret, the environment id and a purpose label,
   * so keys for different purposes or environments are unrelated.
   */
  derive(purpose: string, environmentId: string, length?: number): Buffer;
}

export const secretsKeys = defineCapability<SecretsKeys>()({
  id: 'secrets.keys',
  cardinality: 'single',
  description: 'Derive purpose- and environment-bound keys from OS_AUTH_SECRET (provided by the kernel host).',
});
