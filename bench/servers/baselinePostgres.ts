import pg from 'pg';
import { v7 } from 'uuid';
import { csvLine, encodeWalkCursor, EXPORT_COLUMNS, INSERTABLE, toPage, UPDATABLE, type BaselineStore, type Row } from './baselineStore.ts';

const T = '"bench_item"';

// The same value forms as the runtime: numbers for int8 and numeric, dates as 'YYYY-MM-DD'.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1082) return (value: string) => value;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

/** pg with a pool of the runtime's size and named (server-side prepared) statements. */
export function postgresStore(url: string, schema: string): BaselineStore {
  const pool = new pg.Pool({ connectionString: url, max: 10, types, options: `-c search_path=${schema}` });
  const query = async (name: string, text: string, values: unknown[] = []) => (await pool.query({ name, text, values })).rows as Row[];
  const total = async (name: string, text: string, values: unknown[] = []) => Number((await query(name, text, values))[0]!.n);

  return {
    get: async (id) => (await query('get', `select * from ${T} where id = $1`, [id]))[0],
    page: async (limit) => {
      const [rows, n] = await Promise.all([
        query('page', `select * from ${T} order by id asc limit $1`, [limit + 1]),
        total('count', `select count(*) as n from ${T}`),
      ]);
      return toPage(rows, limit, n);
    },
    filtered: async (status, limit) => {
      const [rows, n] = await Promise.all([
        query('filtered', `select * from ${T} where status = $1 order by amount desc nulls last, id asc limit $2`, [status, limit + 1]),
        total('filteredCount', `select count(*) as n from ${T} where status = $1`, [status]),
      ]);
      return toPage(rows, limit, n);
    },
    // The seeded amounts are never null, so the row-value comparison pages like the runtime's null-aware keyset.
    walk: async (after, limit) => {
      const [rows, n] = await Promise.all([
        after
          ? query('walkAfter', `select * from ${T} where (amount, id) > ($1, $2) order by amount asc nulls first, id asc limit $3`, [after[0], after[1], limit + 1])
          : query('walkFirst', `select * from ${T} order by amount asc nulls first, id asc limit $1`, [limit + 1]),
        total('count', `select count(*) as n from ${T}`),
      ]);
      return toPage(rows, limit, n, encodeWalkCursor);
    },
    countByStatus: async () =>
      (await query('byStatus', `select status, count(*) as n from ${T} group by status order by status`)).map((r) => ({ status: String(r.status), n: Number(r.n) })),
    create: async (values) => {
      const args: unknown[] = [v7(), new Date().toISOString()];
      for (const c of INSERTABLE) args.push(c === 'tags' && values[c] !== undefined ? JSON.stringify(values[c]) : (values[c] ?? null));
      const rows = await query(
        'insert',
        `insert into ${T} (id, version, created_at, updated_at, created_by, updated_by, owner_id, ${INSERTABLE.join(', ')})
         values ($1, 1, $2, $2, null, null, null, ${INSERTABLE.map((_, i) => `$${i + 3}`).join(', ')}) returning *`,
        args,
      );
      return rows[0]!;
    },
    update: async (id, version, values) => {
      const columns = UPDATABLE.filter((c) => c in values);
      const args: unknown[] = [id, version, new Date().toISOString(), ...columns.map((c) => values[c])];
      const sets = columns.map((c, i) => `${c} = $${i + 4}`).join(', ');
      const rows = await query(`update:${columns.join(',')}`, `update ${T} set ${sets}, version = version + 1, updated_at = $3 where id = $1 and version = $2 returning *`, args);
      return rows[0];
    },
    importRows: async (rows) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        for (let start = 0; start < rows.length; start += 500) {
          const args: unknown[] = [];
          const now = new Date().toISOString();
          const tuples = rows.slice(start, start + 500).map((values) => {
            const row = [v7(), 1, now, now, ...INSERTABLE.map((c) => (c === 'tags' && values[c] !== undefined ? JSON.stringify(values[c]) : (values[c] ?? null)))];
            return `(${row.map((v) => `$${args.push(v)}`).join(', ')})`;
          });
          await client.query(`insert into ${T} (id, version, created_at, updated_at, ${INSERTABLE.join(', ')}) values ${tuples.join(', ')}`, args);
        }
        await client.query('commit');
        return rows.length;
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    },
    // Keyset pages of 5,000 by id, so memory stays flat like the runtime's paged export.
    exportCsv: async function* () {
      yield `${EXPORT_COLUMNS.join(',')}\n`;
      let after = '';
      for (;;) {
        const rows = await query('exportPage', `select * from ${T} where id > $1 order by id limit 5000`, [after]);
        if (rows.length === 0) return;
        yield rows.map(csvLine).join('');
        after = String(rows[rows.length - 1]!.id);
      }
    },
    close: () => pool.end(),
  };
}
