import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { codedError, KernelBootError, type CodedError } from '../kernel/errors.ts';
import { importModule } from '../kernel/importModule.ts';
import { configSchema, ENVIRONMENT_ID, type RuntimeConfig } from './configSchema.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';
import { removedOptionFailures } from './removedOptions.ts';

export interface ResolvedEnvironment {
  id: string;
  label: string;
  /** `sqlite:PATH` or `postgres://...`. */
  databaseUrl: string;
  /** PostgreSQL schema holding this environment's tables (null: the URL's default). */
  schema: string | null;
}

export interface ResolvedConfig extends Omit<RuntimeConfig, 'environments'> {
  environments: ResolvedEnvironment[];
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
  const mod = (await importModule(file)) as { default?: unknown };
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
  // An empty OS_AUTH_SECRET (a blank line in an env file) must not hide AUTH_SECRET.
  const secret = env.OS_AUTH_SECRET || env.AUTH_SECRET;
  if (secret) setPath(raw, ['auth', 'secret'], secret);
  if (env.OS_ADMIN_EMAIL || env.OS_ADMIN_PASSWORD) {
    setPath(raw, ['auth', 'admin'], { email: env.OS_ADMIN_EMAIL, password: env.OS_ADMIN_PASSWORD });
  }
  if (env.LOG_LEVEL) setPath(raw, ['log', 'level'], env.LOG_LEVEL);
  if (env.OS_LIFECYCLE_DISABLED === '1' || env.OS_LIFECYCLE_DISABLED === 'true') setPath(raw, ['plugins', 'lifecycle', 'enabled'], false);
  if (env.OS_MCP_SERVER_ENABLED === '1' || env.OS_MCP_SERVER_ENABLED === 'true') setPath(raw, ['plugins', 'mcp', 'enabled'], true);
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
  const removed = removedOptionFailures(merged, configFile ?? '(inline)');
  const parsed = configSchema.safeParse(merged, PARSE_ONCE);
  if (!parsed.success || removed.length > 0) {
    if (parsed.success) throw new KernelBootError(removed);
    const failures: CodedError[] = parsed.error.issues.map((issue) => {
      const path = issue.path.join('.') || '(root)';
      const reason = issue.code === 'unrecognized_keys'
        ? `unknown key(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove them or check the spelling (docs: README, Configuration)`
        : issue.message;
      const full = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? [path === '(root)' ? '' : path, issue.keys[0]].filter(Boolean).join('.') : path;
      return codedError('CONFIG_INVALID', { path: full, reason, file: configFile ?? '(inline)' });
    });
    throw new KernelBootError([...removed, ...failures]);
  }
  const config = parsed.data;
  const root = configFile ? dirname(configFile) : cwd;
  const dataDir = resolve(root, config.dataDir);
  const environmentId = env.OS_ENVIRONMENT_ID || env.OS_PROJECT_ID || config.environments[0]?.id || 'default';
  // The id names a SQLite file: a value like `../x` must not reach a path.
  if (!ENVIRONMENT_ID.test(environmentId)) {
    const variable = env.OS_ENVIRONMENT_ID ? 'OS_ENVIRONMENT_ID' : 'OS_PROJECT_ID';
    throw new KernelBootError([codedError('CONFIG_INVALID', { path: variable, reason: `'${environmentId.slice(0, 64)}' must be lower-case letters, digits and dashes`, file: '(environment)' })]);
  }
  const mainUrl = config.database.url;
  const isPostgres = (url: string | undefined) => url !== undefined && /^postgres(ql)?:\/\//.test(url);
  const sqliteUrl = (id: string) => `sqlite:${resolve(dataDir, `${id}.db`)}`;
  // One environment: its database is the configured one. Several: each gets its own SQLite file,
  // or its own schema of the configured PostgreSQL database, unless it names a database itself.
  const environments: ResolvedEnvironment[] = config.environments.length === 0
    ? [{ id: environmentId, label: environmentId, databaseUrl: mainUrl ?? sqliteUrl(environmentId), schema: null }]
    : config.environments.map((e) => ({
      id: e.id,
      label: e.label ?? e.id,
      databaseUrl: e.databaseUrl ?? (isPostgres(mainUrl) ? mainUrl! : sqliteUrl(e.id)),
      schema: !e.databaseUrl && isPostgres(mainUrl) ? `env_${e.id.replace(/-/g, '_')}` : null,
    }));
  if (new Set(environments.map((e) => e.id)).size !== environments.length) {
    throw new KernelBootError([codedError('CONFIG_INVALID', { path: 'environments', reason: 'environment ids must be unique', file: configFile ?? '(inline)' })]);
  }
  return {
    ...config,
    environments,
    dataDir,
    apps: config.apps.map((a) => resolve(root, a)),
    root,
    configFile,
    databaseUrl: environments.find((e) => e.id === environmentId)?.databaseUrl ?? environments[0]!.databaseUrl,
    redisUrl: config.redis.url ?? null,
    environmentId,
    production: env.NODE_ENV === 'production',
  };
}
