/**
 * Passkeys over real HTTP with real WebAuthn ceremonies: headless Chromium, virtual authenticators
 * (CDP), the runtime listening on localhost (a secure context), on SQLite and PostgreSQL.
 */
import type { Browser } from 'playwright-core';
import t, { type Test } from 'tap';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { rateFamilyOf } from '../../plugins/auth/authPaths.ts';
import { checkPasskeyConfig, relyingParty } from '../../plugins/auth/passkeyRelyingParty.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { ADMIN, bearer, eachBackend, signIn, type Site } from './authHarness.ts';
import { CHROMIUM, chromiumPresent, launchChromium, passkeyPage, type CeremonyResult } from './passkeyBrowser.ts';

const AUTH = '/api/v1/auth';
const BOB = { email: 'bob@example.com', password: 'bob-password-1' };
const envAuth = (id: string) => `/api/v1/environments/${id}/auth`;

type Json = Record<string, any>;
const json = (result: CeremonyResult) => (result.body ?? {}) as Json;
/** The status of a ceremony, with what the browser or server said when it is not the expected one. */
function expectStatus(t: Test, result: CeremonyResult, status: number, message: string): void {
  t.equal(result.status, status, message, result.status === status ? {} : { got: { step: result.step, error: result.error, body: result.body } });
}

t.test('relying party and configuration (pure)', async (t) => {
  const parse = (auth: Json) => authOptionsSchema.parse(auth);
  t.same(relyingParty(parse({ passkeys: { enabled: true } })), { rpID: 'localhost', rpName: 'osr', origins: null }, 'no baseURL: localhost, the request origin');
  t.same(relyingParty(parse({ baseURL: 'https://app.example.com:8443/base', passkeys: { enabled: true } })),
    { rpID: 'app.example.com', rpName: 'osr', origins: ['https://app.example.com:8443'] }, 'from baseURL: its host and origin');
  t.same(relyingParty(parse({ baseURL: 'https://app.example.com', passkeys: { rpID: 'Example.com', rpName: 'Acme', origins: ['https://a.example.com/', 'https://b.example.com'] } })),
    { rpID: 'example.com', rpName: 'Acme', origins: ['https://a.example.com', 'https://b.example.com'] }, 'configured values win');
  t.equal(parse({}).passkeys.enabled, false, 'off by default');
  t.equal(parse({}).passkeys.requireUserVerification, true, 'user verification required by default');
  t.throws(() => parse({ passkeys: { rpID: 'https://example.com' } }), 'an rpID is a domain, not a URL');
  t.throws(() => parse({ passkeys: { enabled: true, secret: 'x' } }), 'unknown keys are refused');
  t.throws(() => checkPasskeyConfig(parse({ passkeys: { enabled: true } }), true), { code: 'CONFIG_INVALID' }, 'production without baseURL or rpID');
  t.doesNotThrow(() => checkPasskeyConfig(parse({ passkeys: { enabled: true, rpID: 'example.com' } }), true), 'production with an rpID');
  t.doesNotThrow(() => checkPasskeyConfig(parse({ baseURL: 'https://example.com', passkeys: { enabled: true } }), true), 'production with baseURL');
  t.doesNotThrow(() => checkPasskeyConfig(parse({ passkeys: { enabled: true } }), false), 'localhost outside production');
  t.equal(rateFamilyOf('/passkey/verify-authentication'), 'signIn', 'a passkey assertion is a sign-in attempt for the rate limits');
});

t.test('passkeys off: no routes, no table', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const admin = await signIn(rt);
    const res = await rt.inject({ url: `${AUTH}/passkey/list-user-passkeys`, headers: bearer(admin.token) });
    t.equal(res.statusCode, 404, 'the route is not served');
    t.equal(res.json().error.code, 'ROUTE_NOT_FOUND');
    t.equal((await site.dump(site.ids[0]!)).length > 0, true, 'the environment has tables');
    const tables = site.backend === 'sqlite'
      ? await site.query(site.ids[0]!, "select name from sqlite_master where name = 'sys_passkey'")
      : await site.query(site.ids[0]!, "select table_name from information_schema.tables where table_name = 'sys_passkey' and table_schema = current_schema()");
    t.same(tables, [], 'no sys_passkey table');
  });
});

