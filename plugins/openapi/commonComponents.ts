import { ERRORS } from '../../kernel/errors.ts';
import type { Schema } from './toOpenApiSchema.ts';

export const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };

/** Security requirement alternatives of an authenticated route. */
export const AUTHENTICATED = [{ session: [] }, { bearer: [] }, { apiKey: [] }];

/** Secure cookies (production) carry the __Secure- prefix. */
export function securitySchemes(defaultEnvironment: string, production: boolean): Record<string, Schema> {
  const prefix = production ? '__Secure-' : '';
  return {
    session: {
      type: 'apiKey', in: 'cookie', name: `${prefix}osr-${defaultEnvironment}.session_token`,
      description: `Session cookie set by POST /auth/sign-in. Its name carries the environment id: ${prefix}osr-<environment>.session_token.`,
    },
    bearer: { type: 'http', scheme: 'bearer', description: 'The token answered by POST /auth/sign-in, as Authorization: Bearer <token>.' },
    apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (osk_...) minted with POST /keys; also accepted as a bearer token.' },
  };
}

/** The structured query body of POST /data/<object>/query. */
const structuredQuery: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fields: { type: 'array', items: { type: 'string' }, description: 'Projection; default: every visible field. Joined fields as alias.field.' },
    where: { type: 'object', additionalProperties: true, description: 'Filter condition: {field: {$op: value}}, $and, $or, $not; operands may be {$field} or {$cel}.' },
    orderBy: { type: 'array', items: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, order: { type: 'string', enum: ['asc', 'desc'] } } } },
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    cursor: { type: 'string' },
    expand: { type: 'array', items: { type: 'string' }, description: 'Lookups to resolve; dotted paths for nested ones.' },
    joins: {
      type: 'array',
      items: {
        type: 'object', required: ['type', 'object', 'as', 'on'],
        properties: { type: { type: 'string', enum: ['inner', 'left', 'right', 'full'] }, object: { type: 'string' }, as: { type: 'string' }, on: { type: 'string', description: '<local_field> = <alias>.<field>' } },
      },
    },
    groupBy: {
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'object', required: ['field'], properties: { field: { type: 'string' }, dateGranularity: { type: 'string', enum: ['day', 'week', 'month', 'quarter', 'year'] } } }] },
    },
    aggregations: {
      type: 'array',
      items: {
        type: 'object', required: ['function', 'alias'],
        properties: {
          function: { type: 'string', enum: ['count', 'sum', 'avg', 'min', 'max', 'count_distinct', 'array_agg', 'string_agg'] },
          field: { type: 'string' },
          alias: { type: 'string' },
        },
      },
    },
    having: { type: 'object', additionalProperties: true },
    distinct: { type: 'boolean' },
  },
};

/** Components every document holds: the error envelope (used by every 4xx and 5xx), shared bodies and parameters. */
export function commonComponents(): { schemas: Record<string, Schema>; responses: Record<string, Schema>; parameters: Record<string, Schema> } {
  return {
    schemas: {
      Error: {
        type: 'object',
        description: 'The envelope of every non-2xx response.',
        required: ['error'],
        additionalProperties: false,
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message', 'details'],
            additionalProperties: false,
            properties: {
              code: { type: 'string', enum: Object.keys(ERRORS), description: 'Stable, machine-readable.' },
              message: { type: 'string', description: 'What went wrong and what to do, for people.' },
              details: { type: 'object', additionalProperties: true, description: 'Context, e.g. the missing permission, the invalid paths (errors[].path, errors[].message).' },
            },
          },
        },
      },
      StructuredQuery: structuredQuery,
    },
    responses: {
      Error: {
        description: 'An error, in the envelope; error.code says which (UNAUTHENTICATED 401, PERMISSION_DENIED 403, VALIDATION_ERROR 400, NOT_FOUND 404, ...).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
    parameters: {
      IfMatch: {
        name: 'If-Match', in: 'header', required: false,
        description: 'The record version the write expects: 3, "3" or W/"3" (* or empty: any version); a stale one answers 409 CONCURRENT_UPDATE, another text 400.',
        schema: { type: 'string', pattern: '^(\\*|(W/)?"?[0-9]{1,15}"?)$' },
      },
    },
  };
}
