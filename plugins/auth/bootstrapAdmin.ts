import type { Logger } from '../../kernel/logger.ts';
import type { AuthEngine, EngineContext } from './authEngine.ts';
import { TABLES } from './authEngine.ts';
import type { AuthDatabase } from './openAuthDatabase.ts';

const MARKER = 'bootstrap_admin';

/**
 * Create the configured first admin once per environment. A marker row records that it was done,
 * so a later boot never re-creates the account (deleted on purpose) nor resets its password.
 */
export async function bootstrapAdmin(input: {
  engine: AuthEngine;
  context: EngineContext;
  database: AuthDatabase;
  admin: { email: string; password: string };
  log: Logger;
}): Promise<void> {
  const { database, context, log } = input;
  const marker = await database.query(`select value from ${TABLES.state} where key = ?`, [MARKER]);
  if (marker.length > 0) return;
  const email = input.admin.email.toLowerCase();
  if (await context.internalAdapter.findUserByEmail(email)) {
    log.warn({ email }, 'the configured admin already exists; it is left as it is');
  } else {
    try {
      await input.engine.api.createUser({ body: { email, name: 'Administrator', password: input.admin.password, role: 'admin' } });
      log.info({ email }, 'created the first admin');
    } catch (error) {
      // Another process booting at the same time may have created it first.
      if (!(await context.internalAdapter.findUserByEmail(email))) throw error;
    }
  }
  const now = new Date().toISOString();
  const insert = database.dialect === 'sqlite'
    ? `insert or ignore into ${TABLES.state} (key, value, updated_at) values (?, ?, ?)`
    : `insert into ${TABLES.state} (key, value, updated_at) values (?, ?, ?) on conflict (key) do nothing`;
  await database.query(insert, [MARKER, email, now]);
}
