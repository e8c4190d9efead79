import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { coerceOrThrow } from './writeRecords.ts';

const NO_KEYS: readonly string[] = [];

/**
 * The values of a create after its before-hooks, coerced again where a hook may have changed them:
 * `sent` is the coerced input the hooks were given (they may change it in place or replace
 * `record`), `before` a copy of it taken first (`sent` itself when there were no hooks). Values left
 * as they were are coerced already: with no hook, all of them; else the plain ones left in place,
 * and only arrays and objects (changeable inside) again. Anything else is coerced anew.
 */
export function valuesAfterHooks(object: ResolvedObject, sent: DataRecord, before: DataRecord, record: DataRecord, hooked: boolean): DataRecord {
  const inside = !hooked ? NO_KEYS : record === sent ? objectKeysIfSame(sent, before) : null;
  if (inside === null) return coerceOrThrow(object, record, 'create', 'hook');
  if (inside.length === 0) return sent;
  return Object.assign({ ...sent }, coerceOrThrow(object, pick(sent, inside), 'update', 'hook'));
}

/**
 * When `b` has exactly the keys of `a` and the same value under each: the keys whose values are
 * arrays or objects (a hook may have changed them inside); null when anything else differs.
 */
function objectKeysIfSame(a: DataRecord, b: DataRecord): readonly string[] | null {
  let count = 0;
  let inside: string[] | null = null;
  for (const key in a) {
    const value = a[key];
    if (!Object.hasOwn(b, key) || value !== b[key]) return null;
    if (typeof value === 'object' && value !== null) (inside ??= []).push(key);
    count++;
  }
  return count === Object.keys(b).length ? (inside ?? NO_KEYS) : null;
}

function pick(record: DataRecord, keys: readonly string[]): DataRecord {
  const picked: DataRecord = {};
  for (const key of keys) picked[key] = record[key];
  return picked;
}
