/**
 * Totals, planned first pages of list queries and the rows of aggregations, remembered per
 * environment until the next write that may change them. A total or a page depends only on its statement (SQL and bindings, which
 * carry the caller's row scope and select list) and on the environment's rows, so an entry holds
 * until something writes: every write through the engine (and every side-table access) moves the
 * environment's generation and drops the entries whose statements name a table it touched (all of
 * them when it names none).
 *
 * Sound where every writer of the database tells this cache: SQLite (one runtime process per
 * database file), and PostgreSQL while the runtime hears other processes' writes (writeSignal.ts).
 *
 * Keys are `<sql>\u0000<bindings as JSON>`; the identifiers quoted in the SQL part (`"t"` or `` `t` ``)
 * decide which changes drop an entry. Pages are kept as read (raw rows, frozen: every reader
 * decodes them into records of its own) within a budget of bytes shared by all environments,
 * least recently used out first. The rows of reads by id are kept the same way within a share of
 * that budget of their own (RECORDS_SHARE), beside it: many records read once each never push the
 * pages out.
 */
export interface CountCache {
  /** A handle for one read, tied to the generation it started in. */
  reader(environmentId: string): CountReader;
  /** Something may have changed rows of the environment (of `tables` only, when given): forget those totals and pages. */
  changed(environmentId: string, tables?: readonly string[]): void;
}

export type RememberedRows = ReadonlyArray<Readonly<Record<string, unknown>>>;

export interface CountReader {
  get(key: string): number | undefined;
  /** Kept only if no write started since the reader was made. */
  set(key: string, total: number): void;
  /** A page remembered under `key`, or undefined; `record`: the rows of a read by id (kept apart). */
  page(key: string, record?: boolean): RememberedRows | undefined;
  /**
   * Keeps a page's rows (frozen here) if no write started since the reader was made and they fit
   * the budget. `record`: the rows of a read by id, kept within a share of the budget of their
   * own, so reading many records never pushes the pages out.
   */
  keepPage(key: string, rows: Array<Record<string, unknown>>, record?: boolean): void;
}

/** Totals kept per environment by default; past it, the oldest goes. */
export const MAX_TOTALS = 1000;

/** plugins.data.pageCacheMb by default. */
export const DEFAULT_PAGE_CACHE_MB = 8;

/** A page larger than this share of the budget is not kept: one page never empties the cache. */
const LARGEST_PAGE_SHARE = 8;

/** The rows of reads by id are kept in this share of the pages' budget, beside it. */
export const RECORDS_SHARE = 2;

type Kept = Map<string, { rows: RememberedRows; bytes: number }>;

interface Entry {
  generation: number;
  totals: Map<string, number>;
  pages: Kept;
  /** Rows of reads by id, within their own budget. */
  records: Kept;
  /** Keys of totals, pages and records by each identifier their SQL quotes. */
  byName: Map<string, Set<string>>;
}

