import { CLASS_WEIGHTS, readablePairs, rowsOf, type Candidate, type CandidateQuery, type EntryDigest, type IndexStore } from './indexStore.ts';
import type { FieldWords } from './searchPlan.ts';
import type { QueryTerms } from './tokenize.ts';

const TABLE = 'osr_search_field';
/** The table of the one-document-per-record format, dropped at start. */
const FORMER = 'osr_search';
/** tsvector limits: positions above 16383 are not kept, nor more than 256 per word. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_WORD = 256;
/** Weight letters of classes 1 to 4 (D, the default, is not written: that is how PostgreSQL prints it). */
const LETTERS = ['', 'C', 'B', 'A'] as const;
/** Entries per insert statement (4 bindings each). */
const ENTRY_BATCH = 1000;

/**
 * PostgreSQL: one row per searchable field of a record, `(object, record_id, field, document
 * tsvector)`, behind a GIN index; every position carries the weight letter of its field. A search
 * reads only the rows of the fields the caller may read, requires every term in one of them, and
 * sums their ts_rank (which reads nothing but the row itself). Vectors and queries are written
 * as literals of words tokenize() made, so no text search configuration or parser is involved.
 */
export const postgresIndex: IndexStore = {
  async ensure(knex) {
    await knex.raw(`drop table if exists ${FORMER}`);
    await knex.raw(`create table if not exists ${TABLE} (object text not null, record_id text not null, field text not null, document tsvector not null, primary key (object, record_id, field))`);
    await knex.raw(`create index if not exists ${TABLE}_document on ${TABLE} using gin (document)`);
  },

  async write(knex, object, id, document) {
    await postgresIndex.remove(knex, object, [id]);
    await postgresIndex.writeNew(knex, object, [{ id, document }]);
  },

  async writeNew(knex, object, records) {
    const entries = records.flatMap((r) => r.document.map((e) => [object, r.id, e.field, tsvectorLiteral(e)]));
    for (let i = 0; i < entries.length; i += ENTRY_BATCH) {
      const chunk = entries.slice(i, i + ENTRY_BATCH);
      await knex.raw(
        `insert into ${TABLE} (object, record_id, field, document) values ${chunk.map(() => '(?, ?, ?, ?::tsvector)').join(', ')}
         on conflict (object, record_id, field) do update set document = excluded.document`,
        chunk.flat(),
      );
    }
  },

  async remove(knex, object, ids, fields) {
    if (ids.length === 0 || fields?.length === 0) return;
    await knex.raw(
      `delete from ${TABLE} where object = ? and record_id = any(?)${fields ? ' and field = any(?)' : ''}`,
      [object, [...ids], ...(fields ? [[...fields]] : [])],
    );
  },

  async clear(knex, object) {
    await knex.raw(`delete from ${TABLE} where object = ?`, [object]);
  },

  async count(knex, object) {
    const [row] = rowsOf<{ n: number | string }>(await knex.raw(`select count(distinct record_id) as n from ${TABLE} where object = ?`, [object]));
    return Number(row?.n ?? 0);
  },

  async digests(knex, object, ids) {
    const found = new Map<string, EntryDigest[]>();
    if (ids.length === 0) return found;
    const rows = rowsOf<{ record_id: string; field: string; digest: string }>(await knex.raw(
      `select record_id, field, md5(document::text) as digest from ${TABLE} where object = ? and record_id = any(?)`,
      [object, [...ids]],
    ));
    for (const row of rows) {
      const list = found.get(row.record_id);
      if (list) list.push({ field: row.field, digest: row.digest });
      else found.set(row.record_id, [{ field: row.field, digest: row.digest }]);
    }
    return found;
  },

  storedText: (entry) => tsvectorLiteral(entry),

  async recordIds(knex, object, after, limit) {
    const rows = rowsOf<{ record_id: string }>(await knex.raw(
      `select distinct record_id collate "C" as record_id from ${TABLE} where object = ?${after === null ? '' : ' and record_id collate "C" > ?'} order by 1 limit ?`,
      [object, ...(after === null ? [] : [after]), limit],
    ));
    return rows.map((r) => r.record_id);
  },

  // The GIN index is PostgreSQL's, derived from `document`: what the digests compare is the source.
  async verify() {
    return null;
  },

  async lock(knex, object, ids) {
    if (ids.length > 0) await knex.raw(`select 1 from ${TABLE} where object = ? and record_id = any(?) for update`, [object, [...ids]]);
  },

  async candidates(knex, query: CandidateQuery): Promise<Candidate[]> {
    const pairs = readablePairs(query.fields);
    if (pairs.length === 0) return [];
    const any = tsqueryLiteral(query.terms, ' | ');
    const each = query.terms.terms.length > 1 ? termQueries(query.terms) : [];
    // Rows of readable fields only: a word of any other field neither matches nor scores.
    const rows = rowsOf<Candidate>(await knex.raw(
      `select object, record_id as id, sum(ts_rank('{${CLASS_WEIGHTS.join(',')}}'::float4[], document, ?::tsquery)) as score
       from ${TABLE}
       where document @@ ?::tsquery and (object, field) in (${pairs.map(() => '(?, ?)').join(', ')})
       group by object, record_id
       ${each.length > 0 ? `having ${each.map(() => 'bool_or(document @@ ?::tsquery)').join(' and ')}` : ''}
       order by score desc, record_id collate "C", object collate "C"
       limit ? offset ?`,
      [any, any, ...pairs.flatMap((p) => [p.object, p.field.name]), ...each, query.limit, query.offset],
    ));
    return rows.map((r) => ({ object: r.object, id: r.id, score: Number(r.score) }));
  },
};

