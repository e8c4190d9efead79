import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codedError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';

export interface SecretSource {
  secret: string;
  /** `env` (OS_AUTH_SECRET/AUTH_SECRET or config), `file` (kept from an earlier run), `generated` (new now). */
  origin: 'env' | 'file' | 'generated';
  file?: string;
}

/**
 * The base auth secret. Outside production a missing secret is generated once and kept in the
 * data directory, so sessions survive restarts; in production it must be set.
 */
export function resolveSecret(input: { secret?: string | undefined; dataDir: string; production: boolean }, log?: Logger): SecretSource {
  if (input.secret) return { secret: input.secret, origin: 'env' };
  if (input.production) throw codedError('SECRET_REQUIRED');
  const file = join(input.dataDir, '.auth-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return { secret: kept, origin: 'file', file };
  }
  mkdirSync(input.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // The mode option applies only to a new file: tighten one being replaced before writing into it.
  if (existsSync(file)) chmodSync(file, 0o600);
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  log?.warn({ file }, 'OS_AUTH_SECRET is not set: generated a development secret and kept it in the data directory. Set OS_AUTH_SECRET in production.');
  return { secret, origin: 'generated', file };
}
