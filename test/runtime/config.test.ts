/** loadConfig: defaults, unknown keys by full path, environment overrides, config files. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KernelBootError } from '../../kernel/index.ts';
import { loadConfig, type ResolvedConfig } from '../../runtime/loadConfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'osr-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 's'.repeat(32);
const load = (inline: unknown, env: NodeJS.ProcessEnv = {}) => loadConfig({ inline, env, cwd: dir });

/** The boot error a load must reject with: every failure as code, path and message. */
async function failures(promise: Promise<unknown>): Promise<Array<{ code: string; path: unknown; message: string }>> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof KernelBootError)) throw error;
    return error.failures.map((f) => ({ code: f.code, path: f.details.path, message: f.message }));
  }
  throw new Error('the configuration loaded, but a KernelBootError was expected');
}

t.test('defaults', async (t) => {
  const c = await load({});
  t.hasStrict(c, {
    server: { port: 3000, host: '127.0.0.1', bodyLimit: 1_048_576, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, trustProxy: false, listen: true, logRequests: true },
    api: { requireAuth: true },
    auth: { trustedOrigins: [] },
    plugins: {},
    log: { level: 'info' },
    root: dir,
    configFile: null,
    dataDir: join(dir, 'data'),
    apps: [join(dir, 'metadata/apps/crm')],
    redisUrl: null,
    environmentId: 'default',
    production: false,
  });
  t.equal(c.databaseUrl, `sqlite:${join(dir, 'data', 'default.db')}`, 'a SQLite file under dataDir');
  t.equal(c.auth.secret, undefined);
  t.equal(c.auth.admin, undefined);
});

t.test('an unknown key anywhere fails with CONFIG_INVALID naming its full path', async (t) => {
  const cases: Array<{ config: object; path: string }> = [
    { config: { prot: 3000 }, path: 'prot' },
    { config: { server: { prot: 3000 } }, path: 'server.prot' },
    { config: { api: { requireAuht: false } }, path: 'api.requireAuht' },
    { config: { database: { host: 'db' } }, path: 'database.host' },
    { config: { log: { format: 'json' } }, path: 'log.format' },
    { config: { auth: { admin: { email: 'a@example.com', password: 'password1', role: 'x' } } }, path: 'auth.admin.role' },
  ];
  for (const { config, path } of cases) {
    const got = await failures(load(config));
    t.same(got.map((f) => [f.code, f.path]), [['CONFIG_INVALID', path]], path);
    t.match(got[0]?.message, `Configuration is not valid at ${path}: unknown key(s) '${path.split('.').pop()}'`, `${path}: the message names it`);
  }
});

t.test('every problem is reported at once', async (t) => {
  const got = await failures(load({ server: { prot: 1, port: 'x' }, api: { x: 1 }, log: { level: 'loud' } }));
  t.same(got.map((f) => f.path).sort(), ['api.x', 'log.level', 'server.port', 'server.prot']);
  t.equal(got.every((f) => f.code === 'CONFIG_INVALID'), true, 'all CONFIG_INVALID');
});

t.test('environment variables override the config', async (t) => {
  const cases: Array<{ env: NodeJS.ProcessEnv; pick: (c: ResolvedConfig) => unknown; want: unknown }> = [
    { env: { PORT: '8080' }, pick: (c) => c.server.port, want: 8080 },
    { env: { HOST: '0.0.0.0' }, pick: (c) => c.server.host, want: '0.0.0.0' },
    { env: { DATABASE_URL: 'postgres://app@db:5432/app' }, pick: (c) => [c.database.url, c.databaseUrl], want: ['postgres://app@db:5432/app', 'postgres://app@db:5432/app'] },
    { env: { REDIS_URL: 'redis://cache:6379' }, pick: (c) => c.redisUrl, want: 'redis://cache:6379' },
    { env: { OS_DATA_DIR: '/srv/osr' }, pick: (c) => [c.dataDir, c.databaseUrl], want: ['/srv/osr', 'sqlite:/srv/osr/default.db'] },
    { env: { OS_DATA_DIR: 'var/osr' }, pick: (c) => c.dataDir, want: join(dir, 'var/osr') },
    { env: { OS_AUTH_SECRET: SECRET }, pick: (c) => c.auth.secret, want: SECRET },
    { env: { AUTH_SECRET: SECRET }, pick: (c) => c.auth.secret, want: SECRET },
    { env: { OS_AUTH_SECRET: SECRET, AUTH_SECRET: 'a'.repeat(32) }, pick: (c) => c.auth.secret, want: SECRET },
    { env: { OS_ADMIN_EMAIL: 'admin@example.com', OS_ADMIN_PASSWORD: 'long-password' }, pick: (c) => c.auth.admin, want: { email: 'admin@example.com', password: 'long-password' } },
    { env: { OS_ENVIRONMENT_ID: 'staging' }, pick: (c) => [c.environmentId, c.databaseUrl], want: ['staging', `sqlite:${join(dir, 'data', 'staging.db')}`] },
    { env: { OS_PROJECT_ID: 'acme' }, pick: (c) => c.environmentId, want: 'acme' },
    { env: { OS_ENVIRONMENT_ID: 'staging', OS_PROJECT_ID: 'acme' }, pick: (c) => c.environmentId, want: 'staging' },
    { env: { OS_AUTH_SECRET: '', AUTH_SECRET: SECRET }, pick: (c) => c.auth.secret, want: SECRET },
    { env: { LOG_LEVEL: 'debug' }, pick: (c) => c.log.level, want: 'debug' },
    { env: { NODE_ENV: 'production' }, pick: (c) => c.production, want: true },
  ];
  for (const { env, pick, want } of cases) t.same(pick(await load({ server: { port: 4000, host: '127.0.0.1' } }, env)), want, Object.keys(env).join(' + '));
});

