/** The identity engine (and its database) start after the runtime serves: what may happen before, and what waits for it. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { silentLogger } from '../../kernel/logger.ts';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { createEnvironmentAuth } from '../../plugins/auth/createEnvironmentAuth.ts';

function setup(t: Test, production: boolean, options: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-engine-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'env.db');
  const tables = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{ name: string }>).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  const open = () => createEnvironmentAuth({
    env: { id: 'main', label: 'Main', databaseUrl: `sqlite:${file}`, schema: null },
    secret: Buffer.alloc(32, 7),
    production,
    options: authOptionsSchema.parse(production ? { baseURL: 'https://app.example.com', ...options } : options),
    email: undefined,
    log: silentLogger(),
    isDefault: true,
  });
  return { tables, open, opened: () => existsSync(file) };
}

for (const production of [false, true]) {
  t.test(`session cookie name known before the engine starts (production ${production})`, async (t) => {
    const { open } = setup(t, production);
    const auth = await open();
    t.teardown(() => auth.close());
    const before = auth.sessionCookie;
    t.equal(before, production ? '__Secure-osr-main.session_token' : 'osr-main.session_token');
    await auth.ready();
    t.equal(auth.sessionCookie, before, 'the started engine uses the predicted name');
    t.equal((await auth.engine.$context).authCookies.sessionToken.name, before);
  });
}

t.test('tables appear when the engine starts; a call before that waits for it', async (t) => {
  const { tables, open, opened } = setup(t, false);
  const auth = await open();
  t.teardown(() => auth.close());
  t.equal(opened(), false, 'the database is not opened before the engine starts');
  // A call through the context before start starts the engine and answers.
  t.equal(await auth.context.internalAdapter.findUserByEmail('nobody@example.com'), null);
  t.ok(tables().includes('sys_user'), 'the engine created its tables');
  t.ok(tables().includes('sys_auth_state'), 'and the state table');
  t.ok(tables().includes('sys_session'));
  const created = await auth.engine.api.createUser({ body: { email: 'a@example.com', name: 'A', password: 'password-123456' } });
  t.equal(created.user.email, 'a@example.com');
  t.equal((await auth.context.internalAdapter.findUserByEmail('a@example.com'))?.user.id, created.user.id, 'the started engine answers directly');
});

t.test('a configured admin starts the engine at once', async (t) => {
  const { tables, open } = setup(t, false, { admin: { email: 'root@example.com', password: 'root-password-1' } });
  const auth = await open();
  t.teardown(() => auth.close());
  t.ok(tables().includes('sys_user'));
  t.equal((await auth.context.internalAdapter.findUserByEmail('root@example.com'))?.user.role, 'admin');
});

t.test('close waits for an engine still starting', async (t) => {
  const { open } = setup(t, false);
  const auth = await open();
  let started = false;
  const starting = auth.ready().then(() => {
    started = true;
  });
  await auth.close();
  t.equal(started, true, 'the start finished before the database closed');
  await starting;
});

t.test('an engine never started does not start after close', async (t) => {
  const { open, opened } = setup(t, false);
  const auth = await open();
  await auth.close();
  await t.rejects(auth.ready(), /closed/);
  await t.rejects(auth.context.internalAdapter.findUserById('x'), /closed/);
  t.equal(opened(), false, 'the database was never opened');
});
