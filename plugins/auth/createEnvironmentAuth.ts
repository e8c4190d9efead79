import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { EnvironmentInfo } from '../../capabilities/runtimeInfo.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { AuthEngine, EngineContext } from './authEngine.ts';
import { TABLES } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { AUTH_BASE_PATH } from './authPaths.ts';
import { bootstrapAdmin } from './bootstrapAdmin.ts';
import { engineOptions } from './engineOptions.ts';
import { environmentAuthBase } from './environmentAuthUrl.ts';
import { openAuthDatabase, type AuthDatabase } from './openAuthDatabase.ts';

/** One environment's identity: its database, its engine instance and the engine's context. */
export interface EnvironmentAuth {
  id: string;
  engine: AuthEngine;
  context: EngineContext;
  database: AuthDatabase;
  /** Name of the session cookie (environment-specific). */
  sessionCookie: string;
  close(): Promise<void>;
}

export interface EnvironmentAuthInput {
  env: EnvironmentInfo;
  secret: Buffer;
  production: boolean;
  options: AuthOptions;
  email: EmailSend | undefined;
  log: Logger;
  /** The default environment is also served without the environment path prefix. */
  isDefault: boolean;
}

/** Open the database, create or update the identity tables, start the engine, create the first admin. */
export async function createEnvironmentAuth(input: EnvironmentAuthInput): Promise<EnvironmentAuth> {
  const database = await openAuthDatabase(input.env);
  try {
    const ref: { current: AuthEngine | null } = { current: null };
    const config = engineOptions({
      environmentId: input.env.id,
      database,
      secret: input.secret.toString('hex'),
      production: input.production,
      options: input.options,
      email: input.email,
      log: input.log,
      engine: ref,
      authBase: input.isDefault ? AUTH_BASE_PATH : environmentAuthBase(input.env.id),
    });
    const { runMigrations } = await getMigrations(config);
    await runMigrations();
    await database.query(`create table if not exists ${TABLES.state} (key varchar(100) primary key, value text not null, updated_at varchar(40) not null)`);
    const engine = betterAuth(config) as unknown as AuthEngine;
    ref.current = engine;
    const context = await engine.$context;
    if (input.options.admin) await bootstrapAdmin({ engine, context, database, admin: input.options.admin, log: input.log });
    return {
      id: input.env.id,
      engine,
      context,
      database,
      sessionCookie: context.authCookies.sessionToken.name,
      close: () => database.close(),
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
