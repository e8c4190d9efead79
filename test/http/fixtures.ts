/** Small plugins and a scenario runner shared by the HTTP shell tests. */
import type { Test } from 'tap';
import type { InjectOptions } from 'fastify';
import type { Principal } from '../../capabilities/authSession.ts';
import type { RouteDefinition } from '../../capabilities/httpRoutes.ts';
import { definePlugin, type AnyPlugin, type Logger } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

/** Who the test auth provider knows, by the token after `Authorization: Test `. */
export const USERS: Record<string, { permissions: string[]; isAdmin: boolean }> = {
  alice: { permissions: [], isAdmin: false },
  approver: { permissions: ['ai:approve'], isAdmin: false },
  root: { permissions: [], isAdmin: true },
};

export const as = (user: string) => ({ authorization: `Test ${user}` });

/** Provides `auth.session` from a header, for these tests only. */
export const testAuth: AnyPlugin = definePlugin({
  name: 'test-auth',
  version: '1.0.0',
  kernel: '^16.0.0',
  provides: ['auth.session'],
  register(ctx) {
    ctx.provide('auth.session', {
      async authenticate(request) {
        const header = request.headers.authorization ?? '';
        const user = USERS[header.replace(/^Test /, '')];
        if (!header.startsWith('Test ') || !user) return null;
        const principal: Principal = {
          kind: 'user', userId: header.slice(5), environmentId: 'default', isAdmin: user.isAdmin,
          positions: [], permissionSets: [], permissions: user.permissions,
        };
        return principal;
      },
    });
  },
});

/** A plugin that declares the given routes (and any other manifest fields). */
export function routesPlugin(name: string, routes: RouteDefinition[], extra: Partial<AnyPlugin> = {}): AnyPlugin {
  const manifest = definePlugin({
    name,
    version: '1.0.0',
    kernel: '^16.0.0',
    requires: ['http.routes'],
    register(ctx) {
      for (const route of routes) ctx.resolve('http.routes').add(route);
    },
  });
  return { ...manifest, ...extra };
}

/**
 * The HTTP shell alone among the first-party plugins: the tests choose the auth provider (or none),
 * which a built-in one would contest, and other plugins' routes stay out of the way.
 */
export const HTTP_ONLY = BUILTIN_PLUGINS.filter((b) => b.manifest.name === 'http');

/** The runtime with the http plugin plus the given test plugins. */
export function boot(plugins: AnyPlugin[], config: RuntimeConfigInput = {}, logger?: Logger): Promise<TestRuntime> {
  return startTestRuntime({
    config,
    builtins: [...HTTP_ONLY, ...plugins.map((manifest) => ({ manifest, enabledByDefault: true }))],
    ...(logger ? { logger } : {}),
  });
}

export interface Scenario {
  name: string;
  request: InjectOptions;
  status: number;
  /** error.code of a non-2xx answer. */
  code?: string;
  /** A subset the JSON body must hold (strict equality of each given value). */
  expect?: object;
  /** Text that must NOT appear anywhere in the response body. */
  absent?: string[];
  /** Response headers that must have exactly these values. */
  headers?: Record<string, string>;
}

/** Every non-2xx answer is `{ error: { code, message, details } }` and nothing else. */
export function assertEnvelope(t: Test, body: unknown): void {
  const error = (body as { error?: Record<string, unknown> }).error;
  t.same(Object.keys(body as object), ['error'], 'the body holds only error');
  t.same(Object.keys(error ?? {}).sort(), ['code', 'details', 'message'], 'error has code, message and details');
  t.type(error?.code, 'string', 'code is a string');
  t.type(error?.message, 'string', 'message is a string');
  t.type(error?.details, 'object', 'details is an object');
}

export async function runScenarios(t: Test, rt: TestRuntime, scenarios: Scenario[]): Promise<void> {
  for (const s of scenarios) {
    await t.test(s.name, async (t) => {
      const res = await rt.inject(s.request);
      t.equal(res.statusCode, s.status, 'status');
      t.match(res.headers['content-type'], /^application\/json/, 'JSON answer');
      const body = res.json() as Record<string, unknown>;
      if (s.status >= 300) assertEnvelope(t, body);
      if (s.code) t.equal((body.error as { code?: string } | undefined)?.code, s.code, 'error code');
      if (s.expect) t.hasStrict(body, s.expect, 'expected content');
      for (const text of s.absent ?? []) t.equal(res.body.includes(text), false, `does not contain ${JSON.stringify(text)}`);
      for (const [name, value] of Object.entries(s.headers ?? {})) t.equal(res.headers[name], value, `header ${name}`);
    });
  }
}
