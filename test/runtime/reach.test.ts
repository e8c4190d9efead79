/** checkDatabase and checkRedis, as `osr doctor` uses them: a verdict and a detail, never a write. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { checkDatabase, redact } from '../../runtime/checkDatabase.ts';
import { checkRedis } from '../../runtime/checkRedis.ts';

const PG = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'osr-reach-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A service the environment should run: required under CI=true, otherwise skipped with a message. */
async function requireService(t: Test, name: string, reach: () => Promise<{ ok: boolean; detail: string }>): Promise<boolean> {
  const got = await reach();
  if (got.ok) return true;
  if (process.env.CI === 'true') t.fail(`${name} must be reachable in CI: ${got.detail}`);
  else t.comment(`skipped: ${name} is not reachable here (${got.detail}); CI=true makes this a failure`);
  return false;
}

t.test('SQLite: a missing file is reported, not created; an existing one opens; garbage does not', async (t) => {
  const file = join(dir, 'sub', 'app.db');
  t.same(await checkDatabase(`sqlite:${file}`), { ok: true, detail: `SQLite file ${file} will be created at first start` });
  t.equal(existsSync(join(dir, 'sub')), false, 'no directory created');

  const { default: Database } = await import('better-sqlite3');
  const made = join(dir, 'made.db');
  new Database(made).close();
  t.same(await checkDatabase(`sqlite:${made}`), { ok: true, detail: `SQLite file ${made} opens` });

  const garbage = join(dir, 'garbage.db');
  writeFileSync(garbage, 'this is not a database file '.repeat(100));
  const bad = await checkDatabase(`sqlite:${garbage}`);
  t.equal(bad.ok, false);
  t.equal(bad.detail, `SQLite file ${garbage} cannot be opened: file is not a database`);
});

t.test('an unsupported URL is refused, without its password', async (t) => {
  t.same(await checkDatabase('mysql://root:hunter2@db/app'), { ok: false, detail: 'unsupported database URL mysql://root:***@db/app: use sqlite:PATH or postgres://...' });
  t.equal(redact('postgres://app:p%40ss@db:5432/x'), 'postgres://app:***@db:5432/x');
  t.equal(redact('redis://:hunter2@cache:6379'), 'redis://:***@cache:6379', 'a password without a user');
  t.equal(redact('postgres://app@db/x'), 'postgres://app@db/x', 'nothing to hide');
});

t.test('PostgreSQL: reachable, and a closed port with the password hidden', async (t) => {
  if (await requireService(t, 'PostgreSQL', () => checkDatabase(PG))) {
    t.match(await checkDatabase(PG), { ok: true, detail: /^PostgreSQL reachable \(PostgreSQL \d+/ });
  }
  const port = await closedPort();
  const down = await checkDatabase(`postgres://app:hunter2@127.0.0.1:${port}/app`, 1000);
  t.equal(down.ok, false);
  t.match(down.detail, `PostgreSQL at postgres://app:***@127.0.0.1:${port}/app is not reachable: `);
  t.equal(down.detail.includes('hunter2'), false);
});

t.test('Redis: PONG, a closed port, a silent server and a bad URL', async (t) => {
  if (await requireService(t, 'Redis', () => checkRedis(REDIS))) {
    t.same(await checkRedis(REDIS), { ok: true, detail: `Redis reachable at ${REDIS}` });
  }
  const port = await closedPort();
  const down = await checkRedis(`redis://:hunter2@127.0.0.1:${port}`);
  t.equal(down.ok, false);
  t.match(down.detail, 'is not reachable');
  t.equal(down.detail.includes('hunter2'), false, 'the password is hidden');

  const silent = createServer(() => {}).listen(0, '127.0.0.1');
  await new Promise((resolve) => silent.once('listening', resolve));
  const silentPort = (silent.address() as { port: number }).port;
  t.teardown(() => void silent.close());
  t.same(await checkRedis(`redis://127.0.0.1:${silentPort}`, 200), { ok: false, detail: `Redis at redis://127.0.0.1:${silentPort} did not answer within 200 ms` });

  t.same(await checkRedis('not a url'), { ok: false, detail: 'REDIS_URL not a url is not a URL' });
});