t.test('a bad environment value is reported by the path it sets', async (t) => {
  const cases: Array<{ env: NodeJS.ProcessEnv; path: string; reason: string }> = [
    { env: { PORT: 'abc' }, path: 'server.port', reason: 'expected number' },
    { env: { PORT: '70000' }, path: 'server.port', reason: '65535' },
    { env: { OS_AUTH_SECRET: 'short' }, path: 'auth.secret', reason: 'must be at least 32 characters' },
    { env: { OS_ADMIN_EMAIL: 'admin@example.com' }, path: 'auth.admin.password', reason: 'expected string' },
    { env: { OS_ADMIN_EMAIL: 'not-an-email', OS_ADMIN_PASSWORD: 'long-password' }, path: 'auth.admin.email', reason: 'email' },
    { env: { LOG_LEVEL: 'loud' }, path: 'log.level', reason: 'Invalid option' },
    // The environment id names a database file.
    { env: { OS_ENVIRONMENT_ID: '../../tmp/evil' }, path: 'OS_ENVIRONMENT_ID', reason: 'must be lower-case letters, digits and dashes' },
    { env: { OS_PROJECT_ID: 'Acme Corp' }, path: 'OS_PROJECT_ID', reason: 'must be lower-case letters, digits and dashes' },
  ];
  for (const { env, path, reason } of cases) {
    const got = await failures(load({}, env));
    t.same(got.map((f) => [f.code, f.path]), [['CONFIG_INVALID', path]], `${Object.keys(env).join(' + ')} -> ${path}`);
    t.match(got[0]?.message, `Configuration is not valid at ${path}: `, 'the message names the path');
    t.match(got[0]?.message, reason, `the message says why (${reason})`);
  }
});

t.test('config files: .ts, .mjs and .json, paths relative to the file', async (t) => {
  const sub = join(dir, 'files');
  mkdirSync(sub);
  const body = { dataDir: 'state', apps: ['apps/one'], server: { port: 4321 }, plugins: { http: { enabled: true } } };
  const files: Record<string, string> = {
    'osr.config.ts': `import { defineConfig } from ${JSON.stringify(join(process.cwd(), 'runtime/configSchema.ts'))};\nexport default defineConfig(${JSON.stringify(body)});\n`,
    'osr.config.mjs': `export default ${JSON.stringify(body)};\n`,
    'osr.config.json': JSON.stringify(body),
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(sub, name), text);
    const c = await loadConfig({ configPath: join('files', name), cwd: dir, env: {} });
    t.equal(c.configFile, join(sub, name), `${name}: loaded`);
    t.equal(c.server.port, 4321, `${name}: values read`);
    t.equal(c.dataDir, join(sub, 'state'), `${name}: dataDir relative to the file`);
    t.same(c.apps, [join(sub, 'apps/one')], `${name}: apps relative to the file`);
    t.equal(c.databaseUrl, `sqlite:${join(sub, 'state', 'default.db')}`, `${name}: the default database under dataDir`);
    t.equal((await loadConfig({ configPath: join(sub, name), cwd: '/', env: { PORT: '5000' } })).server.port, 5000, `${name}: env beats the file`);
  }
});

t.test('runtime.config.json in the working directory is found without --config', async (t) => {
  const cwd = mkdtempSync(join(dir, 'cwd-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ server: { port: 4444 } }));
  const c = await loadConfig({ cwd, env: {} });
  t.equal(c.configFile, join(cwd, 'runtime.config.json'));
  t.equal(c.server.port, 4444);
});

t.test('file problems', async (t) => {
  const missing = join(dir, 'nope.json');
  t.same(await failures(loadConfig({ configPath: missing, env: {} })), [
    { code: 'CONFIG_NOT_FOUND', path: undefined, message: `Configuration file ${missing} was not found.` },
  ], 'a missing file is CONFIG_NOT_FOUND naming it');
  writeFileSync(join(dir, 'broken.json'), '{ "server": ');
  const broken = await failures(loadConfig({ configPath: join(dir, 'broken.json'), env: {} }));
  t.same(broken.map((f) => [f.code, f.path]), [['CONFIG_INVALID', join(dir, 'broken.json')]], 'invalid JSON is CONFIG_INVALID naming the file');
  t.match(broken[0]?.message, 'not valid JSON');
  writeFileSync(join(dir, 'list.json'), '[1, 2]');
  t.same((await failures(loadConfig({ configPath: join(dir, 'list.json'), env: {} }))).map((f) => [f.code, f.path]), [['CONFIG_INVALID', '(root)']], 'a non-object is CONFIG_INVALID');
});