/** `'word'`, escaped as tsvector and tsquery input and output have it (words hold letters and digits only, but still). */
function lexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * `'acme':1A,4A 'corp':2A`: the words of one field with their positions, each carrying the field's
 * weight letter, in the form PostgreSQL prints a tsvector (words in byte order, positions ascending,
 * no letter for D), so that `document::text` of a row equals the literal it was written from.
 */
export function tsvectorLiteral(entry: FieldWords): string {
  const letter = LETTERS[entry.weight - 1];
  const positions = new Map<string, number[]>();
  entry.words.forEach((word, i) => {
    let list = positions.get(word);
    if (!list) positions.set(word, (list = []));
    if (i < MAX_POSITION && list.length < MAX_POSITIONS_PER_WORD) list.push(i + 1);
  });
  return byteOrder([...positions.keys()]).map((word) => {
    const list = positions.get(word)!;
    return list.length === 0 ? lexeme(word) : `${lexeme(word)}:${list.map((p) => `${p}${letter}`).join(',')}`;
  }).join(' ');
}

/** Above U+D7FF, UTF-16 code unit order (JavaScript's) and UTF-8 byte order (PostgreSQL's) part ways. */
const HIGH = /[\uD800-\uFFFF]/;

/** Words in UTF-8 byte order; JavaScript's own order when it is the same (no character above U+D7FF). */
function byteOrder(words: string[]): string[] {
  if (!words.some((word) => HIGH.test(word))) return words.sort();
  return words.map((word) => ({ word, bytes: Buffer.from(word) })).sort((a, b) => Buffer.compare(a.bytes, b.bytes)).map((w) => w.word);
}

/** `'acme' & 'corp':*`: the terms joined by `&` (every one must match) or `|`; the last one as a prefix when asked. */
export function tsqueryLiteral({ terms, prefix }: QueryTerms, join = ' & '): string {
  return terms.map((term, i) => `${lexeme(term)}${prefix && i === terms.length - 1 ? ':*' : ''}`).join(join);
}

/** One tsquery per term: each must match in some readable field of the record. */
function termQueries(query: QueryTerms): string[] {
  return query.terms.map((term, i) => tsqueryLiteral({ terms: [term], prefix: query.prefix && i === query.terms.length - 1 }));
}
