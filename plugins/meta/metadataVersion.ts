import { createHash } from 'node:crypto';
import type { LoadedApp, ResolvedObject } from '../../metadata/types.ts';

// Where a declaration was read from does not change what it declares.
const LOCATION_KEYS = new Set(['source', 'dir', 'compiled']);

/** A short content hash of the loaded metadata: equal metadata, equal version, whatever the checkout. */
export function metadataVersion(apps: readonly LoadedApp[], objects: readonly ResolvedObject[]): string {
  const text = JSON.stringify({ apps: apps.map((a) => ({ ...a, objects: undefined })), objects }, (key, value: unknown) =>
    LOCATION_KEYS.has(key) || typeof value === 'function' ? undefined : value);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
