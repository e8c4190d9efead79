import { codedError } from '../../kernel/errors.ts';

/** The sources a timeline merges, in the order that breaks ties between items of the same instant. */
export const SOURCES = ['approval', 'email', 'file', 'comment', 'history'] as const;
/** The sources of version 1 cursors, made before emails joined the timeline (their email offset is 0). */
const SOURCES_V1 = ['approval', 'file', 'comment', 'history'] as const;
export type Source = (typeof SOURCES)[number];

/** How many items of each source the pages before have shown. */
export type Offsets = Record<Source, number>;

/** The deepest a cursor may reach into one source (a record's timeline is read page by page up to it). */
export const MAX_OFFSET = 1_000_000;

export const startOffsets = (): Offsets => ({ approval: 0, email: 0, file: 0, comment: 0, history: 0 });

/** The opaque cursor of the page after: the record it is about and the offsets reached. */
export function encodeCursor(object: string, id: string, offsets: Offsets): string {
  return Buffer.from(JSON.stringify({ v: 2, o: object, r: id, n: SOURCES.map((s) => offsets[s]) })).toString('base64url');
}

/**
 * The offsets a cursor carries, checked: it must be one this route made for this very record, with
 * whole offsets in range; anything else is 400 BAD_CURSOR (never a read at an arbitrary place).
 */
export function decodeCursor(cursor: string, object: string, id: string): Offsets {
  const bad = (reason: string) => codedError('BAD_CURSOR', { reason });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad('it is not a cursor this route made');
  }
  if (typeof parsed !== 'object' || parsed === null) throw bad('it is not a cursor this route made');
  const { v, o, r, n } = parsed as { v?: unknown; o?: unknown; r?: unknown; n?: unknown };
  const sources: readonly Source[] | undefined = v === 2 ? SOURCES : v === 1 ? SOURCES_V1 : undefined;
  if (!sources || !Array.isArray(n) || n.length !== sources.length) throw bad('it is not a cursor this route made');
  if (o !== object || r !== id) throw bad('it was made for another record');
  if (!n.every((x) => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= MAX_OFFSET)) throw bad(`its offsets must be whole numbers from 0 to ${MAX_OFFSET}`);
  return { ...startOffsets(), ...Object.fromEntries(sources.map((s, i) => [s, n[i] as number])) };
}
