/**
 * Totals, planned first pages of list queries and the rows of aggregations, remembered per
 * environment until the next write that may change them. A total or a page depends only on its statement (SQL and bindings, which
 * carry the caller's row scope and select list) and on the environment's rows, so an entry holds
 * until something writes: every write through the engine (and every side-table access) moves the
 * environment's generation and drops the entries whose statements name a table it touched (all of
 * them when it names none).
 *
 * Sound where every writer of the database tells this cache: on SQLite the engine's own writes,
 * and other connections' commits through the file's data_version (fileChanges.ts); on PostgreSQL
 * while the runtime hears other processes' writes (writeSignal.ts).
 *
 * Keys are `<sql>\u0000<bindings as JSON>`; the identifiers quoted in the SQL part (`"t"` or `` `t` ``)
 * decide which changes drop an entry. Pages are kept as read (raw rows, frozen: every reader
 * decodes them into records of its own) within a budget of bytes shared by all environments,
 * least recently used out first. The rows of reads by id are kept the same way within a share of
 * that budget of their own (RECORDS_SHARE), beside it: many records read once each never push the
 * pages out. Their keys (CountReader.recordKey) name their SQL text by a number: the many records
 * read by one plan share its text, held once (TEXTS_KEPT).
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
  /**
   * The key of a read by id's rows: its SQL text by number (the text held once for all the ids a
   * plan reads) and its bindings. Pass it to `page` and `keepPage` with `record`.
   */
  recordKey(sql: string, bindings: readonly unknown[]): string;
  /** A page remembered under `key`, or undefined; `record`: the rows of a read by id (kept apart, under a recordKey). */
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

/** SQL texts of reads by id numbered per cache (recordKey); past it, the oldest is numbered anew when next read. */
export const TEXTS_KEPT = 1024;

/** A read by id's SQL text as its records' keys name it (`#<id>` in the name index stands for all of them). */
interface Text {
  id: number;
  marker: string;
  names: ReadonlySet<string>;
}

/** A page's rows and their size. */
type Kept = Map<string, { rows: RememberedRows; bytes: number }>;
/** A record's rows, their size and its text (the record is indexed through it). */
type KeptRecords = Map<string, { rows: RememberedRows; bytes: number; text: Text }>;

interface Entry {
  generation: number;
  totals: Map<string, number>;
  pages: Kept;
  /** Rows of reads by id, within their own budget. */
  records: KeptRecords;
  /** Keys of the records kept, by their text's number. */
  textRecords: Map<number, Set<string>>;
  /** Keys of totals and pages, and the markers of records' texts, by each identifier their SQL quotes. */
  byName: Map<string, Set<string>>;
}

