import { existsSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { isCodedError } from '../kernel/errors.ts';
import type { ResolvedObject } from '../metadata/types.ts';
import { syncSchema } from '../plugins/data/sql/syncSchema.ts';
import type { DeclaredIndexes } from '../plugins/data/sql/declaredQueryIndexes.ts';
import type { ResolvedEnvironment } from '../runtime/loadConfig.ts';
import type { DoctorCheck } from './runDoctor.ts';

/** A read-only connection to an environment's database, or null when it does not exist yet. */
function readOnly(env: ResolvedEnvironment): Knex | null {
  if (env.databaseUrl.startsWith('sqlite:')) {
    const filename = env.databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!filename || filename === ':memory:' || !existsSync(filename)) return null;
    return knexFactory({ client: 'better-sqlite3', connection: { filename, options: { readonly: true } }, useNullAsDefault: true });
  }
  return knexFactory({ client: 'pg', connection: env.databaseUrl, pool: { min: 0, max: 1 }, ...(env.schema ? { searchPath: [env.schema] } : {}) });
}

/**
 * The schema sync a start would run, planned only (dry run over a read-only connection): a change
 * the data plugin would refuse (SCHEMA_CHANGE_REFUSED) fails the doctor too. Nothing is created.
 */
export async function checkSchema(environments: readonly ResolvedEnvironment[], objects: readonly ResolvedObject[], schemaSync: string, declared?: ReadonlyMap<string, DeclaredIndexes>): Promise<DoctorCheck> {
  if (schemaSync === 'off') return { name: 'schema', ok: true, detail: 'plugins.data.schemaSync is off: the database is left alone' };
  const problems: Array<{ code: string; message: string }> = [];
  const details: string[] = [];
  for (const env of environments) {
    const knex = readOnly(env);
    if (!knex) {
      details.push(`${env.id}: every table is created at first start`);
      continue;
    }
    try {
      const plan = await syncSchema(knex, objects, { dryRun: true, destructive: schemaSync === 'destructive', ...(declared ? { declared } : {}) });
      details.push(`${env.id}: ${plan.actions.length === 0 ? 'matches the metadata' : `${plan.actions.length} change(s) at next start`}`);
    } catch (error) {
      // An unreachable database is the database check's line; a refused change is this one's.
      if (isCodedError(error) && error.code === 'SCHEMA_CHANGE_REFUSED') problems.push({ code: error.code, message: `environment '${env.id}': ${error.message}` });
      else details.push(`${env.id}: not checked (${(error as Error).message.split('\n')[0]})`);
    } finally {
      await knex.destroy();
    }
  }
  return problems.length === 0
    ? { name: 'schema', ok: true, detail: details.join('; ') }
    : { name: 'schema', ok: false, detail: 'the next start would refuse a schema change that loses data', problems };
}
