import { z } from 'zod';
import { suggest } from '../kernel/suggest.ts';
import { FIELD_TYPES, type FieldType } from './types.ts';
import { FIELD_SCHEMAS, typesAccepting } from './fieldSchema.ts';
import { formatPath, type MetadataProblem } from './metadataError.ts';

type Issue = z.core.$ZodIssue;

/** Turns zod issues into problems whose reasons say what to write instead. */
export function describeIssues(schema: z.ZodType, input: unknown, issues: readonly Issue[]): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ path: formatPath([...issue.path, key]), reason: unknownKeyReason(schema, input, issue.path, key) });
      }
      continue;
    }
    problems.push({ path: formatPath(issue.path), reason: issueReason(issue, valueAt(input, issue.path)) });
  }
  return problems;
}

function issueReason(issue: Issue, value: unknown): string {
  if (issue.code === 'invalid_union' && (issue as { note?: string }).note === 'No matching discriminator') {
    if (value === undefined) return `is required: one of ${FIELD_TYPES.join(', ')}`;
    const near = typeof value === 'string' ? suggest(value, FIELD_TYPES) : null;
    return `unknown field type ${JSON.stringify(value)}${near ? ` (did you mean '${near}'?)` : ''}; expected one of ${FIELD_TYPES.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    return value === undefined ? 'is required' : `must be ${article(issue.expected)}, got ${describeValue(value)}`;
  }
  return issue.message.startsWith('Invalid') || issue.message.startsWith('Too') ? lowerFirst(issue.message) : issue.message;
}

function unknownKeyReason(schema: z.ZodType, input: unknown, path: readonly PropertyKey[], key: string): string {
  const owner = valueAt(input, path) as Record<string, unknown> | undefined;
  const fieldType = owner?.['type'];
  // Field declarations of an object (not other `fields` maps, such as an override's field patches).
  const declaresType = () => keysAt(schema, input, path).includes('type');
  if (path.length === 2 && path[0] === 'fields' && typeof fieldType === 'string' && fieldType in FIELD_SCHEMAS && declaresType()) {
    const elsewhere = typesAccepting(key);
    if (elsewhere.length > 0) return `unknown key '${key}' for a ${fieldType} field (it applies to ${elsewhere.join(', ')} fields)`;
    return withSuggestion(`unknown key '${key}' for a ${fieldType} field`, key, Object.keys(FIELD_SCHEMAS[fieldType as FieldType].shape));
  }
  return withSuggestion(`unknown key '${key}'`, key, keysAt(schema, input, path));
}

function withSuggestion(reason: string, key: string, allowed: string[]): string {
  const near = suggest(key, allowed);
  if (near) return `${reason} (did you mean '${near}'?)`;
  return allowed.length > 0 ? `${reason}; allowed keys: ${allowed.join(', ')}` : reason;
}

/** Keys the schema accepts at a path of the input (follows optionals, arrays, records, unions). */
function keysAt(schema: z.ZodType, input: unknown, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  let value: unknown = input;
  for (const part of [...path, null]) {
    current = unwrap(current, value);
    if (part === null) break;
    value = (value as Record<PropertyKey, unknown> | undefined)?.[part];
    if (current instanceof z.ZodObject) current = current.shape[part as string];
    else if (current instanceof z.ZodArray) current = current.element;
    else if (current instanceof z.ZodRecord) current = current.valueType;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: unknown, value: unknown): unknown {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional) current = current.unwrap();
    else if (current instanceof z.ZodUnion) {
      const objects = (current.options as unknown[]).filter((o) => o instanceof z.ZodObject) as z.ZodObject[];
      const type = (value as Record<string, unknown> | undefined)?.['type'];
      current = objects.find((o) => o.shape['type'] instanceof z.ZodLiteral && o.shape['type'].value === type) ?? objects[0];
    } else return current;
  }
}

export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function lowerFirst(text: string): string {
  return text[0]!.toLowerCase() + text.slice(1);
}
