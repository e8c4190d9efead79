import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { codedError } from '../../../kernel/errors.ts';
import type { Condition, FieldRef, Operand, QueryAst, Target } from './types.ts';

/** Where the previous page ended: its last row's sort values and id. */
export interface CursorPosition {
  values: unknown[];
  id: string;
  /** The total counted for the walk, with the hash of the count it came from (see executeQuery.ts). */
  total?: { n: number; count: string };
}

interface Payload {
  v: 1;
  /** Hash of the query shape the cursor belongs to. */
  s: string;
  k: unknown[];
  id: string;
  /** Carried total and the hash of its count statement, when the walk carries one. */
  t?: number;
  c?: string;
}

/** `base64url(payload).base64url(hmac-sha256(payload))`. */
export function encodeCursor(position: CursorPosition, shape: string, key: string | Buffer): string {
  const payload: Payload = { v: 1, s: shape, k: position.values, id: position.id, ...(position.total ? { t: position.total.n, c: position.total.count } : {}) };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, key)}`;
}

/** Verifies the signature and the query shape; anything else is BAD_CURSOR. */
export function decodeCursor(token: string, shape: string, keyCount: number, key: string | Buffer): CursorPosition {
  const bad = (reason: string) => codedError('BAD_CURSOR', { reason });
  const parts = token.split('.');
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!)) throw bad('it is malformed');
  const [body, signature] = parts as [string, string];
  const expected = Buffer.from(sign(body, key), 'base64url');
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('its signature does not match');
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw bad('it is malformed');
  }
  if (payload.v !== 1 || typeof payload.id !== 'string' || !Array.isArray(payload.k)) throw bad('it is malformed');
  if (payload.s !== shape) throw bad('it was issued for a different query (object, where, orderBy or joins changed)');
  if (payload.k.length !== keyCount) throw bad('it does not match the sort order');
  const carried = Number.isSafeInteger(payload.t) && (payload.t as number) >= 0 && typeof payload.c === 'string';
  return { values: payload.k, id: payload.id, ...(carried ? { total: { n: payload.t!, count: payload.c! } } : {}) };
}

/** A short hash of a count statement and its bindings: which rows, under which scope, a total counts. */
export function countIdentity(statement: { sql: string; bindings: readonly unknown[] }): string {
  return createHash('sha256').update(`${statement.sql}\u0000${JSON.stringify(statement.bindings)}`).digest('base64url').slice(0, 22);
}

function sign(body: string, key: string | Buffer): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}

/** A stable hash of what decides the row order and set: object, where, orderBy and joins. */
export function queryShape(ast: QueryAst): string {
  const shape = {
    object: ast.object.name,
    where: ast.where ? conditionShape(ast.where) : null,
    orderBy: ast.orderBy.map((s) => [s.target.kind === 'field' ? refName(s.target.ref) : s.target.key, s.direction]),
    joins: ast.joins.map((j) => [j.type, j.object.name, j.alias, refName(j.local), refName(j.foreign)]),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 22);
}

/**
 * What decides a read's cost, without its values: object, the fields and operators of its filter,
 * its sort, joins, groups and page size. Reads that differ only in the values they compare cost
 * about the same (the read pool judges them together, readPool.ts); not hashed.
 */
export function costShape(ast: QueryAst): string {
  return JSON.stringify([
    ast.object.name,
    ast.where ? conditionShape(ast.where, placeholder) : null,
    ast.orderBy.map((s) => [s.target.kind === 'field' ? refName(s.target.ref) : s.target.key, s.direction]),
    ast.joins.map((j) => [j.type, j.object.name, refName(j.local), refName(j.foreign)]),
    ast.aggregate ? ast.groupBy.length : -1,
    ast.distinct,
    ast.limit,
  ]);
}

function refName(ref: FieldRef): string {
  return ref.alias ? `${ref.alias}.${ref.name}` : ref.name;
}

function targetName(target: Target): string {
  return target.kind === 'field' ? refName(target.ref) : `agg:${target.alias}`;
}

/** A value as a shape names it: itself (a cursor's identity), or only that there is one (costShape). */
type ValueShape = (value: unknown) => unknown;
const itself: ValueShape = (value) => value;
const placeholder: ValueShape = () => '?';

function operandShape(operand: Operand, value: ValueShape): unknown {
  if (operand.kind === 'field') return { $field: refName(operand.ref) };
  // A now-relative operand keeps its source, so the next page is the same query even as time moves.
  if (operand.kind === 'cel') return { $cel: operand.source };
  return value(operand.value);
}

function conditionShape(node: Condition, value: ValueShape = itself): unknown {
  switch (node.kind) {
    case 'and':
    case 'or':
      return [node.kind, node.items.map((item) => conditionShape(item, value))];
    case 'not':
      return ['not', conditionShape(node.item, value)];
    case 'compare':
      return [node.op, targetName(node.target), operandShape(node.operand, value)];
    case 'between':
      return ['between', targetName(node.target), operandShape(node.low, value), operandShape(node.high, value)];
    case 'in':
      return [node.negate ? 'nin' : 'in', targetName(node.target), value(node.values)];
    case 'text':
      return [node.op, node.negate, targetName(node.target), value(node.value)];
    case 'has':
      return ['has', node.negate, targetName(node.target), value(node.value)];
    case 'null':
      return ['null', targetName(node.target), node.isNull];
  }
}
