import type { ObjectDefinition } from './types.ts';

/**
 * Authoring helper for objects declared in TypeScript (`objects/<name>.ts`, default export).
 * It only types the declaration; the loader validates it exactly like a JSON file.
 */
export function defineObject<const T extends ObjectDefinition>(definition: T): T {
  return definition;
}
