import type { ApiVersion } from '../../capabilities/httpRoutes.ts';
import type { Schema } from './toOpenApiSchema.ts';

// A document is walked by known OpenAPI keys here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = Record<string, any>;

const LIST_REF = /^#\/components\/schemas\/(.+)\.list$/;

const COUNT_VALUES = ['capped', 'exact', 'estimated', 'none', 'true', 'false'];
const countParameter = (version: ApiVersion) => ({
  name: 'count', in: 'query', required: false,
  description: `capped: count the matching rows up to 10,000 and answer \`total\`; past that, 10,000 flagged \`totalCapped: true\`. exact (or true): count every matching row. estimated: exact up to 10,000 matches, beyond an estimate flagged \`totalEstimated: true\`. none (or false): no \`total\`, and no counting work. Absent: ${version === 'v1' ? 'capped' : 'none'} (the data API guide, section Counting).`,
  schema: { type: 'string', enum: COUNT_VALUES },
});

function listOperations(document: Node): Node[] {
  const found: Node[] = [];
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Node>>)) {
    for (const operation of Object.values(item)) {
      const ref = operation.responses?.[200]?.content?.['application/json']?.schema?.$ref;
      if (typeof ref === 'string' && LIST_REF.test(ref)) found.push(operation);
    }
  }
  return found;
}

/**
 * The document of one API version, from the one built for the mounted routes (which describes
 * v1): v2 moves the servers below /api/v2 and documents the list change (`count`, `total` only
 * when asked); v1 marks the operations that changed in v2 as deprecated.
 */
export function versionDocument(document: Schema, version: ApiVersion): Schema {
  const out = structuredClone(document) as Node;
  out.info = { ...out.info, 'x-api-version': version };
  const lists = listOperations(out);
  for (const operation of lists) operation.parameters = [...((operation.parameters as Node[] | undefined) ?? []).filter((p) => p.name !== 'count'), countParameter(version)];
  if (version === 'v1') {
    for (const operation of lists) operation.deprecated = true;
    return out;
  }
  out.servers = (out.servers as Node[]).map((server) => ({
    ...server,
    url: String(server.url).replace(/^\/api\/v1(?=\/|$)/, '/api/v2'),
  }));
  out.info.description = String(out.info.description).replaceAll('/api/v1', '/api/v2');
  for (const [name, schema] of Object.entries((out.components?.schemas ?? {}) as Record<string, Node>)) {
    if (!name.endsWith('.list') || !schema.properties?.total) continue;
    schema.properties.total = { ...schema.properties.total, description: 'Only with count=true.' };
  }
  return out;
}
