import { createHash } from 'node:crypto';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import type { ResolvedObject, SearchWeight } from '../../metadata/types.ts';
import { tokenize } from './tokenize.ts';

/** Bumped when the way documents are built changes, so every index is rebuilt once. */
const DOCUMENT_FORMAT = 2;

/** Searchable text indexed per record (sum of its words' lengths); the rest is left out. */
export const MAX_DOCUMENT_CHARS = 100_000;

const REBUILD_PAGE = 500;

export interface IndexedField {
  name: string;
  weight: SearchWeight;
}

export interface IndexedObject {
  name: string;
  /** Searchable fields, in declaration order. */
  fields: IndexedField[];
  /** Records read per page when the index is rebuilt (within the object's maxPageSize). */
  pageSize: number;
  /** Changes when the fields or their weights change: a stored index with another one is rebuilt. */
  fingerprint: string;
}

/** The words of one searchable field of a record, with the field's weight. */
export interface FieldWords {
  field: string;
  weight: SearchWeight;
  words: string[];
}

/**
 * A record as the index holds it: one entry per searchable field that has words, in declaration
 * order. Entries are kept apart so that a search matches a caller only on the fields it may read.
 */
export type SearchDocument = FieldWords[];

/** The objects that have an index: those with searchable fields. */
export function searchPlan(objects: readonly ResolvedObject[]): Map<string, IndexedObject> {
  const plan = new Map<string, IndexedObject>();
  for (const object of objects) {
    const fields = Object.values(object.fields)
      .filter((field) => field.searchable)
      .map((field) => ({ name: field.name, weight: object.search?.weights[field.name] ?? 1 }));
    if (fields.length === 0) continue;
    const canonical = JSON.stringify([DOCUMENT_FORMAT, [...fields].sort((a, b) => (a.name < b.name ? -1 : 1)).map((f) => [f.name, f.weight])]);
    plan.set(object.name, { name: object.name, fields, pageSize: Math.min(REBUILD_PAGE, object.maxPageSize), fingerprint: createHash('sha256').update(canonical).digest('hex').slice(0, 32) });
  }
  return plan;
}

/**
 * The words of one field's value as the index may hold them: at most MAX_DOCUMENT_CHARS (each
 * word counted with a separator), and whether words were left out. Depends on the value alone,
 * so it can be made before a write's transaction opens (knownWords) and used inside it.
 */
export interface ValueWords {
  value: unknown;
  words: string[];
  cut: boolean;
}

/** Words made for field values before (knownWords), by field; a field is used only while its value is the very same. */
export type KnownWords = Map<string, ValueWords>;

function valueWords(value: unknown): ValueWords {
  const words: string[] = [];
  let budget = MAX_DOCUMENT_CHARS;
  for (const token of tokenize(typeof value === 'string' ? value : String(value))) {
    budget -= token.length + 1;
    if (budget < 0) return { value, words, cut: true };
    words.push(token);
  }
  return { value, words, cut: false };
}

/**
 * The words of the searchable fields among `values` (a write's values as sent), made before the
 * write's transaction opens: buildDocument uses them for a field whose stored value is the same.
 */
export function knownWords(indexed: IndexedObject, values: DataRecord): KnownWords {
  const known: KnownWords = new Map();
  for (const field of indexed.fields) {
    const value = values[field.name];
    if (value !== null && value !== undefined && typeof value !== 'object') known.set(field.name, valueWords(value));
  }
  return known;
}

/**
 * The words of a record's searchable fields, one entry per field with words, capped at
 * MAX_DOCUMENT_CHARS over the whole record. `record` must be the full record (a system read):
 * a writer's view lacks the fields it may not read, and their words would be lost. `known`:
 * words made before for some fields' values (knownWords), used where the record holds the very
 * same value; the words made here are added to it, so a second document of the same values
 * (an update's record before and after) makes each once.
 */
export function buildDocument(indexed: IndexedObject, record: DataRecord, known?: KnownWords): SearchDocument {
  const document: SearchDocument = [];
  let budget = MAX_DOCUMENT_CHARS;
  for (const field of indexed.fields) {
    const value = record[field.name];
    if (value === null || value === undefined) continue;
    let made = known?.get(field.name);
    if (made === undefined || made.value !== value) {
      made = valueWords(value);
      if (known && typeof value !== 'object') known.set(field.name, made);
    }
    const words: string[] = [];
    for (const word of made.words) {
      budget -= word.length + 1;
      if (budget < 0) break;
      words.push(word);
    }
    // Words left out of the value itself: the record's budget is spent (budget <= MAX_DOCUMENT_CHARS).
    if (budget >= 0 && made.cut) budget = -1;
    if (words.length > 0) document.push({ field: field.name, weight: field.weight, words });
    if (budget < 0) break;
  }
  return document;
}

/** Whether an update changed what the index holds for the record. */
export function documentChanged(indexed: IndexedObject, previous: DataRecord, record: DataRecord): boolean {
  return indexed.fields.some((field) => (previous[field.name] ?? null) !== (record[field.name] ?? null));
}

/**
 * What an update changes in a record's entries: the entries to write (new or with other words)
 * and the fields whose entries go (now without words, or written anew).
 */
export function entryChanges(before: SearchDocument, after: SearchDocument): { write: SearchDocument; drop: string[] } {
  const old = new Map(before.map((e) => [e.field, e.words.join(' ')]));
  const write = after.filter((e) => old.get(e.field) !== e.words.join(' '));
  const kept = new Set(after.map((e) => e.field));
  return { write, drop: [...before.filter((e) => !kept.has(e.field)).map((e) => e.field), ...write.filter((e) => old.has(e.field)).map((e) => e.field)] };
}
