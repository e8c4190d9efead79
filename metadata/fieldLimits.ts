import type { FieldDefinition, FieldType } from './types.ts';

/**
 * The largest value a field takes, whatever the route: text kinds in characters (`maxLength`),
 * json in UTF-8 bytes of its JSON text (`maxBytes`). A field declares its own bound up to the
 * ceiling; without one it has the default of its type. Every value is bounded: one cell can
 * never cost more than this in validation, search text, history and the write.
 */
export const DEFAULT_MAX_LENGTH = {
  text: 10_000,
  textarea: 100_000,
  email: 320,
  url: 2_048,
  phone: 64,
} as const satisfies Partial<Record<FieldType, number>>;

/** Highest `maxLength` a text field may declare, characters. */
export const MAX_LENGTH_CEILING = 1_000_000;

/** json: bytes of the value's JSON text by default, and the highest `maxBytes` a field may declare. */
export const DEFAULT_MAX_BYTES = 1_000_000;
export const MAX_BYTES_CEILING = 16_000_000;

export type TextKind = keyof typeof DEFAULT_MAX_LENGTH;

export function isTextKind(type: FieldType): type is TextKind {
  return Object.hasOwn(DEFAULT_MAX_LENGTH, type);
}

/** A text field's bound in characters (declared or the default of its type); undefined for other types. */
export function maxLengthOf(field: Pick<FieldDefinition, 'type' | 'maxLength'>): number | undefined {
  return isTextKind(field.type) ? (field.maxLength ?? DEFAULT_MAX_LENGTH[field.type]) : undefined;
}

/** A json field's bound in bytes of its JSON text; undefined for other types. */
export function maxBytesOf(field: Pick<FieldDefinition, 'type' | 'maxBytes'>): number | undefined {
  return field.type === 'json' ? (field.maxBytes ?? DEFAULT_MAX_BYTES) : undefined;
}

/**
 * The longest text one cell of an import may hold for this field, in characters (a json cell's
 * characters never outnumber its UTF-8 bytes); undefined when the field's type has no size bound.
 */
export function cellLimitOf(field: Pick<FieldDefinition, 'type' | 'maxLength' | 'maxBytes'>): number | undefined {
  return maxLengthOf(field) ?? maxBytesOf(field);
}

/**
 * Whether a value's JSON text is longer than `max` UTF-8 bytes (escapes counted as the character
 * they stand for), stopping as soon as it is: a huge value is not serialized to be refused.
 */
export function jsonBytesOver(value: unknown, max: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += Buffer.byteLength(item, 'utf8') + 2;
    else if (Array.isArray(item)) {
      total += 2 + Math.max(0, item.length - 1);
      for (const v of item) stack.push(v);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      total += 2 + Math.max(0, entries.length - 1);
      for (const [k, v] of entries) {
        total += Buffer.byteLength(k, 'utf8') + 3;
        stack.push(v);
      }
    } else total += item === undefined ? 4 : String(item).length;
    if (total > max) return true;
  }
  return false;
}
