/** A runtime with the CRM app and a header-based auth provider, on each driver, for the metadata API tests. */
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import type { Test } from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { definePlugin, type AnyPlugin } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

/** Callers known to the test provider, by the token after `Authorization: Test `. */
export const USERS: Record<string, Pick<Principal, 'isAdmin' | 'permissionSets' | 'permissions'>> = {
  admin: { isAdmin: true, permissionSets: [], permissions: [] },
  alice: { isAdmin: false, permissionSets: [], permissions: [] },
  manager: { isAdmin: false, permissionSets: ['sales_manager'], permissions: [] },
  auditor: { isAdmin: false, permissionSets: ['crm_admin'], permissions: [] },
  director: { isAdmin: false, permissionSets: ['sales_manager', 'crm_admin'], permissions: [] },
  steward: { isAdmin: false, permissionSets: [], permissions: ['sharing:manage'] },
  author: { isAdmin: false, permissionSets: [], permissions: ['metadata:write'] },
};

export const as = (user: string): Record<string, string> => ({ authorization: `Test ${user}` });

/** Provides `auth.session` from the Authorization header: the tests choose who calls. */
export const headerAuth: AnyPlugin = definePlugin({
  name: 'header-auth',
  version: '1.0.0',
  kernel: '^16.0.0',
  provides: ['auth.session'],
  register(ctx) {
    ctx.provide('auth.session', {
      async authenticate(request) {
        const header = request.headers.authorization ?? '';
        const user = header.startsWith('Test ') ? USERS[header.slice(5)] : undefined;
        if (!user) return null;
        return { kind: 'user', userId: header.slice(5), environmentId: request.environmentId, positions: [], ...user, permissionSets: [...user.permissionSets], permissions: [...user.permissions] };
      },
    });
  },
});

/** The first-party plugins with the header provider in place of the real identity plugins. */
export const BUILTINS = [
  ...BUILTIN_PLUGINS.filter((b) => b.manifest.name !== 'auth' && b.manifest.name !== 'auth-routes'),
  { manifest: headerAuth, enabledByDefault: true },
];

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  headers: Record<string, unknown>;
}

export interface Meta {
  rt: TestRuntime;
  environments: string[];
  send(method: InjectOptions['method'], url: string, options?: { user?: string; payload?: unknown; headers?: Record<string, string> }): Promise<Reply>;
}

export type DriverName = 'sqlite' | 'postgres';

const schemaOf = (id: string) => `env_${id.replace(/-/g, '_')}`;

async function dropSchemas(ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (const id of ids) await client.query(`drop schema if exists "${schemaOf(id)}" cascade`);
  } finally {
    await client.end();
  }
}

export interface BootOptions {
  apps?: string[];
  environments?: string[];
  config?: RuntimeConfigInput;
}

/**
 * The permission sets of USERS as assignments in the environment's database: the access layer
 * resolves a caller's sets from there, whatever the auth provider says.
 */
async function assignPermissionSets(rt: TestRuntime, environmentId: string): Promise<void> {
  const engine = rt.runtime.kernel.service<DataEngine>('data.engine');
  if (!engine) return;
  const ctx = { environmentId, principal: null, system: true };
  const ids = new Map<string, string>();
  for (const [userId, user] of Object.entries(USERS)) {
    for (const set of user.permissionSets) {
      if (!ids.has(set)) ids.set(set, String((await engine.create('sys_permission_set', { name: set }, ctx)).id));
      await engine.create('sys_user_permission_set', { user_id: userId, permission_set: ids.get(set) }, ctx);
    }
  }
}

/** Boots the runtime on one driver; environment ids carry the process id so parallel runs never share a schema. */
export async function bootMeta(t: Test, driver: DriverName, tag: string, options: BootOptions = {}): Promise<Meta> {
  const environments = (options.environments ?? [tag]).map((id) => `${id}-${process.pid}`);
  if (driver === 'postgres') await dropSchemas(environments);
  const rt = await startTestRuntime({
    config: {
      apps: options.apps ?? ['metadata/apps/crm'],
      environments: environments.map((id) => ({ id })),
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...options.config,
    },
    builtins: BUILTINS,
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropSchemas(environments);
  });
  for (const environmentId of environments) await assignPermissionSets(rt, environmentId);
  return {
    rt,
    environments,
    async send(method, url, { user, payload, headers = {} } = {}) {
      const res = await rt.inject({
        method, url, headers: { ...(user ? as(user) : {}), ...headers },
        ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }),
      });
      let body: unknown = null;
      try {
        body = res.body === '' ? null : res.json();
      } catch {
        body = null;
      }
      return { status: res.statusCode, body, text: res.body, headers: res.headers };
    },
  };
}

/**
 * Runs `body` once per driver, each with its own runtime. PostgreSQL unreachable is a skip with the
 * reason, except when CI=true: then the case runs and fails on connecting.
 */
export async function onEachDriver(t: Test, tag: string, body: (t: Test, meta: Meta, driver: DriverName) => Promise<void>, options: BootOptions = {}): Promise<void> {
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      await body(t, await bootMeta(t, c.name, tag, options), c.name);
    });
  }
}
