/**
 * The `auth` settings namespace (docs/settings.md): an admin of environment A adds an OpenID
 * Connect provider (a real one, oidc-provider, on 127.0.0.1) and a social provider; a sign-in in A
 * goes through it end to end while B keeps the config file's providers; the list replaces the
 * file's list, the social providers merge into the file's; the client secret is in no answer, log
 * line or plain column; a member is refused; a bad value is 400 naming the path, nothing stored; a
 * second runtime on the same database offers the provider within a second of the write.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { ADMIN, bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { CookieJar, follow } from '../auth/browser.ts';
import { IDP_USER, startIdp } from '../auth/oidcIdp.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';

const TENANT_SECRET = 'tenant-idp-Secret-never-shown-51d2e';
const GITHUB_SECRET = 'tenant-github-Secret-never-shown-8a0b';
const OPERATOR_GOOGLE_SECRET = 'operator-google-Secret-kept-3c9f';
const APP = 'http://app.test';
const redisDown = await redisProblem();

function capturedLogger() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk.toString(); done(); } });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

t.test('auth settings of one environment: its own sign-in providers, write-only secrets, every process within a second', async (t) => {
  await eachBackend(t, ['auth-b', 'auth-a'], async (t, site) => {
    if (site.backend === 'sqlite' && redisDown !== null) {
      if (process.env.CI === 'true') throw new Error(`Redis is required when CI=true (SQLite processes share events over it): ${redisDown}`);
      t.comment(`skipped: Redis unreachable (${redisDown})`);
      return;
    }
    const [b, a] = site.ids as [string, string];
    const tenantIdp = await startIdp([`${APP}/api/v1/environments/${a}/auth/oauth2/callback/tenant-idp`], TENANT_SECRET);
    const fileIdp = await startIdp([`${APP}/api/v1/auth/oauth2/callback/corp`]);
    t.teardown(async () => { await tenantIdp.close(); await fileIdp.close(); });
    const auth = {
      baseURL: APP,
      // The probes below start many sign-ins from one address.
      rateLimit: { signIn: { perIp: { max: 1000, windowSeconds: 60 } } },
      oidcProviders: [{ id: 'corp', name: 'Corporate', discoveryUrl: fileIdp.discoveryUrl, clientId: fileIdp.clientId, clientSecret: fileIdp.clientSecret }],
      socialProviders: { google: { clientId: 'operator-google', clientSecret: OPERATOR_GOOGLE_SECRET } },
    };
    // SQLite runtimes share the database files; their events cross over Redis (PostgreSQL: LISTEN/NOTIFY).
    const shared = site.backend === 'sqlite' ? { redis: { url: REDIS_URL } } : {};
    const logs = capturedLogger();
    const otherLogs = capturedLogger();
    const rt = await site.boot({ auth, logger: logs.logger, config: { ...shared, apps: [] } });
    const other = await site.boot({ auth, logger: otherLogs.logger, config: { ...shared, apps: [] } });

    const answers: string[] = [];
    const start = async (runtime: TestRuntime, env: string, provider: string) => {
      const res = await runtime.inject({ method: 'POST', url: `/api/v1/environments/${env}/auth/sign-in/social`, headers: { host: 'app.test' }, payload: { provider, callbackURL: '/welcome' } });
      answers.push(res.body);
      return res;
    };
    const settingsOf = async (env: string, token: string, method: 'GET' | 'PUT' = 'GET', payload?: unknown) => {
      const res = await rt.inject({ method, url: `/api/v1/environments/${env}/settings/auth`, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
      answers.push(res.body);
      return res;
    };
    const admin = await signIn(rt, ADMIN.email, ADMIN.password, {}, `/api/v1/environments/${a}/auth/sign-in`);
    const created = await rt.inject({ method: 'POST', url: `/api/v1/environments/${a}/auth/admin/create-user`, headers: bearer(admin.token), payload: { email: 'member@example.com', password: 'member-password-1', mustChangePassword: false } });
    t.equal(created.statusCode, 201, created.body);
    const member = await signIn(rt, 'member@example.com', 'member-password-1', {}, `/api/v1/environments/${a}/auth/sign-in`);

    // Before: A offers the config file's providers only, in both runtimes (the other one remembers that A has no settings).
    const before = await start(other, a, 'tenant-idp');
    t.equal(before.statusCode, 404, `before: no such provider in A (${before.body})`);
    t.equal((await start(other, a, 'corp')).statusCode, 200, "before: the config file's provider");

    await t.test('a member is refused', async (t) => {
      for (const res of [await settingsOf(a, member.token), await settingsOf(a, member.token, 'PUT', { oidcProviders: [] })]) {
        t.equal(res.statusCode, 403);
        t.equal(res.json().error.code, 'PERMISSION_DENIED');
      }
    });

    await t.test('a value sign-in cannot use is 400 naming the path, and nothing is stored', async (t) => {
      const schema = await settingsOf(a, admin.token, 'PUT', { oidcProviders: [{ id: 'tenant-idp', name: 'Tenant', discoveryUrl: 'not a url', clientId: 'c', clientSecretEnv: 'OS_AUTH_SECRET' }] });
      t.equal(schema.statusCode, 400);
      t.equal(schema.json().error.code, 'VALIDATION_ERROR');
      t.same(schema.json().error.details.errors.map((e: { path: string }) => e.path).sort(), ['oidcProviders.0.clientSecretEnv', 'oidcProviders.0.discoveryUrl'], 'settings name no variable of the process');
      const inherited = await settingsOf(a, admin.token, 'PUT', { socialProviders: { google: { clientId: 'tenant-google' } } });
      t.equal(inherited.statusCode, 400, "a provider set here does not take the operator's secret");
      t.same(inherited.json().error.details.errors, [{ path: 'socialProviders.google.clientSecret', message: 'the client secret is not set (a provider set here gets only the secret set here)' }]);
      const read = await settingsOf(a, admin.token);
      t.same([read.json().values, read.json().revision], [null, 0], 'nothing was stored');
    });

    const put = await settingsOf(a, admin.token, 'PUT', {
      oidcProviders: [{ id: 'tenant-idp', name: 'Tenant IdP', discoveryUrl: tenantIdp.discoveryUrl, clientId: tenantIdp.clientId, clientSecret: TENANT_SECRET }],
      socialProviders: { github: { clientId: 'tenant-github', clientSecret: GITHUB_SECRET } },
    });
    const putAt = Date.now();
    t.equal(put.statusCode, 200, put.body);
    t.same(put.json().secrets, { 'oidcProviders.tenant-idp.clientSecret': { set: true }, 'socialProviders.github.clientSecret': { set: true } }, 'each secret kept by its provider');
    t.same(put.json().values.oidcProviders[0].clientSecret, { set: true }, 'the answer shows only that a secret is set');

    await t.test('the other runtime offers the provider within a second', async (t) => {
      let offered: number | null = null;
      while (offered === null && Date.now() - putAt < 5000) {
        const triedAt = Date.now();
        if ((await start(other, a, 'tenant-idp')).statusCode === 200) offered = triedAt - putAt;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      t.ok(offered !== null && offered <= 1000, `offered ${offered} ms after the write (bound: 1000)`);
    });

    await t.test('a sign-in in A goes through the provider of its settings', async (t) => {
      const jar = new CookieJar();
      const logins = tenantIdp.logins;
      const res = await start(rt, a, 'tenant-idp');
      t.equal(res.statusCode, 200, res.body);
      jar.store(APP, ([] as string[]).concat(res.headers['set-cookie'] ?? []));
      const authorize = new URL(res.json().url as string);
      t.equal(authorize.origin, tenantIdp.issuer, "sent to A's identity provider");
      t.equal(authorize.searchParams.get('redirect_uri'), `${APP}/api/v1/environments/${a}/auth/oauth2/callback/tenant-idp`, "A's own callback");
      const hops = await follow(rt, jar, authorize.href, '/welcome', APP);
      t.ok(hops.some((h) => h.url.startsWith(`${APP}/api/v1/environments/${a}/auth/oauth2/callback/tenant-idp?`) && h.status === 302), `through the callback (${hops.map((h) => `${h.status} ${h.url.slice(0, 90)}`).join(' | ')})`);
      t.equal(hops.at(-1)!.url, `${APP}/welcome`, 'landed on callbackURL');
      t.equal(tenantIdp.logins, logins + 1, 'the provider signed the user in');
      const cookie = jar.get(APP, `osr-${a}.session_token`);
      t.ok(cookie, "a session cookie of A");
      const session = await rt.inject({ url: `/api/v1/environments/${a}/auth/get-session`, headers: { host: 'app.test', cookie: `osr-${a}.session_token=${cookie}` } });
      t.equal(session.json()?.user?.email, IDP_USER.email, 'signed in to A');
      const [account] = await site.query(a, 'select "providerId" as p, "accountId" as s from sys_account where "providerId" = ?', ['tenant-idp']);
      t.same(account, { p: 'tenant-idp', s: IDP_USER.sub }, 'the provider account is linked');
      const users = async (env: string) => Number((await site.query(env, 'select count(*) as n from sys_user where email = ?', [IDP_USER.email]))[0]!.n);
      t.same([await users(a), await users(b)], [1, 0], 'the user exists in A only');
    });

    await t.test("A's settings replace the file's list and merge into its social providers; B keeps the file's", async (t) => {
      for (const runtime of [rt, other]) {
        t.equal((await start(runtime, b, 'tenant-idp')).statusCode, 404, 'B does not offer it');
        t.equal((await start(runtime, a, 'corp')).statusCode, 404, "A no longer offers the file's generic provider (the list is replaced)");
        const corp = await start(runtime, b, 'corp');
        t.equal(new URL(corp.json().url as string).origin, fileIdp.issuer, "B offers the file's");
      }
      const google = await start(rt, a, 'google');
      t.equal(google.statusCode, 200, google.body);
      t.equal(new URL(google.json().url as string).searchParams.get('client_id'), 'operator-google', "A keeps the file's social provider");
      const github = await start(rt, a, 'github');
      t.equal(github.statusCode, 200, github.body);
      t.equal(new URL(github.json().url as string).searchParams.get('client_id'), 'tenant-github', 'and has its own');
      t.equal((await start(rt, b, 'github')).statusCode, 404, 'which B does not');
      const callback = (env: string, id: string) => rt.inject({ url: `/api/v1/environments/${env}/auth/oauth2/callback/${id}?code=x&state=y`, headers: { host: 'app.test' } });
      t.equal((await callback(b, 'tenant-idp')).statusCode, 404, "B has no callback of A's provider");
      t.equal((await callback(a, 'corp')).statusCode, 404, "A has none of the file's replaced provider");
      t.equal((await callback(a, 'tenant-idp')).statusCode, 302, "A's provider has its callback (a forged state is redirected)");
    });

    await t.test('the client secrets are in no answer, log line or plain column', async (t) => {
      for (const secret of [TENANT_SECRET, GITHUB_SECRET, OPERATOR_GOOGLE_SECRET]) {
        t.notOk(answers.some((body) => body.includes(secret)), `no answer holds ${secret.slice(0, 12)}…`);
        t.notOk(logs.text().includes(secret), 'no log line of this runtime');
        t.notOk(otherLogs.text().includes(secret), 'nor of the other');
        for (const env of [a, b]) t.notOk((await site.dump(env)).includes(secret), `no table of ${env} holds it in plain`);
      }
      t.ok(logs.text().includes('settings changed'), 'the change was logged');
      const [row] = await site.query(a, 'select * from osr_settings where namespace = ?', ['auth']);
      t.match(String(row!.sealed_json), /"oidcProviders\.tenant-idp\.clientSecret":"v1\./, 'sealed (AES-256-GCM, v1)');
    });

    await t.test('a change replaces the providers in both runtimes; a read answer put back keeps the secrets', async (t) => {
      const read = (await settingsOf(a, admin.token)).json();
      const changed = await settingsOf(a, admin.token, 'PUT', { ...read.values, socialProviders: { github: { ...read.values.socialProviders.github, clientId: 'tenant-github-2' } } });
      t.equal(changed.statusCode, 200, changed.body);
      t.same(changed.json().secrets, read.secrets, 'the secrets are kept');
      const changedAt = Date.now();
      for (const [name, runtime] of [['this runtime', rt], ['the other', other]] as const) {
        let seen: number | null = null;
        while (seen === null && Date.now() - changedAt < 5000) {
          const triedAt = Date.now();
          const github = await start(runtime, a, 'github');
          if (new URL(github.json().url as string).searchParams.get('client_id') === 'tenant-github-2') seen = triedAt - changedAt;
          else await new Promise((resolve) => setTimeout(resolve, 20));
        }
        t.ok(seen !== null && seen <= 1000, `${name} signs in with the new client ${seen} ms after the write (bound: 1000)`);
      }
      t.equal((await start(other, a, 'tenant-idp')).statusCode, 200, 'the generic provider is still offered');
    });

    await t.test('cleared, the file applies again', async (t) => {
      const cleared = await settingsOf(a, admin.token, 'PUT', {});
      t.equal(cleared.statusCode, 200);
      t.equal((await start(rt, a, 'tenant-idp')).statusCode, 404, 'the provider is gone');
      t.equal((await start(rt, a, 'corp')).statusCode, 200, "the file's is back");
    });
  });
});