if (chromiumPresent()) {
  await ceremonies(await launchChromium(t));
} else if (process.env.CI === 'true') {
  t.fail(`Chromium is required when CI=true but was not found at ${CHROMIUM} (apt-get install chromium)`);
} else {
  t.test('WebAuthn ceremonies', { skip: `Chromium not found at ${CHROMIUM}; install it (apt-get install chromium) or set CHROMIUM_PATH` }, async () => undefined);
}

/** A runtime on a real port, addressed as a browser must (localhost: a secure context). */
async function listening(site: Site, auth: Json = {}): Promise<{ rt: TestRuntime; base: string }> {
  const rt = await site.boot({
    auth: { rateLimit: { enabled: false }, passkeys: { enabled: true }, ...auth },
    config: { server: { listen: true, port: 0, host: '127.0.0.1' } },
  });
  const url = rt.runtime.http().url();
  if (!url) throw new Error('the runtime is not listening');
  return { rt, base: url.replace('127.0.0.1', 'localhost').replace(/\/$/, '') };
}

/** A request from outside any browser (no Origin, no cookie). */
async function http(base: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<CeremonyResult & { cookies: string[] }> {
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, token: res.headers.get('set-auth-token'), cookies: res.headers.getSetCookie() };
}

async function ceremonies(browser: Browser): Promise<void> {
  await t.test('register passkeys, sign in with one alone, list, delete; per environment', async (t) => {
    await eachBackend(t, ['main', 'other'], async (t, site) => {
      const [main, other] = site.ids as [string, string];
      const { rt, base } = await listening(site);
      const admin = await signIn(rt);
      t.equal((await rt.inject({ method: 'POST', url: `${AUTH}/admin/create-user`, headers: bearer(admin.token), payload: { ...BOB, name: 'Bob' } })).statusCode, 201, 'bob created');
      const context = await browser.newContext();
      t.teardown(() => context.close());
      const laptop = await passkeyPage(context, base);

      const anonymous = await laptop.register(AUTH, 'nobody');
      expectStatus(t, anonymous, 401, 'registration needs a session');
      t.equal(anonymous.step, 'options', 'refused before any challenge is issued');

      const signedIn = await laptop.call('POST', `${AUTH}/sign-in`, ADMIN);
      expectStatus(t, signedIn, 200, 'password sign-in in the browser (session cookie)');
      const adminId = String(json(signedIn).user.id);
      const first = await laptop.register(AUTH, 'laptop');
      expectStatus(t, first, 200, 'a passkey is registered');
      t.match(json(first), { name: 'laptop', userId: adminId, counter: Number }, 'named, owned by the signed-in user');
      const stored = await site.query(main, 'select "credentialID" as c, "userId" as u from sys_passkey');
      t.same(stored, [{ c: (await laptop.credentialIds())[0], u: adminId }], "sys_passkey holds the authenticator's credential id");
      t.same(await site.query(other, 'select * from sys_passkey'), [], 'the other environment has its own table, empty');

      // A second authenticator of the same user (the first is excluded from registering twice).
      const phone = await passkeyPage(context, base);
      const second = await phone.register(AUTH, 'phone');
      expectStatus(t, second, 200, 'a second passkey');
      const again = await laptop.register(AUTH, 'laptop again');
      t.equal(again.step, 'create', 'the same authenticator cannot register twice');
      t.match(again.error, /InvalidStateError/, 'the browser refuses it (excluded credential)');

      const options = await http(base, 'GET', `${AUTH}/passkey/generate-authenticate-options`);
      t.match(json(options), { challenge: String, rpId: 'localhost', userVerification: 'preferred' }, 'sign-in options for the relying party localhost');
      t.same(options.cookies.map((c) => c.split('=')[0]), [`osr-${main}.better-auth-passkey`], "with the environment's challenge cookie");

      expectStatus(t, await laptop.call('POST', `${AUTH}/sign-out`), 200, 'signed out');
      t.equal(json(await laptop.call('GET', `${AUTH}/get-session`)).session, undefined, 'no session left');

      const passkeySignIn = await laptop.authenticate(AUTH);
      expectStatus(t, passkeySignIn, 200, 'signed in with the passkey alone');
      const answer = json(passkeySignIn);
      t.same(Object.keys(answer).sort(), ['token', 'user'], 'the answer of POST /auth/sign-in: token and user, no session record');
      t.match(answer.user, { id: adminId, email: ADMIN.email, role: 'admin', mustChangePassword: false }, 'our view of the owner');
      t.equal(passkeySignIn.token, answer.token, 'the same token in set-auth-token');
      const token = String(answer.token);
      expectStatus(t, await http(base, 'GET', '/api/v1/keys', { token }), 200, 'the token is a bearer credential on a protected route');
      t.equal(json(await http(base, 'GET', `${AUTH}/get-session`, { token })).user.email, ADMIN.email, 'of the passkey owner');
      t.equal(json(await laptop.call('GET', `${AUTH}/get-session`)).user?.id, adminId, 'the browser holds a session cookie too');
      t.equal((await http(base, 'GET', '/api/v1/keys', { token: token.split('.')[0]! })).status, 401, 'the unsigned session id alone is no credential');

      await t.test('list, and ownership', async (t) => {
        const listed = await http(base, 'GET', `${AUTH}/passkey/list-user-passkeys`, { token });
        expectStatus(t, listed, 200, 'listed');
        t.same((listed.body as Json[]).map((p) => p.name).sort(), ['laptop', 'phone'], "the owner's two passkeys");
        const bob = String(json(await http(base, 'POST', `${AUTH}/sign-in`, { body: BOB })).token);
        t.same((await http(base, 'GET', `${AUTH}/passkey/list-user-passkeys`, { token: bob })).body, [], 'another user sees none of them');
        const phoneId = String(json(second).id);
        const stolen = await http(base, 'POST', `${AUTH}/passkey/delete-passkey`, { token: bob, body: { id: phoneId } });
        expectStatus(t, stolen, 401, 'another user cannot delete it');
        t.equal((await site.query(main, 'select id from sys_passkey where id = ?', [phoneId])).length, 1, 'still stored');
      });

      await t.test('delete one: it no longer signs in, the other still does', async (t) => {
        const phoneId = String(json(second).id);
        expectStatus(t, await http(base, 'POST', `${AUTH}/passkey/delete-passkey`, { token, body: { id: phoneId } }), 200, 'deleted by its owner');
        t.same(((await http(base, 'GET', `${AUTH}/passkey/list-user-passkeys`, { token })).body as Json[]).map((p) => p.name), ['laptop'], 'one left');
        const trail = await site.query(main, "select actor_id, after from sys_audit_event where action = 'auth.passkey_changed' order by occurred_at");
        t.same(trail.map((r) => [r.actor_id, (typeof r.after === 'string' ? JSON.parse(r.after) : r.after).change]),
          [[adminId, 'verify-registration'], [adminId, 'verify-registration'], [adminId, 'delete-passkey']], 'two passkeys added and one removed, in the audit trail (the refused deletion is not)');
        const signIns = await site.query(main, "select after from sys_audit_event where action = 'auth.sign_in' and actor_id = ?", [adminId]);
        t.ok(signIns.some((r) => /passkey/.test(String(typeof r.after === 'string' ? r.after : JSON.stringify(r.after)))), 'the passkey sign-in is recorded');
        await phone.call('POST', `${AUTH}/sign-out`);
        const gone = await phone.authenticate(AUTH);
        expectStatus(t, gone, 401, 'the deleted passkey is refused');
        t.equal(json(gone).error?.details?.reason, 'PASSKEY_NOT_FOUND', 'as unknown');
        t.notOk(gone.token, 'no token');
        await laptop.call('POST', `${AUTH}/sign-out`);
        expectStatus(t, await laptop.authenticate(AUTH), 200, 'the remaining passkey signs in');
      });

      await t.test('a passkey of one environment does not sign in to another', async (t) => {
        await laptop.call('POST', `${AUTH}/sign-out`);
        const elsewhere = await laptop.authenticate(envAuth(other));
        t.equal(elsewhere.step, undefined, 'the browser produced an assertion for the other environment');
        expectStatus(t, elsewhere, 401, 'the other environment refuses it');
        t.equal(json(elsewhere).error?.details?.reason, 'PASSKEY_NOT_FOUND', 'it knows no such passkey');
        t.notOk(elsewhere.token, 'no token');
        t.equal((await site.query(other, 'select count(*) as n from sys_session'))[0]!.n == 0, true, 'no session in the other environment');
        const here = await laptop.authenticate(envAuth(main));
        expectStatus(t, here, 200, 'while its own environment, by its prefixed path, accepts it');
        const cross = await http(base, 'GET', `${envAuth(other)}/get-session`, { token: String(json(here).token) });
        t.equal(cross.body, null, 'and its token means nothing in the other environment');
      });

      await t.test('a tampered challenge, a replay', async (t) => {
        await laptop.call('POST', `${AUTH}/sign-out`);
        const tampered = await laptop.authenticate(AUTH, { tamper: true });
        t.equal(tampered.step, undefined, 'the authenticator signed the other challenge');
        expectStatus(t, tampered, 400, 'an assertion over another challenge is refused');
        t.equal(json(tampered).error?.details?.reason, 'AUTHENTICATION_FAILED');
        t.notOk(tampered.token, 'no token');
        t.equal(json(await laptop.call('GET', `${AUTH}/get-session`)).session, undefined, 'no session');

        const good = await laptop.authenticate(AUTH);
        expectStatus(t, good, 200, 'a fresh ceremony works');
        const replay = await laptop.call('POST', `${AUTH}/passkey/verify-authentication`, { response: good.assertion });
        expectStatus(t, replay, 400, 'the same assertion again is refused: its challenge is spent');
        t.equal(json(replay).error?.details?.reason, 'CHALLENGE_NOT_FOUND');
        const noCookie = await http(base, 'POST', `${AUTH}/passkey/verify-authentication`, { body: { response: good.assertion } });
        t.equal(noCookie.status, 400, 'and without the challenge cookie');
        t.notOk(noCookie.token, 'no token');
      });
    });
  });

  await t.test('user verification is required by default', async (t) => {
    await eachBackend(t, ['main'], async (t, site) => {
      const strict = await listening(site);
      const context = await browser.newContext();
      t.teardown(() => context.close());
      const key = await passkeyPage(context, strict.base);
      expectStatus(t, await key.call('POST', `${AUTH}/sign-in`, ADMIN), 200, 'signed in with the password');
      expectStatus(t, await key.register(AUTH, 'laptop'), 200, 'a passkey is registered');
      await key.call('POST', `${AUTH}/sign-out`);

      // A client may ask the authenticator not to verify the user: the assertion then says so.
      const unverified = await key.authenticate(AUTH, { userVerification: 'discouraged' });
      t.equal(unverified.step, undefined, 'the authenticator signed without verifying the user');
      expectStatus(t, unverified, 401, 'refused by default');
      t.equal(json(unverified).error?.details?.reason, 'USER_VERIFICATION_REQUIRED');
      t.notOk(unverified.token, 'no token');
      expectStatus(t, await key.authenticate(AUTH), 200, 'a verified assertion of the same passkey signs in');

      const lax = await listening(site, { passkeys: { enabled: true, requireUserVerification: false } });
      await key.goto(lax.base);
      await key.call('POST', `${AUTH}/sign-out`);
      expectStatus(t, await key.authenticate(AUTH, { userVerification: 'discouraged' }), 200, 'accepted where verification is turned off');

      await key.goto(strict.base);
      expectStatus(t, await key.call('POST', `${AUTH}/sign-in`, ADMIN), 200, 'signed in with the password');
      const noUv = await passkeyPage(context, strict.base, { hasUserVerification: false, isUserVerified: false });
      const register = await noUv.register(AUTH, 'security key');
      t.equal(register.step, 'create', 'registration asks for user verification, which this authenticator cannot give');
      t.match(register.error, /NotAllowedError/, 'the browser refuses');
    });
  });
}
