/** fast-check arbitraries of the values an OpenAPI 3.0 schema describes: requests generated from the document itself. */
import fc from 'fast-check';

export type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The schema a `$ref` points to inside the document (`#/components/schemas/x`). */
export function deref(doc: Schema, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    current = current.$ref.slice(2).split('/').reduce((node: Schema | undefined, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) ?? {};
  }
  return current ?? {};
}

const ISO_FROM = new Date('2000-01-01T00:00:00Z').getTime();
const ISO_TO = new Date('2040-12-31T00:00:00Z').getTime();
const instant = fc.integer({ min: ISO_FROM, max: ISO_TO }).map((ms) => new Date(ms));

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 24, 48));
  switch (schema.format) {
    case 'date': return instant.map((d) => d.toISOString().slice(0, 10));
    case 'date-time': return instant.map((d) => d.toISOString());
    case 'email': return fc.emailAddress().filter((e) => e.length >= min && e.length <= (schema.maxLength ?? 320));
    case 'uri': return fc.webUrl().filter((u) => u.length >= min && u.length <= (schema.maxLength ?? 2000));
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? 200));
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' });
}

/**
 * Values valid for `schema` (as the document states it: types, enums, bounds, lengths, formats,
 * patterns, required keys); nested objects below `depth` 3 are kept small.
 */
export function arbitraryOf(doc: Schema, raw: Schema, depth = 0, ids?: IdsOf): fc.Arbitrary<unknown> {
  const schema = deref(doc, raw);
  let arb = baseArbitrary(doc, schema, depth, ids);
  // A lookup (x-reference) names a record: mostly one that exists, when the run knows some.
  const known = typeof schema['x-reference'] === 'string' ? (ids?.(schema['x-reference']) ?? []) : [];
  if (known.length > 0) arb = fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: arb, weight: 1 });
  if (schema.nullable === true && !Array.isArray(schema.enum)) arb = fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
  return arb;
}

/** Ids of records of an object that exist, for lookups. */
export type IdsOf = (object: string) => readonly string[];

function baseArbitrary(doc: Schema, schema: Schema, depth: number, ids?: IdsOf): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const { anyOf: _a, oneOf: _o, ...common } = schema;
    // Alternatives that refine an object (a shared shape, each with its own required keys) are merged with it.
    const merged = alternatives.map((alt: Schema) => (common.properties
      ? { ...common, ...alt, properties: { ...common.properties, ...(alt.properties ?? {}) }, required: [...(common.required ?? []), ...(alt.required ?? [])] }
      : alt));
    return fc.oneof(...merged.map((s: Schema) => arbitraryOf(doc, s, depth + 1, ids)));
  }
  switch (schema.type) {
    case 'string': return stringOf(schema);
    case 'integer': return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? Math.max(1000, schema.minimum ?? 0) });
    case 'number': return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
    case 'boolean': return fc.boolean();
    case 'array': {
      const items = schema.items ? arbitraryOf(doc, schema.items, depth + 1, ids) : fc.jsonValue({ maxDepth: 1 });
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, depth > 2 ? minLength : 3));
      return schema.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
    }
    case 'object':
    case undefined: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(schema.required ?? []);
      if (schema.type === undefined && Object.keys(properties).length === 0) return fc.jsonValue({ maxDepth: 1 });
      if (depth > 3) return fc.constant(Object.fromEntries([...required].map((k) => [k, null])));
      const keys = Object.keys(properties);
      return fc.record(Object.fromEntries(keys.map((k) => [k, arbitraryOf(doc, properties[k]!, depth + 1, ids)])), { requiredKeys: keys.filter((k) => required.has(k)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}
