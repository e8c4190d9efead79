import { idAndVersion } from '../../capabilities/credentialScopes.ts';
import type { DataRecord } from '../../capabilities/dataEngine.ts';

const isRecord = (value: unknown): value is DataRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as DataRecord).id === 'string' && (value as DataRecord).version !== undefined;

/**
 * An action's answer to a credential without data:read: each record it holds, at any depth (the
 * answer itself, or a value or item of it, or one nested in those), as its id and version, nothing
 * more, as the engine answers such a write.
 */
export function blindAnswer(result: unknown, depth = 0): unknown {
  if (isRecord(result)) return idAndVersion(result);
  if (typeof result !== 'object' || result === null) return result;
  if (depth >= 64) return null;
  if (Array.isArray(result)) return result.map((item) => blindAnswer(item, depth + 1));
  return Object.fromEntries(Object.entries(result).map(([key, value]) => [key, blindAnswer(value, depth + 1)]));
}

