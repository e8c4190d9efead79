/** Checks answers against an OpenAPI 3.0 document with Ajv (the validator fastify itself uses). */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Schema } from './schemaArbitrary.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** OpenAPI 3.0's dialect to JSON Schema: `nullable` becomes a null alternative, refs point into the registered document. */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example' || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = `openapi${value}`;
    else if (key === 'properties' || key === 'schemas') out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, toJsonSchema(v)]));
    else out[key] = toJsonSchema(value);
  }
  if ((schema as Schema).nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

export interface Mismatch {
  operation: string;
  status: number;
  problem: string;
}

/** One operation's answer checked against the document: a documented status, a documented media type, a body its schema accepts. */
export class ResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Schema) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: toJsonSchema({ schemas: doc.components?.schemas ?? {} }) as object });
  }

  private responseOf(raw: Schema): Schema {
    if (typeof raw?.$ref === 'string') return raw.$ref.slice(2).split('/').reduce((n: Schema, k: string) => n?.[k], this.doc) ?? {};
    return raw ?? {};
  }

  check(operation: string, op: Schema, status: number, contentType: string | undefined, body: string): string | null {
    const documented = op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.default;
    if (!documented) return `status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')}); body ${body.slice(0, 200)}`;
    const response = this.responseOf(documented);
    const content = (response.content ?? {}) as Record<string, Schema>;
    const media = contentType?.split(';')[0]?.trim().toLowerCase();
    if (Object.keys(content).length === 0) {
      return body.length === 0 ? null : `status ${status} is documented without a body, but one came (${media}): ${body.slice(0, 200)}`;
    }
    if (!media || !content[media]) return `status ${status} answered ${media ?? 'no content type'}; documented: ${Object.keys(content).join(', ')}`;
    if (media !== 'application/json') return null;
    const key = `${operation} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(content[media]!.schema ?? {}) as object);
      this.compiled.set(key, validate);
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `status ${status} answered application/json that does not parse: ${body.slice(0, 200)}`;
    }
    if (validate(value)) return null;
    const first = validate.errors?.[0];
    return `status ${status} body does not match the documented schema: ${first?.instancePath || '/'} ${first?.message} (${JSON.stringify(first?.params)}); body ${body.slice(0, 300)}`;
  }
}
