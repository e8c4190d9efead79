import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import type { ApiMethod } from '../../metadata/types.ts';

/** Operations in one `POST /batch`. */
export const MAX_BATCH_OPERATIONS = 100;
/** Operations in one `POST /data/:object/bulk`. */
export const MAX_BULK_OPERATIONS = 200;
/** How deep a body is searched for `{ "$ref": ... }`. */
const MAX_REF_DEPTH = 32;

const METHODS = { POST: 'create', PATCH: 'update', DELETE: 'delete' } as const;
type Method = keyof typeof METHODS;
const OP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const OBJECT = /^[a-z][a-z0-9_]{0,62}$/;

/** One operation, checked for shape: what the matching `/data` request would be. */
export interface BatchOperation {
  id: string;
  /** Its position in the request (0-based). */
  index: number;
  method: Method;
  object: string;
  recordId?: unknown;
  body?: Record<string, unknown>;
  expectedVersion?: unknown;
  /** apiMethods the object must allow besides the operation's own (`bulk` for the bulk route). */
  also?: ApiMethod;
  /** Values taken as sent, without `$ref` resolution (the bulk route). */
  literal?: boolean;
  /** How the request named the method, when not as POST, PATCH or DELETE (bulk: create, update, delete). */
  verb?: string;
}

export interface BatchResult {
  id: string;
  status: number;
  body: DataRecord | null;
}

function invalid(path: string, message: string, extra: Record<string, unknown> = {}) {
  return codedError('VALIDATION_ERROR', { summary: `${path} ${message}`, errors: [{ path, message }], ...extra });
}

/** The `operations` array of a request body, bounded. */
export function operationsOf(body: unknown, max: number): unknown[] {
  const ops = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { operations?: unknown }).operations : undefined;
  if (!Array.isArray(ops)) throw invalid('operations', 'must be an array of operations');
  if (ops.length === 0) throw invalid('operations', 'must hold at least one operation');
  if (ops.length > max) throw invalid('operations', `holds ${ops.length} operations; at most ${max} are accepted per request: split it`, { limit: max });
  return ops;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** `{ "$ref": "op1.id" }`: the operation and field it names, or undefined for any other value. */
function refOf(value: unknown): { op: string; path: string[]; text: string } | undefined {
  const record = asRecord(value);
  if (!record || Object.keys(record).length !== 1 || !Object.hasOwn(record, '$ref')) return undefined;
  const text = record.$ref;
  const parts = typeof text === 'string' ? text.split('.') : [];
  if (parts.length < 2 || parts.some((p) => p === '')) throw invalid('$ref', `must be "<operation id>.<field>", e.g. "op1.id" (got ${JSON.stringify(text).slice(0, 80)})`);
  return { op: parts[0]!, path: parts.slice(1), text: text as string };
}

/** Every `$ref` in a value, depth-first, bounded. */
function refsIn(value: unknown, depth = 0): { op: string; path: string[]; text: string }[] {
  if (depth > MAX_REF_DEPTH) throw invalid('body', `nests deeper than ${MAX_REF_DEPTH} levels`);
  const ref = refOf(value);
  if (ref) return [ref];
  if (Array.isArray(value)) return value.flatMap((v) => refsIn(v, depth + 1));
  const record = asRecord(value);
  return record ? Object.values(record).flatMap((v) => refsIn(v, depth + 1)) : [];
}

/**
 * Checks the shape of the batch operations before anything runs: ids unique, methods known,
 * record ids where needed, and every `$ref` naming an earlier operation.
 */
