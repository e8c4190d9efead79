import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { EffectiveSettings } from '../../capabilities/settingsStore.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import type { EnvironmentInfo } from '../../capabilities/runtimeInfo.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { withTimeout } from '../../kernel/withTimeout.ts';
import type { AuthEngine, EngineContext } from './authEngine.ts';
import { TABLES } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { AUTH_BASE_PATH } from './authPaths.ts';
import { authSettingsOptions, namesProviders } from './authSettings.ts';
import { bootstrapAdmin } from './bootstrapAdmin.ts';
import { developmentAdmin } from './developmentAdmin.ts';
import { environmentAuthBase } from './environmentAuthUrl.ts';
import { engineCall, engineCalls } from './engineCalls.ts';
import { openAuthDatabase, type AuthDatabase } from './openAuthDatabase.ts';
import { sessionCookieName } from './sessionCookieName.ts';

/** The engine that serves the environment's routes under /auth/* now, and the ids of its generic providers. */
export interface SignInEngine {
  handler(request: Request): Promise<Response>;
  genericIds: ReadonlySet<string>;
}

/** How long a request waits for an engine built from new settings to start (its providers' discovery). */
const SETTINGS_ENGINE_WAIT_MS = 10_000;

/** One environment's identity: its database, its engine instance and the engine's context. */
export interface EnvironmentAuth {
  id: string;
  /** The engine; calls made before it has started wait for it (see `ready`). */
  engine: AuthEngine;
  /** The engine's context; its adapters' calls made before the engine has started wait for it. */
  context: EngineContext;
  /** Name of the session cookie (environment-specific). */
  sessionCookie: string;
  /**
   * The engine for the routes under /auth/*: the one of the config file, or, while the
   * environment's `auth` settings (docs/settings.md) name providers, one built from them over the
   * config file, on the same database and secret, rebuilt when their revision changes.
   */
  signInEngine(): Promise<SignInEngine>;
  /**
   * Load and start the engine if not done yet: create or update the identity tables, create the
   * configured first admin. A failure is thrown to every waiting caller, and the next call tries again.
   */
  ready(): Promise<void>;
  /** The environment's identity database, once the engine has started (for the OAuth server's own table). */
  database(): Promise<AuthDatabase>;
  close(): Promise<void>;
}

export interface EnvironmentAuthInput {
  env: EnvironmentInfo;
  secret: Buffer;
  production: boolean;
  options: AuthOptions;
  email: EmailSend | undefined;
  /** Set when phone sign-in is on. */
  sms?: SmsSend | undefined;
  log: Logger;
  /** The default environment is also served without the environment path prefix. */
  isDefault: boolean;
  /** The environment's `auth` settings (settings.store), or null when none are set. */
  settings?: () => Promise<EffectiveSettings | null>;
}

interface Started {
  engine: AuthEngine;
  context: EngineContext;
  /** Another engine on the same database and secret, with other options (the environment's settings). */
  build(options: AuthOptions): AuthEngine;
}

/** Load the engine library, create or update the tables, start the engine, create the first admin. */
async function startEngine(input: EnvironmentAuthInput, database: AuthDatabase, secret: string, ref: { current: AuthEngine | null }): Promise<Started> {
  await database.query(`create table if not exists ${TABLES.state} (key varchar(100) primary key, value text not null, updated_at varchar(40) not null)`);
  // The engine and its plugins are most of the runtime's code: loaded here, not at process start.
  const [{ betterAuth }, { getMigrations }, { engineOptions }, passkeys] = await Promise.all([
    import('better-auth'), import('better-auth/db/migration'), import('./engineOptions.ts'),
    // The WebAuthn library is a few hundred modules: loaded only when passkeys are on.
    input.options.passkeys.enabled ? import('./passkeyPlugin.ts').then((m) => m.passkeyPlugin(input.options)) : null,
  ]);
  const configOf = (options: AuthOptions, engine: { current: AuthEngine | null }) => engineOptions({
    environmentId: input.env.id,
    database,
    secret,
    production: input.production,
    options,
    email: input.email,
    sms: input.sms,
    log: input.log,
    engine,
    authBase: input.isDefault ? AUTH_BASE_PATH : environmentAuthBase(input.env.id),
    passkeys,
  });
  const config = configOf(input.options, ref);
  const { runMigrations } = await getMigrations(config);
  await runMigrations();
  const engine = betterAuth(config) as unknown as AuthEngine;
  ref.current = engine;
  const context = await engine.$context;
  if (input.options.admin) await bootstrapAdmin({ engine, context, database, admin: input.options.admin, log: input.log });
  else if (input.options.developmentAdmin && !input.production) {
    await developmentAdmin({
      engine, context, database, log: input.log, environmentId: input.env.id,
      origin: input.options.developmentAdmin.origin,
      authBase: input.isDefault ? AUTH_BASE_PATH : environmentAuthBase(input.env.id),
      print: (text) => process.stdout.write(text),
    });
  }
  // Providers add no table: an engine with other providers needs no migration.
  const build = (options: AuthOptions): AuthEngine => {
    const own: { current: AuthEngine | null } = { current: null };
    own.current = betterAuth(configOf(options, own)) as unknown as AuthEngine;
    return own.current;
  };
  return { engine, context, build };
}