export function createCountCache(maxTotals = MAX_TOTALS, pageBytes = DEFAULT_PAGE_CACHE_MB * 1024 * 1024): CountCache {
  const envs = new Map<string, Entry>();
  /** What pages and records hold, each against its budget. */
  const held = { pages: 0, records: 0 };
  const budget = { pages: pageBytes, records: Math.floor(pageBytes / RECORDS_SHARE) };
  const texts = new Map<string, Text>();
  const textsById = new Map<number, Text>();
  let lastText = 0;
  const textOf = (sql: string): Text => {
    let text = texts.get(sql);
    if (text) return text;
    if (texts.size >= TEXTS_KEPT) {
      const [oldest, known] = texts.entries().next().value!;
      texts.delete(oldest);
      textsById.delete(known.id);
    }
    const id = ++lastText;
    text = { id, marker: `#${id}`, names: quotedNames(sql) };
    texts.set(sql, text);
    textsById.set(id, text);
    return text;
  };
  const entryOf = (environmentId: string): Entry => {
    let entry = envs.get(environmentId);
    if (!entry) envs.set(environmentId, (entry = { generation: 0, totals: new Map(), pages: new Map(), records: new Map(), textRecords: new Map(), byName: new Map() }));
    return entry;
  };
  const index = (entry: Entry, key: string, names: ReadonlySet<string>) => {
    for (const name of names) {
      let keys = entry.byName.get(name);
      if (!keys) entry.byName.set(name, (keys = new Set()));
      keys.add(key);
    }
  };
  const unindex = (entry: Entry, key: string, names: ReadonlySet<string>) => {
    for (const name of names) {
      const keys = entry.byName.get(name);
      keys?.delete(key);
      if (keys?.size === 0) entry.byName.delete(name);
    }
  };
  const dropPage = (entry: Entry, key: string) => {
    const page = entry.pages.get(key);
    if (!page) return;
    entry.pages.delete(key);
    held.pages -= page.bytes;
    if (!entry.totals.has(key)) unindex(entry, key, quotedNames(key));
  };
  const dropRecord = (entry: Entry, key: string) => {
    const record = entry.records.get(key);
    if (!record) return;
    entry.records.delete(key);
    held.records -= record.bytes;
    const keys = entry.textRecords.get(record.text.id);
    keys?.delete(key);
    if (keys?.size !== 0) return;
    entry.textRecords.delete(record.text.id);
    unindex(entry, record.text.marker, record.text.names);
  };
  const dropTotal = (entry: Entry, key: string) => {
    if (!entry.totals.delete(key)) return;
    if (!entry.pages.has(key)) unindex(entry, key, quotedNames(key));
  };
  /** Least recently used pages (or records) out until `bytes` more fit: the environment's own first, then others'. */
  const makeRoom = (own: Entry, bytes: number, kind: 'pages' | 'records') => {
    if (held[kind] + bytes <= budget[kind]) return;
    const drop = kind === 'pages' ? dropPage : dropRecord;
    for (const entry of [own, ...envs.values()]) {
      for (const key of entry[kind].keys()) {
        if (held[kind] + bytes <= budget[kind]) return;
        drop(entry, key);
      }
    }
  };
  /** One page or record is kept only within this share of its budget: it never empties the cache. */
  const fits = (kind: 'pages' | 'records', bytes: number) => bytes <= budget[kind] / LARGEST_PAGE_SHARE;
  /** `rows` frozen and counted against `kind`'s budget, room made for them. */
  const admit = (own: Entry, kind: 'pages' | 'records', rows: Array<Record<string, unknown>>, bytes: number): RememberedRows => {
    makeRoom(own, bytes, kind);
    for (const row of rows) Object.freeze(row);
    held[kind] += bytes;
    return Object.freeze(rows);
  };
  /** A page, indexed by each name its SQL quotes. */
  const keepPage = (entry: Entry, key: string, rows: Array<Record<string, unknown>>) => {
    const names = quotedNames(key);
    const bytes = rememberedBytes(key, rows, names.size);
    if (!fits('pages', bytes)) return;
    dropPage(entry, key);
    entry.pages.set(key, { rows: admit(entry, 'pages', rows, bytes), bytes });
    index(entry, key, names);
  };
  /** A record, one entry of its text's set (the text indexed once); not kept if its text was forgotten meanwhile (TEXTS_KEPT). */
  const keepRecord = (entry: Entry, key: string, rows: Array<Record<string, unknown>>) => {
    const text = textsById.get(Number(key.slice(1, key.indexOf('\u0000'))));
    if (!text) return;
    const bytes = rememberedBytes(key, rows, 1);
    if (!fits('records', bytes)) return;
    dropRecord(entry, key);
    entry.records.set(key, { rows: admit(entry, 'records', rows, bytes), bytes, text });
    let keys = entry.textRecords.get(text.id);
    if (!keys) {
      entry.textRecords.set(text.id, (keys = new Set()));
      index(entry, text.marker, text.names);
    }
    keys.add(key);
  };
  return {
    reader(environmentId) {
      const entry = entryOf(environmentId);
      const generation = entry.generation;
      const current = () => entry.generation === generation;
      return {
        recordKey: (sql, bindings) => `${textOf(sql).marker}\u0000${JSON.stringify(bindings)}`,
        get: (key) => (current() ? entry.totals.get(key) : undefined),
        set(key, total) {
          if (!current()) return;
          // Oldest first: a Map iterates in insertion order.
          if (entry.totals.size >= maxTotals) dropTotal(entry, entry.totals.keys().next().value!);
          const known = entry.totals.has(key);
          entry.totals.set(key, total);
          if (!known) index(entry, key, quotedNames(key));
        },
        page(key, record = false) {
          if (!current()) return undefined;
          return (record ? recent(entry.records, key) : recent(entry.pages, key))?.rows;
        },
        keepPage(key, rows, record = false) {
          if (!current() || budget[record ? 'records' : 'pages'] === 0) return;
          if (record) keepRecord(entry, key, rows);
          else keepPage(entry, key, rows);
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
        for (const record of entry.records.values()) held.records -= record.bytes;
        entry.totals.clear();
        entry.pages.clear();
        entry.records.clear();
        entry.textRecords.clear();
        entry.byName.clear();
        return;
      }
      // Entries are kept when their statements name none of the tables.
      for (const table of tables) {
        const keys = entry.byName.get(table);
        if (!keys) continue;
        for (const key of [...keys]) {
          if (key.charCodeAt(0) === HASH) {
            // A text's marker: every record read by it goes.
            for (const record of [...(entry.textRecords.get(Number(key.slice(1))) ?? [])]) dropRecord(entry, record);
            continue;
          }
          dropTotal(entry, key);
          dropPage(entry, key);
        }
      }
    },
  };
}

/** The entry under `key`, now the most recently used (a Map iterates in insertion order). */
function recent<V>(kept: Map<string, V>, key: string): V | undefined {
  const value = kept.get(key);
  if (value === undefined) return undefined;
  kept.delete(key);
  kept.set(key, value);
  return value;
}

/** Record keys and text markers begin with `#`; SQL texts never do. */
const HASH = 35;

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
