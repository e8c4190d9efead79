import pg from 'pg';
import { formatErrorMessage } from '../kernel/errors.ts';
import { writeChannel } from '../plugins/data/sql/writeSignal.ts';
import type { ResolvedEnvironment } from '../runtime/loadConfig.ts';
import type { DoctorCheck } from './runDoctor.ts';

/**
 * Roles other than the runtime's own that may write the environment's tables: the owners of its
 * tables and the grantees of INSERT, UPDATE, DELETE or TRUNCATE on them (`PUBLIC` for a grant to
 * every role). Roles that write through superuser rights alone are not seen.
 */
const OTHER_WRITERS = `
  select distinct coalesce(r.rolname, 'PUBLIC') as role
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join lateral (
      select (aclexplode(c.relacl)).grantee, (aclexplode(c.relacl)).privilege_type
      union all select c.relowner, 'OWNER'
    ) a
    left join pg_roles r on r.oid = a.grantee
   where n.nspname = $1
     and c.relkind in ('r', 'p')
     and a.privilege_type in ('OWNER', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
     and (r.rolname is null or r.rolname <> current_user)
   order by 1`;

/**
 * With remembered reads on (`plugins.data.countCache`), a PostgreSQL environment whose tables other
 * roles may write is shared with writers that send no change notification: the doctor warns, naming
 * the roles, the one statement that tells every process the data changed, and how to turn
 * remembered reads off. Read-only: it reads the catalog only.
 */
export async function checkSharedWriters(environments: readonly ResolvedEnvironment[], countCache: string): Promise<DoctorCheck | null> {
  const shared = environments.filter((e) => /^postgres(ql)?:\/\//.test(e.databaseUrl));
  if (shared.length === 0) return null;
  if (countCache === 'off') return { name: 'other writers', ok: true, detail: 'plugins.data.countCache is off: nothing is remembered, every read goes to the database' };
  const found: string[] = [];
  const details: string[] = [];
  for (const env of shared) {
    const client = new pg.Client({ connectionString: env.databaseUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      const schema = env.schema ?? String((await client.query<{ s: string }>('select current_schema() as s')).rows[0]?.s ?? 'public');
      const { rows } = await client.query<{ role: string }>(OTHER_WRITERS, [schema]);
      if (rows.length > 0) found.push(formatErrorMessage('SHARED_WRITERS', { environment: env.id, schema, roles: rows.map((r) => r.role).join(', '), channel: writeChannel(schema) }));
      else details.push(`${env.id}: no other role may write its tables`);
    } catch (error) {
      details.push(`${env.id}: not checked (${(error as Error).message.split('\n')[0]})`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (found.length === 0) return { name: 'other writers', ok: true, detail: details.join('; ') };
  return {
    name: 'other writers',
    ok: true,
    warning: true,
    detail: 'remembered reads are on (plugins.data.countCache) and other roles may write: their writes send no change notification, so lists, totals and records may be answered stale',
    problems: found.map((message) => ({ code: 'SHARED_WRITERS', message })),
  };
}
