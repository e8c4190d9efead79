/** The base auth secret: from the environment, or generated once and kept; required in production. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import pino from 'pino';
import { isCodedError } from '../../kernel/index.ts';
import { createRuntime } from '../../runtime/createRuntime.ts';
import { resolveSecret } from '../../runtime/resolveSecret.ts';

const dir = mkdtempSync(join(tmpdir(), 'osr-secret-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'env-secret-0123456789-0123456789-abc';
const modeOf = (file: string) => statSync(file).mode & 0o777;

t.test('outside production a missing secret is generated once, kept with mode 0600, and reused', async (t) => {
  const dataDir = join(dir, 'dev');
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  const first = resolveSecret({ dataDir, production: false }, log);
  const file = join(dataDir, '.auth-secret');
  t.equal(first.origin, 'generated');
  t.equal(first.file, file);
  t.match(first.secret, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.equal(readFileSync(file, 'utf8'), `${first.secret}\n`, 'kept in the data directory');
  t.equal(modeOf(file), 0o600, 'readable by the owner only');
  t.equal(lines.length, 1, 'one warning');
  t.match(JSON.parse(lines[0]!), { level: 40, file, msg: /OS_AUTH_SECRET is not set/ }, 'the warning names the file and the variable');

  const second = resolveSecret({ dataDir, production: false }, log);
  t.same(second, { secret: first.secret, origin: 'file', file }, 'the second call returns the kept secret');
  t.equal(lines.length, 1, 'no second warning');
});

t.test('a kept secret that is too short is replaced, and its file made private', async (t) => {
  const dataDir = join(dir, 'short');
  mkdirSync(dataDir);
  const file = join(dataDir, '.auth-secret');
  writeFileSync(file, 'short\n', { mode: 0o644 });
  const got = resolveSecret({ dataDir, production: false });
  t.equal(got.origin, 'generated');
  t.not(got.secret, 'short');
  t.equal(readFileSync(file, 'utf8'), `${got.secret}\n`);
  t.equal(modeOf(file), 0o600);
});

t.test('a given secret is used as is and nothing is written', async (t) => {
  const dataDir = join(dir, 'given');
  t.same(resolveSecret({ secret: SECRET, dataDir, production: true }), { secret: SECRET, origin: 'env' });
  t.equal(existsSync(dataDir), false, 'no data directory created');
});

t.test('NODE_ENV=production without a secret is SECRET_REQUIRED', async (t) => {
  const dataDir = join(dir, 'prod');
  let error: unknown;
  try {
    resolveSecret({ dataDir, production: true });
  } catch (caught) {
    error = caught;
  }
  t.equal(isCodedError(error) && error.code, 'SECRET_REQUIRED');
  t.equal((error as Error).message, 'OS_AUTH_SECRET is required when NODE_ENV=production. Set it to a long random value (at least 32 characters).');
  t.equal(existsSync(join(dataDir, '.auth-secret')), false, 'no development secret written');

  await t.rejects(createRuntime({ inline: { dataDir, apps: [] }, env: { NODE_ENV: 'production' }, cwd: dir }), { code: 'SECRET_REQUIRED' }, 'the runtime refuses to assemble');
  const runtime = await createRuntime({ inline: { dataDir, apps: [] }, env: { NODE_ENV: 'production', AUTH_SECRET: SECRET }, cwd: dir });
  t.same(runtime.secret, { secret: SECRET, origin: 'env' }, 'AUTH_SECRET satisfies it');
});

t.test('the runtime keeps one development secret across restarts', async (t) => {
  const inline = { dataDir: join(dir, 'restarts'), apps: [] };
  const quiet = pino({ level: 'silent' });
  const first = await createRuntime({ inline, env: {}, cwd: dir, logger: quiet });
  const second = await createRuntime({ inline, env: {}, cwd: dir, logger: quiet });
  t.equal(first.secret.origin, 'generated');
  t.equal(second.secret.origin, 'file');
  t.equal(second.secret.secret, first.secret.secret);
});
