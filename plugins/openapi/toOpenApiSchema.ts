export type Schema = Record<string, unknown>;

/** Keywords a Schema Object of OpenAPI 3.0 accepts (JSON Schema's others are dropped or rewritten). */
const KEPT = new Set([
  'title', 'multipleOf', 'maximum', 'minimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'maxProperties', 'minProperties', 'enum', 'description', 'format', 'default', 'nullable',
  'readOnly', 'writeOnly', 'deprecated',
]);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A route's JSON Schema (what fastify validates with) as an OpenAPI 3.0 Schema Object: type lists
 * become `nullable` or `anyOf`, `const` an enum, numeric exclusive bounds the boolean form, and
 * keywords 3.0 lacks are dropped, so the document stays valid whatever a plugin declares.
 */
export function toOpenApiSchema(input: unknown, depth = 0): Schema {
  if (!isSchema(input) || depth > 32) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(input)) {
    if (KEPT.has(key) || key.startsWith('x-')) out[key] = value;
  }
  if (typeof input.$ref === 'string' && input.$ref.startsWith('#/components/')) return { $ref: input.$ref };
  if ('const' in input) out.enum = [input.const];
  if (Array.isArray(input.examples) && input.examples.length > 0) out.example = input.examples[0];
  else if ('example' in input) out.example = input.example;
  for (const bound of ['Minimum', 'Maximum'] as const) {
    const exclusive = input[`exclusive${bound}`];
    if (typeof exclusive === 'number') {
      out[bound.toLowerCase()] = exclusive;
      out[`exclusive${bound}`] = true;
    } else if (typeof exclusive === 'boolean') out[`exclusive${bound}`] = exclusive;
  }
  if (Array.isArray(input.required) && input.required.length > 0) out.required = input.required.filter((r) => typeof r === 'string');
  if (isSchema(input.properties)) {
    out.properties = Object.fromEntries(Object.entries(input.properties).map(([k, v]) => [k, toOpenApiSchema(v, depth + 1)]));
  }
  if (typeof input.additionalProperties === 'boolean') out.additionalProperties = input.additionalProperties;
  else if (isSchema(input.additionalProperties)) out.additionalProperties = toOpenApiSchema(input.additionalProperties, depth + 1);
  // Tuple forms have no 3.0 equivalent: any item.
  if (isSchema(input.items)) out.items = toOpenApiSchema(input.items, depth + 1);
  else if (Array.isArray(input.items)) out.items = {};
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = input[key];
    if (Array.isArray(list) && list.length > 0) out[key] = list.map((s) => toOpenApiSchema(s, depth + 1));
  }
  if (isSchema(input.not)) out.not = toOpenApiSchema(input.not, depth + 1);

  const types = Array.isArray(input.type) ? input.type.filter((t): t is string => typeof t === 'string') : typeof input.type === 'string' ? [input.type] : [];
  const nullable = types.includes('null');
  const concrete = types.filter((t) => t !== 'null');
  if (concrete.length === 1) out.type = concrete[0];
  else if (concrete.length > 1) out.anyOf = concrete.map((type) => ({ type, ...(type === 'array' ? { items: {} } : {}) }));
  if (nullable) out.nullable = true;
  if (Array.isArray(out.enum) && nullable && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.type === 'array' && !out.items) out.items = {};
  // 3.0 requires a type beside nullable.
  if (out.nullable && !out.type && !out.anyOf && !out.oneOf && !out.allOf) delete out.nullable;
  return out;
}
