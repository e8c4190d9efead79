import { CLASS_WEIGHTS, rowsOf, type Candidate, type CandidateQuery, type IndexStore } from './indexStore.ts';
import type { SearchDocument } from './searchPlan.ts';
import type { QueryTerms } from './tokenize.ts';

const DOCS = 'osr_search_doc';
const FTS = 'osr_search_fts';

/**
 * SQLite: one FTS5 table per environment database, one column per weight class, ranked by bm25
 * with the class weights as column weights. FTS5 cannot index its unindexed columns, so the
 * (object, record id) -> rowid map lives in a plain table with a unique index.
 */
export const sqliteIndex: IndexStore = {
  async ensure(knex) {
    await knex.raw(`create table if not exists ${DOCS} (id integer primary key, object text not null, record_id text not null, unique (object, record_id))`);
    // Documents are folded by tokenize(); the tokenizer only splits them again.
    await knex.raw(`create virtual table if not exists ${FTS} using fts5(w1, w2, w3, w4, tokenize = 'unicode61 remove_diacritics 2')`);
  },

  async write(knex, object, id, document) {
    // A new record (the common case) takes two statements; a re-indexed one replaces its row.
    let [row] = rowsOf<{ id: number }>(await knex.raw(`insert into ${DOCS} (object, record_id) values (?, ?) on conflict (object, record_id) do nothing returning id`, [object, id]));
    if (!row) {
      [row] = rowsOf<{ id: number }>(await knex.raw(`select id from ${DOCS} where object = ? and record_id = ?`, [object, id]));
      await knex.raw(`delete from ${FTS} where rowid = ?`, [row!.id]);
    }
    await knex.raw(`insert into ${FTS} (rowid, w1, w2, w3, w4) values (?, ?, ?, ?, ?)`, [row!.id, ...columns(document)]);
  },

  async writeNew(knex, object, entries) {
    if (entries.length === 0) return;
    const rows = rowsOf<{ id: number; record_id: string }>(await knex.raw(
      `insert into ${DOCS} (object, record_id) values ${entries.map(() => '(?, ?)').join(', ')} returning id, record_id`,
      entries.flatMap((e) => [object, e.id]),
    ));
    const rowids = new Map(rows.map((r) => [r.record_id, r.id]));
    await knex.raw(
      `insert into ${FTS} (rowid, w1, w2, w3, w4) values ${entries.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      entries.flatMap((e) => [rowids.get(e.id)!, ...columns(e.document)]),
    );
  },

  async remove(knex, object, id) {
    const [row] = rowsOf<{ id: number }>(await knex.raw(`select id from ${DOCS} where object = ? and record_id = ?`, [object, id]));
    if (!row) return;
    await knex.raw(`delete from ${FTS} where rowid = ?`, [row.id]);
    await knex.raw(`delete from ${DOCS} where id = ?`, [row.id]);
  },

  async clear(knex, object) {
    await knex.raw(`delete from ${FTS} where rowid in (select id from ${DOCS} where object = ?)`, [object]);
    await knex.raw(`delete from ${DOCS} where object = ?`, [object]);
  },

  async count(knex, object) {
    const [row] = rowsOf<{ n: number }>(await knex.raw(`select count(*) as n from ${DOCS} where object = ?`, [object]));
    return Number(row?.n ?? 0);
  },

  async candidates(knex, query: CandidateQuery): Promise<Candidate[]> {
    if (query.objects.length === 0) return [];
    const objects = query.objects.map(() => '?').join(', ');
    // bm25() is lower-is-better; its negation makes every score "higher is better" on both drivers.
    const rows = rowsOf<Candidate>(await knex.raw(
      `select d.object as object, d.record_id as id, -bm25(${FTS}, ${CLASS_WEIGHTS.join(', ')}) as score
       from ${FTS} join ${DOCS} d on d.id = ${FTS}.rowid
       where ${FTS} match ? and d.object in (${objects})
       order by score desc, d.record_id, d.object
       limit ? offset ?`,
      [matchExpression(query.terms), ...query.objects, query.limit, query.offset],
    ));
    return rows.map((r) => ({ object: r.object, id: r.id, score: Number(r.score) }));
  },
};

function columns(document: SearchDocument): string[] {
  return document.map((words) => words.join(' '));
}

/**
 * An FTS5 query in which every term is a quoted string: `"acme" "corp"*`. Quoting makes AND, OR,
 * NOT, NEAR, `:`, `^`, `*` and parentheses plain text; terms hold letters and digits only, and a
 * double quote would be doubled all the same.
 */
export function matchExpression({ terms, prefix }: QueryTerms): string {
  return terms.map((term, i) => `"${term.replace(/"/g, '""')}"${prefix && i === terms.length - 1 ? '*' : ''}`).join(' ');
}
