import type { Knex } from 'knex';
import { CLASS_WEIGHTS, md5, readablePairs, rowsOf, type Candidate, type CandidateQuery, type EntryDigest, type IndexStore } from './indexStore.ts';

const ENTRIES = 'osr_search_entry';
const TEXT = 'osr_search_text';
const TERMS = 'osr_search_term';
/** Tables of the one-document-per-record format, dropped at start. */
const FORMER = ['osr_search_fts', 'osr_search_doc'];

/** Entries per insert statement (3 bindings each, far below SQLite's 32766). */
const ENTRY_BATCH = 1000;
/** Record ids per `in (...)` list. */
const ID_BATCH = 500;
/** Term-frequency saturation: a word's weight in a field is tf / (tf + K), so repeats add less and less. */
const SATURATION = 1.2;
/** Above every code point: `term < prefix || TOP` bounds the words a prefix begins. */
const TOP = '\u{10FFFF}';

/**
 * SQLite: an FTS5 table with one row per searchable field of a record (`osr_search_text`), the
 * (object, record id, field) of each row in a plain table (`osr_search_entry`), and the FTS5
 * vocabulary of instances (`osr_search_term`), from which matching and scoring read how often
 * each word occurs in each entry. Scores use nothing but the entries the caller may read:
 * no corpus statistic (bm25's document frequencies and lengths) that other fields or records feed.
 */