export function checkBatch(ops: unknown[]): BatchOperation[] {
  const seen = new Set<string>();
  return ops.map((raw, index) => {
    const op = asRecord(raw);
    const at = `operations[${index}]`;
    if (!op) throw invalid(at, 'must be an object { id, method, object, recordId?, body? }', { index });
    const id = op.id;
    if (typeof id !== 'string' || !OP_ID.test(id)) throw invalid(`${at}.id`, 'must be 1 to 64 letters, digits, _ or -', { index });
    if (seen.has(id)) throw invalid(`${at}.id`, `'${id}' is used by an earlier operation; ids must be unique`, { operation: id, index });
    const method = op.method;
    if (typeof method !== 'string' || !Object.hasOwn(METHODS, method)) throw invalid(`${at}.method`, 'must be POST, PATCH or DELETE', { operation: id, index });
    if (typeof op.object !== 'string' || !OBJECT.test(op.object)) throw invalid(`${at}.object`, 'must be an object name', { operation: id, index });
    if (method !== 'POST' && op.recordId === undefined) throw invalid(`${at}.recordId`, `is required for ${method}`, { operation: id, index });
    if (method === 'POST' && op.recordId !== undefined) throw invalid(`${at}.recordId`, 'is not accepted for POST: the server makes the id', { operation: id, index });
    if (op.body !== undefined && !asRecord(op.body)) throw invalid(`${at}.body`, 'must be a JSON object', { operation: id, index });
    if (method === 'POST' && op.body === undefined) throw invalid(`${at}.body`, 'is required for POST', { operation: id, index });
    for (const ref of [...refsIn(op.recordId), ...refsIn(op.body)]) {
      if (!seen.has(ref.op)) {
        throw invalid(`${at}`, `refers to '${ref.op}' (${ref.text}), which is not an earlier operation of the batch; an operation refers to earlier ones only`, { operation: id, index, ref: ref.text });
      }
    }
    seen.add(id);
    return {
      id, index, method: method as Method, object: op.object,
      ...(op.recordId !== undefined ? { recordId: op.recordId } : {}),
      ...(op.body !== undefined ? { body: op.body as Record<string, unknown> } : {}),
      ...(op.expectedVersion !== undefined ? { expectedVersion: op.expectedVersion } : {}),
    };
  });
}

/** A `$ref` replaced by the value it names in the results so far. */
function resolve(value: unknown, results: Map<string, BatchResult>, op: BatchOperation, depth = 0): unknown {
  const ref = refOf(value);
  if (ref) {
    let found: unknown = results.get(ref.op)?.body;
    for (const key of ref.path) found = asRecord(found) && Object.hasOwn(found as object, key) ? (found as Record<string, unknown>)[key] : undefined;
    if (found === undefined) {
      throw invalid(`operations[${op.index}]`, `refers to ${ref.text}, which the result of '${ref.op}' does not hold`, { operation: op.id, index: op.index, ref: ref.text });
    }
    return found;
  }
  if (depth > MAX_REF_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => resolve(v, results, op, depth + 1));
  const record = asRecord(value);
  if (!record) return value;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, resolve(v, results, op, depth + 1)]));
}

/** The version a write expects, as the `/data` routes read it (a positive integer). */
function versionOf(op: BatchOperation, fromBody: unknown): number | undefined {
  const given = [op.expectedVersion, fromBody].filter((v) => v !== undefined);
  for (const v of given) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw invalid(`operations[${op.index}].expectedVersion`, 'must be a positive integer', { operation: op.id, index: op.index });
  }
  if (given.length === 2 && given[0] !== given[1]) throw invalid(`operations[${op.index}].expectedVersion`, 'disagrees with the expectedVersion of its body', { operation: op.id, index: op.index });
  return given[0] as number | undefined;
}

/** One operation through a transaction's engine, checked as its `/data` request would be. */
async function runOne(tx: DataEngine, metadata: MetadataRegistry, ctx: DataContext, op: BatchOperation, results: Map<string, BatchResult>): Promise<BatchResult> {
  if (op.also) apiObject(metadata, op.object, op.also);
  apiObject(metadata, op.object, METHODS[op.method]);
  const body = (op.literal ? op.body ?? {} : resolve(op.body ?? {}, results, op)) as Record<string, unknown>;
  if (op.method === 'POST') return { id: op.id, status: 201, body: await tx.create(op.object, body, ctx) };
  const recordId = op.literal ? op.recordId : resolve(op.recordId, results, op);
  if (typeof recordId !== 'string' || recordId.length < 1 || recordId.length > 64) {
    throw invalid(`operations[${op.index}].recordId`, 'must be a record id (a string of 1 to 64 characters)', { operation: op.id, index: op.index });
  }
  if (op.method === 'PATCH') {
    const { expectedVersion, ...patch } = body;
    const version = versionOf(op, expectedVersion);
    return { id: op.id, status: 200, body: await tx.update(op.object, recordId, patch, version === undefined ? {} : { expectedVersion: version }, ctx) };
  }
  const version = versionOf(op, body.expectedVersion);
  await tx.delete(op.object, recordId, version === undefined ? {} : { expectedVersion: version }, ctx);
  return { id: op.id, status: 204, body: null };
}

