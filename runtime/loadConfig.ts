import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codedError, KernelBootError, type CodedError } from '../kernel/errors.ts';
import { configSchema, type RuntimeConfig } from './configSchema.ts';

export interface ResolvedConfig extends RuntimeConfig {
  /** Directory paths are relative to: the config file's directory, or the working directory. */
  root: string;
  configFile: string | null;
  databaseUrl: string;
  redisUrl: string | null;
  environmentId: string;
  production: boolean;
}

export interface LoadConfigOptions {
  /** Explicit file (.ts, .js, .mjs, .json); otherwise runtime.config.ts in cwd, if present. */
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Config given in code (tests); used instead of reading a file. */
  inline?: unknown;
}

const DEFAULT_FILES = ['runtime.config.ts', 'runtime.config.mjs', 'runtime.config.js', 'runtime.config.json'];

async function readConfigFile(file: string): Promise<unknown> {
  if (extname(file) === '.json') {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new KernelBootError([codedError('CONFIG_INVALID', { path: file, reason: `not valid JSON (${(error as Error).message})` })]);
    }
  }
  const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  return mod.default ?? {};
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Environment variables win over the file. Numbers are parsed so zod reports bad values by path. */
function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  const num = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);
  if (env.PORT) setPath(raw, ['server', 'port'], num(env.PORT));
  if (env.HOST) setPath(raw, ['server', 'host'], env.HOST);
  if (env.DATABASE_URL) setPath(raw, ['database', 'url'], env.DATABASE_URL);
  if (env.REDIS_URL) setPath(raw, ['redis', 'url'], env.REDIS_URL);
  if (env.OS_DATA_DIR) raw.dataDir = env.OS_DATA_DIR;
  const secret = env.OS_AUTH_SECRET ?? env.AUTH_SECRET;
  if (secret) setPath(raw, ['auth', 'secret'], secret);
  if (env.OS_ADMIN_EMAIL || env.OS_ADMIN_PASSWORD) {
    setPath(raw, ['auth', 'admin'], { email: env.OS_ADMIN_EMAIL, password: env.OS_ADMIN_PASSWORD });
  }
  if (env.LOG_LEVEL) setPath(raw, ['log', 'level'], env.LOG_LEVEL);
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  let configFile: string | null = null;
  let raw: unknown = options.inline ?? {};
  if (options.inline === undefined) {
    if (options.configPath) {
      configFile = isAbsolute(options.configPath) ? options.configPath : resolve(cwd, options.configPath);
      if (!existsSync(configFile)) throw new KernelBootError([codedError('CONFIG_NOT_FOUND', { file: configFile })]);
    } else {
      configFile = DEFAULT_FILES.map((f) => resolve(cwd, f)).find((f) => existsSync(f)) ?? null;
    }
    if (configFile) raw = await readConfigFile(configFile);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new KernelBootError([codedError('CONFIG_INVALID', { path: '(root)', reason: 'the configuration must be an object' })]);
  }
  const merged = structuredClone(raw) as Record<string, unknown>;
  applyEnv(merged, env);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const failures: CodedError[] = parsed.error.issues.map((issue) => {
      const path = issue.path.join('.') || '(root)';
      const reason = issue.code === 'unrecognized_keys'
        ? `unknown key(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove them or check the spelling (docs: README, Configuration)`
        : issue.message;
      const full = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? [path === '(root)' ? '' : path, issue.keys[0]].filter(Boolean).join('.') : path;
      return codedError('CONFIG_INVALID', { path: full, reason, file: configFile ?? '(inline)' });
    });
    throw new KernelBootError(failures);
  }
  const config = parsed.data;
  const root = configFile ? dirname(configFile) : cwd;
  const dataDir = resolve(root, config.dataDir);
  const environmentId = env.OS_ENVIRONMENT_ID ?? env.OS_PROJECT_ID ?? 'default';
  return {
    ...config,
    dataDir,
    apps: config.apps.map((a) => resolve(root, a)),
    root,
    configFile,
    databaseUrl: config.database.url ?? `sqlite:${resolve(dataDir, `${environmentId}.db`)}`,
    redisUrl: config.redis.url ?? null,
    environmentId,
    production: env.NODE_ENV === 'production',
  };
}
