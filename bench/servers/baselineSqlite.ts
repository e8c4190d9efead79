import Sqlite from 'better-sqlite3';
import { v7 } from 'uuid';
import { csvLine, encodeWalkCursor, EXPORT_COLUMNS, INSERTABLE, toPage, UPDATABLE, type BaselineStore, type Row } from './baselineStore.ts';

const T = '"bench_item"';

/** SQLite stores booleans as 0/1 and multiselect as JSON text. */
function decode(row: Row | undefined): Row | undefined {
  if (!row) return row;
  row.active = row.active === null ? null : row.active !== 0;
  row.tags = typeof row.tags === 'string' ? JSON.parse(row.tags) : row.tags;
  return row;
}

function encode(values: Row): Row {
  const out: Row = { ...values };
  if ('active' in out && out.active !== null) out.active = out.active ? 1 : 0;
  if ('tags' in out && out.tags !== null) out.tags = JSON.stringify(out.tags);
  return out;
}

/** better-sqlite3, every statement prepared once; same pragmas as the runtime. */
export function sqliteStore(file: string): BaselineStore {
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // SQLite runs a bound LIMIT markedly slower than a literal one, so each page size gets its own statement.
  const byLimit = (text: (limit: number) => string) => {
    const statements = new Map<number, Sqlite.Statement>();
    return { all: (limit: number, ...args: unknown[]) => {
      let statement = statements.get(limit);
      if (!statement) statements.set(limit, (statement = db.prepare(text(limit))));
      return statement.all(...args) as Row[];
    } };
  };
  const get = db.prepare(`select * from ${T} where id = ?`);
  const page = byLimit((n) => `select * from ${T} order by id asc limit ${n}`);
  const count = db.prepare(`select count(*) as n from ${T}`);
  const filtered = byLimit((n) => `select * from ${T} where status = ? order by amount desc nulls last, id asc limit ${n}`);
  const filteredCount = db.prepare(`select count(*) as n from ${T} where status = ?`);
  // The seeded amounts are never null, so this pages like the runtime's null-aware keyset. Spelled
  // out rather than as a row value: with table statistics, SQLite plans `(amount, id) > (?, ?)` as
  // a skip-scan plus a full sort when the amount is small.
  const walkFirst = byLimit((n) => `select * from ${T} order by amount asc, id asc limit ${n}`);
  const walkAfter = byLimit((n) => `select * from ${T} where amount >= ? and (amount > ? or (amount = ? and id > ?)) order by amount asc, id asc limit ${n}`);
  const byStatus = db.prepare(`select status, count(*) as n from ${T} group by status order by status`);
  const insertSql = `insert into ${T} (id, version, created_at, updated_at, created_by, updated_by, owner_id, ${INSERTABLE.join(', ')})
     values (@id, 1, @now, @now, null, null, null, ${INSERTABLE.map((c) => `@${c}`).join(', ')})`;
  const insert = db.prepare(`${insertSql} returning *`);
  const insertOnly = db.prepare(insertSql);
  const all = db.prepare(`select * from ${T} order by id`);
  const toRow = (values: Row): Row => {
    const row: Row = { id: v7(), now: new Date().toISOString() };
    for (const c of INSERTABLE) row[c] = values[c] ?? null;
    return encode(row);
  };
  const updates = new Map<string, Sqlite.Statement>();
  const updateFor = (columns: string[]) => {
    const key = columns.join(',');
    let statement = updates.get(key);
    if (!statement) {
      statement = db.prepare(`update ${T} set ${columns.map((c) => `${c} = @${c}`).join(', ')}, version = version + 1, updated_at = @now where id = @id and version = @version returning *`);
      updates.set(key, statement);
    }
    return statement;
  };
  const total = (statement: Sqlite.Statement, ...args: unknown[]) => (statement.get(...args) as { n: number }).n;

  return {
    get: async (id) => decode(get.get(id) as Row | undefined),
    page: async (limit) => toPage(page.all(limit + 1).map((r) => decode(r)!), limit, total(count)),
    filtered: async (status, limit) => toPage(filtered.all(limit + 1, status).map((r) => decode(r)!), limit, total(filteredCount, status)),
    walk: async (after, limit) => {
      const rows = after ? walkAfter.all(limit + 1, after[0], after[0], after[0], after[1]) : walkFirst.all(limit + 1);
      return toPage(rows.map((r) => decode(r)!), limit, total(count), encodeWalkCursor);
    },
    countByStatus: async () => byStatus.all() as Array<{ status: string; n: number }>,
    // A write's rows are read to the end (`all`, not `get`): SQLite runs its WAL checkpoint when a
    // statement completes, and a write stopped after its first returned row would never checkpoint.
    create: async (values) => decode((insert.all(toRow(values)) as Row[])[0])!,
    importRows: async (rows) => {
      db.transaction(() => {
        for (const values of rows) insertOnly.run(toRow(values));
      })();
      return rows.length;
    },
    exportCsv: async function* () {
      yield `${EXPORT_COLUMNS.join(',')}\n`;
      let chunk = '';
      for (const row of all.iterate() as Iterable<Row>) {
        chunk += csvLine(decode(row)!);
        if (chunk.length > 64 * 1024) {
          yield chunk;
          chunk = '';
        }
      }
      yield chunk;
    },
    update: async (id, version, values) => {
      const columns = UPDATABLE.filter((c) => c in values);
      const given: Row = {};
      for (const c of columns) given[c] = values[c];
      const row = (updateFor(columns).all({ ...encode(given), id, version, now: new Date().toISOString() }) as Row[])[0];
      return decode(row);
    },
    close: async () => {
      db.close();
    },
  };
}