export function createCountCache(maxTotals = MAX_TOTALS, pageBytes = DEFAULT_PAGE_CACHE_MB * 1024 * 1024): CountCache {
  const envs = new Map<string, Entry>();
  /** What pages and records hold, each against its budget. */
  const held = { pages: 0, records: 0 };
  const budget = { pages: pageBytes, records: Math.floor(pageBytes / RECORDS_SHARE) };
  const entryOf = (environmentId: string): Entry => {
    let entry = envs.get(environmentId);
    if (!entry) envs.set(environmentId, (entry = { generation: 0, totals: new Map(), pages: new Map(), records: new Map(), byName: new Map() }));
    return entry;
  };
  const index = (entry: Entry, key: string, names = quotedNames(key)) => {
    for (const name of names) {
      let keys = entry.byName.get(name);
      if (!keys) entry.byName.set(name, (keys = new Set()));
      keys.add(key);
    }
  };
  const unindex = (entry: Entry, key: string) => {
    if (entry.totals.has(key) || entry.pages.has(key) || entry.records.has(key)) return;
    for (const name of quotedNames(key)) {
      const keys = entry.byName.get(name);
      keys?.delete(key);
      if (keys?.size === 0) entry.byName.delete(name);
    }
  };
  const dropPage = (entry: Entry, key: string, kind: 'pages' | 'records' = 'pages') => {
    const page = entry[kind].get(key);
    if (!page) return;
    entry[kind].delete(key);
    held[kind] -= page.bytes;
    unindex(entry, key);
  };
  const dropTotal = (entry: Entry, key: string) => {
    if (!entry.totals.delete(key)) return;
    unindex(entry, key);
  };
  /** Least recently used pages (or records) out until `bytes` more fit: the environment's own first, then others'. */
  const makeRoom = (own: Entry, bytes: number, kind: 'pages' | 'records') => {
    if (held[kind] + bytes <= budget[kind]) return;
    for (const entry of [own, ...envs.values()]) {
      for (const key of entry[kind].keys()) {
        if (held[kind] + bytes <= budget[kind]) return;
        dropPage(entry, key, kind);
      }
    }
  };
  return {
    reader(environmentId) {
      const entry = entryOf(environmentId);
      const generation = entry.generation;
      const current = () => entry.generation === generation;
      return {
        get: (key) => (current() ? entry.totals.get(key) : undefined),
        set(key, total) {
          if (!current()) return;
          // Oldest first: a Map iterates in insertion order.
          if (entry.totals.size >= maxTotals) dropTotal(entry, entry.totals.keys().next().value!);
          const known = entry.totals.has(key);
          entry.totals.set(key, total);
          if (!known) index(entry, key);
        },
        page(key, record = false) {
          if (!current()) return undefined;
          const kept = record ? entry.records : entry.pages;
          const page = kept.get(key);
          if (!page) return undefined;
          // Most recently used last.
          kept.delete(key);
          kept.set(key, page);
          return page.rows;
        },
        keepPage(key, rows, record = false) {
          const kind = record ? 'records' : 'pages';
          if (!current() || budget[kind] === 0) return;
          const names = quotedNames(key);
          const bytes = rememberedBytes(key, rows, names.size);
          if (bytes > budget[kind] / LARGEST_PAGE_SHARE) return;
          dropPage(entry, key, kind);
          makeRoom(entry, bytes, kind);
          for (const row of rows) Object.freeze(row);
          entry[kind].set(key, { rows: Object.freeze(rows), bytes });
          held[kind] += bytes;
          index(entry, key, names);
        },
      };
    },
    changed(environmentId, tables) {
      const entry = entryOf(environmentId);
      // A read under way when anything changes stores nothing, whatever it read.
      entry.generation++;
      if (!tables) {
        // Clearing a Map allocates its table anew: a write between writes finds nothing to clear.
        if (entry.totals.size === 0 && entry.pages.size === 0 && entry.records.size === 0 && entry.byName.size === 0) return;
        for (const page of entry.pages.values()) held.pages -= page.bytes;
        for (const page of entry.records.values()) held.records -= page.bytes;
        entry.totals.clear();
        entry.pages.clear();
        entry.records.clear();
        entry.byName.clear();
        return;
      }
      // Entries are kept when their statements name none of the tables.
      for (const table of tables) {
        const keys = entry.byName.get(table);
        if (!keys) continue;
        for (const key of [...keys]) {
          dropTotal(entry, key);
          dropPage(entry, key);
          dropPage(entry, key, 'records');
        }
      }
    },
  };
}

const QUOTED = /"((?:[^"]|"")+)"|`((?:[^`]|``)+)`/g;

/** Names of the SQL texts seen last: many keys share one text (reads by id differ in their bindings only). */
const NAMES_KEPT = 256;
const namesOfSql = new Map<string, ReadonlySet<string>>();

/** The identifiers a key's SQL quotes (either driver's quotes), each once. */
function quotedNames(key: string): ReadonlySet<string> {
  const end = key.indexOf('\u0000');
  const sql = end === -1 ? key : key.slice(0, end);
  let names = namesOfSql.get(sql);
  if (names) return names;
  const found = new Set<string>();
  for (const match of sql.matchAll(QUOTED)) found.add(match[1] !== undefined ? match[1].replaceAll('""', '"') : match[2]!.replaceAll('``', '`'));
  if (namesOfSql.size >= NAMES_KEPT) namesOfSql.delete(namesOfSql.keys().next().value!);
  namesOfSql.set(sql, (names = found));
  return names;
}

/**
 * About what a remembered page holds in memory: its key, its index entries (one per identifier its
 * SQL quotes), and its rows (strings by their length, other values by a word or two). Many small
 * pages are bounded by their keys: an empty page of a long statement still costs its text.
 */
export function rememberedBytes(key: string, rows: ReadonlyArray<Record<string, unknown>>, names = quotedNames(key).size): number {
  let bytes = 64 + key.length * 2 + names * 48 + rows.length * 8;
  for (const row of rows) {
    bytes += 56;
    for (const key in row) {
      const value = row[key];
      bytes += typeof value === 'string' ? 24 + value.length * 2 : value instanceof Uint8Array ? 64 + value.byteLength : 16;
    }
  }
  return bytes;
}
