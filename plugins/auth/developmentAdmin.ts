import type { Logger } from '../../kernel/logger.ts';
import type { AuthEngine, EngineContext } from './authEngine.ts';
import { TABLES } from './authEngine.ts';
import { generatePassword } from './generatePassword.ts';
import type { AuthDatabase } from './openAuthDatabase.ts';

const MARKER = 'development_admin';
export const DEVELOPMENT_ADMIN_EMAIL = 'admin@example.com';

/**
 * Outside production, a first start without any admin (and without `auth.admin`) creates one
 * with a generated one-time password and prints it once, so a newcomer can sign in. Only the
 * engine's hash of the password is stored; the account must change it at first sign-in
 * (`must_change_password`). A marker row records that it was done: later starts print nothing,
 * and never create another (even if this one was deleted).
 */
export async function developmentAdmin(input: {
  engine: AuthEngine;
  context: EngineContext;
  database: AuthDatabase;
  /** Where the server answers, for the printed commands, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  /** The environment's auth routes, e.g. `/api/v1/auth`. */
  authBase: string;
  environmentId: string;
  log: Logger;
  print: (text: string) => void;
}): Promise<void> {
  const { database, context } = input;
  if ((await database.query(`select value from ${TABLES.state} where key = ?`, [MARKER])).length > 0) return;
  // A user may hold several roles, comma-separated (`user,admin`).
  const admins = await database.query(
    `select count(*) as n from ${TABLES.user} where role = ? or role like ? or role like ? or role like ?`,
    ['admin', 'admin,%', '%,admin', '%,admin,%'],
  );
  if (Number(admins[0]?.n ?? 0) > 0) return;
  const email = DEVELOPMENT_ADMIN_EMAIL;
  if (await context.internalAdapter.findUserByEmail(email)) {
    input.print(`\nosr: environment '${input.environmentId}' has no admin, and ${email} is taken by a user who is not one. Make one with:\n`
      + `  OS_ADMIN_EMAIL=you@example.com OS_ADMIN_PASSWORD='a long password' npx osr start\n\n`);
    return;
  }
  const password = generatePassword();
  try {
    await input.engine.api.createUser({ body: { email, name: 'Administrator', password, role: 'admin', data: { must_change_password: true } } });
  } catch (error) {
    // Another process starting at the same time created it first: that one prints it.
    if (await context.internalAdapter.findUserByEmail(email)) return;
    throw error;
  }
  const now = new Date().toISOString();
  const insert = database.dialect === 'sqlite'
    ? `insert or ignore into ${TABLES.state} (key, value, updated_at) values (?, ?, ?)`
    : `insert into ${TABLES.state} (key, value, updated_at) values (?, ?, ?) on conflict (key) do nothing`;
  await database.query(insert, [MARKER, email, now]);
  input.log.info({ email }, 'created a development admin with a one-time password (printed once on standard output)');
  const body = JSON.stringify({ email, password });
  input.print([
    '',
    `osr: created the first admin of environment '${input.environmentId}' (development only; shown this once, stored only as a hash):`,
    `  email     ${email}`,
    `  password  ${password}   (one-time: the first sign-in must change it)`,
    `  sign in   curl -s -X POST ${input.origin}${input.authBase}/sign-in -H 'content-type: application/json' -d '${body}'`,
    `  then      curl -s -X POST ${input.origin}${input.authBase}/change-password -H 'authorization: Bearer <token>' -H 'content-type: application/json' -d '{"currentPassword":"${password}","newPassword":"<yours>"}'`,
    '  In production set OS_ADMIN_EMAIL and OS_ADMIN_PASSWORD instead.',
    '',
    '',
  ].join('\n'));
}