/**
 * One environment's identity, with nothing opened yet: the database is opened and the engine
 * started on `ready()` (the auth plugin calls it once the runtime serves, and at start when a
 * first admin is configured) or on the first call that needs them, whichever comes first. An
 * unreachable database fails that call, and the next one tries again.
 */
export async function createEnvironmentAuth(input: EnvironmentAuthInput): Promise<EnvironmentAuth> {
  const secret = input.secret.toString('hex');
  const ref: { current: AuthEngine | null } = { current: null };
  const predictedCookie = sessionCookieName(input.env.id, input.production);
  let database: AuthDatabase | null = null;
  let started: Started | null = null;
  let starting: Promise<Started> | null = null;
  let closed = false;
  const start = (): Promise<Started> => {
    if (started) return Promise.resolve(started);
    if (closed) return Promise.reject(new Error(`the identity database of environment '${input.env.id}' is closed`));
    // Counted too: a first admin is created through the engine while it starts.
    starting ??= engineCall(async () => {
      database ??= await openAuthDatabase(input.env);
      return startEngine(input, database, secret, ref);
    }).then(
      (s) => {
        const actual = s.context.authCookies.sessionToken.name;
        if (actual !== predictedCookie) input.log.error({ expected: predictedCookie, actual }, 'the session cookie name differs from the one predicted before start');
        started = s;
        return s;
      },
      (error: unknown) => {
        starting = null;
        throw error;
      },
    );
    return starting;
  };

  // Every call into the engine is counted (engineCalls.ts): its async-local storages are off while none runs.
  const api = engineCalls(async () => (await start()).engine.api);
  const adapters = {
    internalAdapter: engineCalls(async () => (await start()).context.internalAdapter),
    adapter: engineCalls(async () => (await start()).context.adapter),
  };
  const engine: AuthEngine = {
    handler: (request) => engineCall(async () => (started ?? (await start())).engine.handler(request)),
    api,
    get $context() {
      return start().then((s) => s.context);
    },
  };
  const context = new Proxy({} as EngineContext, {
    get(_, name) {
      if (name === 'internalAdapter' || name === 'adapter') return adapters[name];
      if (started) return Reflect.get(started.context, name);
      if (name === 'secret') return secret;
      if (name === 'authCookies') return { sessionToken: { name: predictedCookie } };
      throw new Error(`the auth engine of environment '${input.env.id}' has not started: call ready() before reading context.${String(name)}`);
    },
  });

  const fileEngine: SignInEngine = { handler: engine.handler, genericIds: new Set(input.options.oidcProviders.map((p) => p.id)) };
  let fromSettings: { revision: string; built: Promise<SignInEngine> } | null = null;
  const signInEngine = async (): Promise<SignInEngine> => {
    const s = started ?? (await start());
    const settings = await input.settings?.();
    if (!settings || !namesProviders(settings.values)) {
      fromSettings = null;
      return fileEngine;
    }
    if (fromSettings?.revision !== settings.revision) {
      let options: AuthOptions;
      try {
        options = authSettingsOptions(input.options, settings.values);
      } catch {
        // Stored by an older version whose schema differed: the values are not logged (they hold secrets).
        input.log.error({ revision: settings.revision }, "the environment's auth settings are not valid: the config file's providers serve sign-in until an admin sets them again");
        return fileEngine;
      }
      const built = engineCall(async () => {
        const variant = s.build(options);
        // The engine starts (and its generic providers fetch their discovery documents) once.
        await variant.$context;
        return { handler: (request: Request) => engineCall(() => variant.handler(request)), genericIds: new Set(options.oidcProviders.map((p) => p.id)) };
      });
      const entry = { revision: settings.revision, built };
      fromSettings = entry;
      // A failed start is tried again by the next request.
      built.catch(() => {
        if (fromSettings === entry) fromSettings = null;
      });
    }
    const { built } = fromSettings!;
    return withTimeout(() => built, SETTINGS_ENGINE_WAIT_MS, () => codedError('SERVICE_UNAVAILABLE', {
      service: 'Sign-in',
      reason: `the providers set in the auth settings of environment '${input.env.id.slice(0, 64)}' are starting (their discovery documents did not arrive within ${SETTINGS_ENGINE_WAIT_MS} ms)`,
    }));
  };

  const auth: EnvironmentAuth = {
    id: input.env.id,
    engine,
    context,
    signInEngine,
    get sessionCookie() {
      return started ? started.context.authCookies.sessionToken.name : predictedCookie;
    },
    ready: async () => {
      await start();
    },
    database: async () => {
      await start();
      return database!;
    },
    async close() {
      closed = true;
      // An engine still starting is using the database: let it finish first.
      await starting?.catch(() => undefined);
      await database?.close();
    },
  };
  if (input.options.admin) {
    try {
      await auth.ready();
    } catch (error) {
      await auth.close().catch(() => undefined);
      throw error;
    }
  }
  return auth;
}