/** The failure of one operation, as the whole answer: its own status and code, naming it; nothing was written. */
function failed(op: BatchOperation, error: unknown): unknown {
  if (!isCodedError(error)) return error;
  const details = { ...error.details, operation: op.id, index: op.index, status: error.status };
  const message = `Operation '${op.id}' (index ${op.index}, ${op.verb ?? op.method} ${op.object}) failed with ${error.status} ${error.code}: ${error.message} Nothing was written.`;
  return codedError(error.code, details, message);
}

/**
 * Runs the operations in order in one transaction: all of them are written or none. The first
 * failure rolls everything back and is the answer, naming the operation.
 */
export function runBatch(engine: DataEngine, metadata: MetadataRegistry, ctx: DataContext, ops: BatchOperation[]): Promise<BatchResult[]> {
  return engine.transaction(ctx, async (tx) => {
    const results = new Map<string, BatchResult>();
    const out: BatchResult[] = [];
    for (const op of ops) {
      let result: BatchResult;
      try {
        result = await runOne(tx, metadata, ctx, op, results);
      } catch (error) {
        throw failed(op, error);
      }
      results.set(op.id, result);
      out.push(result);
    }
    return out;
  });
}

const BULK_METHODS = { create: 'POST', update: 'PATCH', delete: 'DELETE' } as const;

/**
 * The operations of `POST /data/:object/bulk` (`{ method: 'create' | 'update' | 'delete', id?,
 * values?, expectedVersion? }`) as batch operations on `object`, named by their index.
 */
export function checkBulk(object: string, ops: unknown[]): BatchOperation[] {
  return ops.map((raw, index) => {
    const op = asRecord(raw);
    const at = `operations[${index}]`;
    if (!op) throw invalid(at, "must be an object { method: 'create' | 'update' | 'delete', id?, values?, expectedVersion? }", { index });
    const unknown = Object.keys(op).find((k) => !['method', 'id', 'values', 'expectedVersion'].includes(k));
    if (unknown !== undefined) throw invalid(`${at}.${unknown.slice(0, 64)}`, 'is not a known key (method, id, values, expectedVersion)', { index });
    const method = op.method;
    if (typeof method !== 'string' || !Object.hasOwn(BULK_METHODS, method)) throw invalid(`${at}.method`, 'must be create, update or delete', { index });
    if (method === 'create' && op.id !== undefined) throw invalid(`${at}.id`, 'is not accepted for create: the server makes the id', { index });
    if (method !== 'create' && op.id === undefined) throw invalid(`${at}.id`, `is required for ${method}`, { index });
    if (op.values !== undefined && !asRecord(op.values)) throw invalid(`${at}.values`, 'must be a JSON object', { index });
    if (method === 'create' && op.values === undefined) throw invalid(`${at}.values`, 'is required for create', { index });
    if (method === 'delete' && op.values !== undefined) throw invalid(`${at}.values`, 'is not accepted for delete', { index });
    return {
      id: String(index), index, method: BULK_METHODS[method as keyof typeof BULK_METHODS], object, also: 'bulk' as const, literal: true, verb: method,
      ...(op.id !== undefined ? { recordId: op.id } : {}),
      ...(op.values !== undefined ? { body: op.values as Record<string, unknown> } : {}),
      ...(op.expectedVersion !== undefined ? { expectedVersion: op.expectedVersion } : {}),
    };
  });
}
