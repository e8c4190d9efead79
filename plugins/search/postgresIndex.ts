import { CLASS_WEIGHTS, rowsOf, type Candidate, type CandidateQuery, type IndexStore } from './indexStore.ts';
import type { SearchDocument } from './searchPlan.ts';
import type { QueryTerms } from './tokenize.ts';

const TABLE = 'osr_search';
/** tsvector limits: positions above 16383 are clamped, at most 256 are kept per word. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_WORD = 256;
/** Weight letters of classes 1 to 4. */
const LETTERS = ['D', 'C', 'B', 'A'] as const;

/**
 * PostgreSQL: one table per environment schema, a tsvector per record whose positions carry the
 * weight letter of their field, behind a GIN index; ranked by ts_rank with the class weights.
 * Vectors and queries are written as literals of words tokenize() made, so no text search
 * configuration or parser is involved and both drivers match the same words.
 */
export const postgresIndex: IndexStore = {
  async ensure(knex) {
    await knex.raw(`create table if not exists ${TABLE} (object text not null, record_id text not null, document tsvector not null, primary key (object, record_id))`);
    await knex.raw(`create index if not exists ${TABLE}_document on ${TABLE} using gin (document)`);
  },

  async write(knex, object, id, document) {
    await knex.raw(
      `insert into ${TABLE} (object, record_id, document) values (?, ?, ?::tsvector)
       on conflict (object, record_id) do update set document = excluded.document`,
      [object, id, tsvectorLiteral(document)],
    );
  },

  async writeNew(knex, object, entries) {
    if (entries.length === 0) return;
    await knex.raw(
      `insert into ${TABLE} (object, record_id, document) values ${entries.map(() => '(?, ?, ?::tsvector)').join(', ')}
       on conflict (object, record_id) do update set document = excluded.document`,
      entries.flatMap((e) => [object, e.id, tsvectorLiteral(e.document)]),
    );
  },

  async remove(knex, object, id) {
    await knex.raw(`delete from ${TABLE} where object = ? and record_id = ?`, [object, id]);
  },

  async clear(knex, object) {
    await knex.raw(`delete from ${TABLE} where object = ?`, [object]);
  },

  async count(knex, object) {
    const [row] = rowsOf<{ n: number | string }>(await knex.raw(`select count(*) as n from ${TABLE} where object = ?`, [object]));
    return Number(row?.n ?? 0);
  },

  async candidates(knex, query: CandidateQuery): Promise<Candidate[]> {
    if (query.objects.length === 0) return [];
    const tsquery = tsqueryLiteral(query.terms);
    const rows = rowsOf<Candidate>(await knex.raw(
      `select object, record_id as id, ts_rank('{${CLASS_WEIGHTS.join(',')}}'::float4[], document, ?::tsquery) as score
       from ${TABLE}
       where document @@ ?::tsquery and object = any(?)
       order by score desc, record_id collate "C", object collate "C"
       limit ? offset ?`,
      [tsquery, tsquery, [...query.objects], query.limit, query.offset],
    ));
    return rows.map((r) => ({ object: r.object, id: r.id, score: Number(r.score) }));
  },
};

/** `'word'`, escaped as tsvector and tsquery input wants (words hold letters and digits only, but still). */
function lexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** `'acme':1A,4B 'corp':2A`: each word with its positions, each position with its weight letter. */
export function tsvectorLiteral(document: SearchDocument): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  for (let weight = 3; weight >= 0; weight--) {
    for (const word of document[weight]!) {
      position = Math.min(position + 1, MAX_POSITION);
      let list = positions.get(word);
      if (!list) positions.set(word, (list = []));
      if (list.length < MAX_POSITIONS_PER_WORD) list.push(`${position}${LETTERS[weight]}`);
    }
  }
  return [...positions].map(([word, list]) => `${lexeme(word)}:${list.join(',')}`).join(' ');
}

/** `'acme' & 'corp':*`: every term must match; the last one as a prefix when asked. */
export function tsqueryLiteral({ terms, prefix }: QueryTerms): string {
  return terms.map((term, i) => `${lexeme(term)}${prefix && i === terms.length - 1 ? ':*' : ''}`).join(' & ');
}