export const sqliteIndex: IndexStore = {
  async ensure(knex) {
    for (const table of FORMER) await knex.raw(`drop table if exists ${table}`);
    await knex.raw(`create table if not exists ${ENTRIES} (id integer primary key, object text not null, record_id text not null, field text not null, unique (object, record_id, field))`);
    // Documents are folded by tokenize(); the tokenizer only splits them again.
    await knex.raw(`create virtual table if not exists ${TEXT} using fts5(words, tokenize = 'unicode61 remove_diacritics 2')`);
    await knex.raw(`create virtual table if not exists ${TERMS} using fts5vocab(${TEXT}, 'instance')`);
  },

  async write(knex, object, id, document) {
    await sqliteIndex.remove(knex, object, [id]);
    await sqliteIndex.writeNew(knex, object, [{ id, document }]);
  },

  async writeNew(knex, object, records) {
    const entries = records.flatMap((r) => r.document.map((e) => ({ id: r.id, field: e.field, text: e.words.join(' ') })));
    for (let i = 0; i < entries.length; i += ENTRY_BATCH) {
      const chunk = entries.slice(i, i + ENTRY_BATCH);
      const rows = rowsOf<{ id: number; record_id: string; field: string }>(await knex.raw(
        `insert into ${ENTRIES} (object, record_id, field) values ${chunk.map(() => '(?, ?, ?)').join(', ')} returning id, record_id, field`,
        chunk.flatMap((e) => [object, e.id, e.field]),
      ));
      const rowids = new Map(rows.map((r) => [`${r.record_id}\u0000${r.field}`, r.id]));
      await knex.raw(
        `insert into ${TEXT} (rowid, words) values ${chunk.map(() => '(?, ?)').join(', ')}`,
        chunk.flatMap((e) => [rowids.get(`${e.id}\u0000${e.field}`)!, e.text]),
      );
    }
  },

  async remove(knex, object, ids, fields) {
    if (fields?.length === 0) return;
    const only = fields ? ` and field in (${fields.map(() => '?').join(', ')})` : '';
    for (let i = 0; i < ids.length; i += ID_BATCH) {
      const chunk = ids.slice(i, i + ID_BATCH);
      const where = `object = ? and record_id in (${chunk.map(() => '?').join(', ')})${only}`;
      const bindings = [object, ...chunk, ...(fields ?? [])];
      await knex.raw(`delete from ${TEXT} where rowid in (select id from ${ENTRIES} where ${where})`, bindings);
      await knex.raw(`delete from ${ENTRIES} where ${where}`, bindings);
    }
  },

  async clear(knex, object) {
    await knex.raw(`delete from ${TEXT} where rowid in (select id from ${ENTRIES} where object = ?)`, [object]);
    await knex.raw(`delete from ${ENTRIES} where object = ?`, [object]);
  },

  async count(knex, object) {
    const [row] = rowsOf<{ n: number }>(await knex.raw(`select count(distinct record_id) as n from ${ENTRIES} where object = ?`, [object]));
    return Number(row?.n ?? 0);
  },

  async digests(knex, object, ids) {
    const found = new Map<string, EntryDigest[]>();
    for (let i = 0; i < ids.length; i += ID_BATCH) {
      const chunk = ids.slice(i, i + ID_BATCH);
      const rows = rowsOf<{ record_id: string; field: string; words: string | null }>(await knex.raw(
        `select e.record_id as record_id, e.field as field, t.words as words from ${ENTRIES} e left join ${TEXT} t on t.rowid = e.id
         where e.object = ? and e.record_id in (${chunk.map(() => '?').join(', ')})`,
        [object, ...chunk],
      ));
      for (const row of rows) {
        // An entry whose text is gone can never equal a record's words.
        const digest = row.words === null ? '(no text)' : md5(row.words);
        const list = found.get(row.record_id);
        if (list) list.push({ field: row.field, digest });
        else found.set(row.record_id, [{ field: row.field, digest }]);
      }
    }
    return found;
  },

  storedText: (entry) => entry.words.join(' '),

  async recordIds(knex, object, after, limit) {
    const rows = rowsOf<{ record_id: string }>(await knex.raw(
      `select distinct record_id from ${ENTRIES} where object = ?${after === null ? '' : ' and record_id > ?'} order by record_id limit ?`,
      [object, ...(after === null ? [] : [after]), limit],
    ));
    return rows.map((r) => r.record_id);
  },

  // FTS5 keeps the text and the inverted index apart: an index entry deleted or added through the
  // FTS5 commands leaves the text as it was, so the digests agree while the words no longer match.
  async verify(knex) {
    try {
      await knex.raw(`insert into ${TEXT} (${TEXT}, rank) values ('integrity-check', 0)`);
      return null;
    } catch (error) {
      await knex.raw(`insert into ${TEXT} (${TEXT}) values ('rebuild')`);
      return error instanceof Error ? error.message : String(error);
    }
  },

  // One writer at a time: a SQLite transaction that writes holds the database until it ends.
  async lock() {},

  async candidates(knex: Knex, query: CandidateQuery): Promise<Candidate[]> {
    const pairs = readablePairs(query.fields);
    if (pairs.length === 0) return [];
    const { terms, prefix } = query.terms;
    const hits = terms.map((term, k) => (prefix && k === terms.length - 1
      ? { sql: `select doc, ${k} as k, count(*) as tf from ${TERMS} where term >= ? and term < ? group by doc`, bindings: [term, term + TOP] }
      : { sql: `select doc, ${k} as k, count(*) as tf from ${TERMS} where term = ? group by doc`, bindings: [term] }));
    // Only entries of readable fields join: a word of any other field neither matches nor scores.
    const rows = rowsOf<Candidate>(await knex.raw(
      `with readable (object, field, factor) as (values ${pairs.map(() => '(?, ?, ?)').join(', ')}),
       hits as (${hits.map((h) => h.sql).join(' union all ')})
       select e.object as object, e.record_id as id, sum(r.factor * h.tf / (h.tf + ${SATURATION})) as score
       from hits h join ${ENTRIES} e on e.id = h.doc join readable r on r.object = e.object and r.field = e.field
       group by e.object, e.record_id
       having count(distinct h.k) = ?
       order by score desc, e.record_id, e.object
       limit ? offset ?`,
      [...pairs.flatMap((p) => [p.object, p.field.name, CLASS_WEIGHTS[p.field.weight - 1]]), ...hits.flatMap((h) => h.bindings), terms.length, query.limit, query.offset],
    ));
    return rows.map((r) => ({ object: r.object, id: r.id, score: Number(r.score) }));
  },
};
