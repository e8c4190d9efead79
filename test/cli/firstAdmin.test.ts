/**
 * A newcomer's first `osr start`: with no admin anywhere, outside production, one is created with a
 * one-time password printed once; it signs in with the printed command's route and body, must
 * change the password, and the password is stored nowhere in plain text. Schema creation is one
 * log line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { freePort } from '../harness/freePort.ts';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'osr-first-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

function workspace(config: object = {}): string {
  const cwd = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [], ...config }));
  return cwd;
}

/** Start, wait for the serving line; `stop()` sends SIGTERM and resolves with the whole output. */
async function start(t: Test, cwd: string, env: NodeJS.ProcessEnv = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port)], {
    cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const check = () => { if (/serving http/.test(stdout)) resolve(); };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`osr start exited:\n${stdout}\n${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => stdout,
    async stop() {
      child.kill('SIGTERM');
      return { code: await exited, stdout };
    },
  };
}

const post = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

t.test('first start prints a one-time admin once; it signs in, must change the password, and is stored hashed only', async (t) => {
  const cwd = workspace();
  const first = await start(t, cwd);
  const printed = /email +(\S+)\n +password +(\S+) /.exec(first.output());
  t.ok(printed, 'the email and password are printed');
  const [, email, password] = printed!;
  t.equal(email, 'admin@example.com');
  t.match(password, /^[A-Za-z0-9]{16}$/);
  const command = /sign in +curl -s -X POST (\S+) -H 'content-type: application\/json' -d '(.+)'\n/.exec(first.output());
  t.equal(command?.[1], `${first.url}/api/v1/auth/sign-in`, 'the printed command names the real sign-in route of this server');
  t.same(JSON.parse(command![2]!), { email, password }, 'and its body');
  t.equal(first.output().split('\n').filter((l) => l.includes('"msg":"schema: ')).length, 1, 'schema creation is one log line');
  t.match(first.output(), /"msg":"schema: created \d+ tables, \d+ indexes"/);

  const signIn = await post(command![1]!, JSON.parse(command![2]!));
  t.equal(signIn.status, 200, 'the printed credentials sign in');
  const { token, user } = await signIn.json() as { token: string; user: { role: string; mustChangePassword: boolean } };
  t.equal(user.role, 'admin');
  t.equal(user.mustChangePassword, true, 'the password is one-time');
  const bearer = { authorization: `Bearer ${token}` };
  const before = await fetch(`${first.url}/api/v1/keys`, { headers: bearer });
  t.equal(before.status, 403);
  t.equal((await before.json() as { error: { code: string } }).error.code, 'PASSWORD_EXPIRED', 'nothing works before the change');
  const change = await post(`${first.url}/api/v1/auth/change-password`, { currentPassword: password, newPassword: 'my-own-password-1' }, bearer);
  t.equal(change.status, 200, 'the change-password command works');
  t.equal((await fetch(`${first.url}/api/v1/keys`, { headers: bearer })).status, 200, 'then the API answers');
  t.same(await first.stop().then((r) => r.code), 0);

  for (const file of filesUnder(join(cwd, 'data'))) {
    t.notOk(readFileSync(file).includes(password!), `${file} does not hold the password`);
  }

  const second = await start(t, cwd);
  t.notMatch(second.output(), 'password ', 'a second start prints no password');
  t.notMatch(second.output(), 'one-time');
  t.notMatch(second.output(), '"msg":"schema: ', 'and changes no schema');
  t.equal((await post(`${second.url}/api/v1/auth/sign-in`, { email, password: 'my-own-password-1' })).status, 200, 'the admin keeps its password');
  await second.stop();
  const db = new Database(join(cwd, 'data', 'default.db'), { readonly: true });
  t.same(db.prepare('select email, role from sys_user').all(), [{ email, role: 'admin' }], 'one admin, not two');
  db.close();
});

t.test('with OS_ADMIN_EMAIL and OS_ADMIN_PASSWORD, that admin is made and nothing is printed, then or later', async (t) => {
  const cwd = workspace();
  const rt = await start(t, cwd, { OS_ADMIN_EMAIL: 'ops@example.com', OS_ADMIN_PASSWORD: 'configured-password-1' });
  t.notMatch(rt.output(), 'one-time', 'no one-time password printed');
  t.equal((await post(`${rt.url}/api/v1/auth/sign-in`, { email: 'ops@example.com', password: 'configured-password-1' })).status, 200);
  await rt.stop();
  // An admin holding several roles is an admin too: a start without OS_ADMIN_* makes no other.
  const db = new Database(join(cwd, 'data', 'default.db'));
  db.prepare("update sys_user set role = 'user,admin'").run();
  db.close();
  const again = await start(t, cwd);
  t.notMatch(again.output(), 'one-time', 'an admin exists: nothing printed');
  await again.stop();
  const after = new Database(join(cwd, 'data', 'default.db'), { readonly: true });
  t.same(after.prepare('select email from sys_user').all(), [{ email: 'ops@example.com' }], 'and no other user made');
  after.close();
});

t.test('in production no admin is made up', async (t) => {
  const cwd = workspace({ plugins: { email: { enabled: false }, 'email-routes': { enabled: false } } });
  const rt = await start(t, cwd, { NODE_ENV: 'production', OS_AUTH_SECRET: 'production-secret-0123456789-0123456789' });
  t.notMatch(rt.output(), 'one-time', 'no one-time password printed');
  await rt.stop();
  const db = new Database(join(cwd, 'data', 'default.db'), { readonly: true });
  t.same(db.prepare('select count(*) as n from sys_user').get(), { n: 0 });
  db.close();
});
