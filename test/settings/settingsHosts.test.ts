/**
 * Hosts chosen in settings (docs/settings.md, Hosts chosen in settings): with
 * `plugins.settings.privateHosts: 'deny'` (the default in production) a PUT of any namespace whose
 * values point the runtime at a loopback, private, link-local or unspecified address, or at a name
 * resolving to one, is 400 SETTINGS_HOST_REFUSED naming the path, and nothing is stored; a public
 * address is accepted; with 'allow' (the default elsewhere) the loopback one is accepted. The data
 * path is the same on every driver: SQLite alone.
 */
import t, { type Test } from 'tap';
import { bearer, signIn, sqliteSite } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { isPrivateAddress, privateRangeOf } from '../../plugins/settings/isPrivateAddress.ts';
import { checkSettingsHosts, hostOf } from '../../plugins/settings/settingsHosts.ts';
import { isCodedError } from '../../kernel/errors.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';

t.test('isPrivateAddress: loopback, private, link-local and unspecified, in IPv4, IPv6 and IPv4 inside IPv6', async (t) => {
  const refused = ['127.0.0.1', '127.9.8.7', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '255.255.255.255',
    '::', '::1', '[::1]', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.1.2.3', '64:ff9b::a9fe:a9fe', '::127.0.0.1'];
  for (const ip of refused) t.equal(isPrivateAddress(ip), true, `${ip} is refused`);
  const allowed = ['93.184.215.14', '8.8.8.8', '172.15.255.255', '172.32.0.1', '192.169.0.1', '169.255.0.1', '2606:2800:220:1::1', '::ffff:93.184.215.14', '64:ff9b::808:808', 'localhost', 'mail.example.com'];
  for (const ip of allowed) t.equal(isPrivateAddress(ip), false, `${ip} is not refused (a public address, or not an address)`);
  t.equal(privateRangeOf('169.254.169.254'), 'a link-local address (cloud metadata services answer at 169.254.169.254)');
  t.equal(privateRangeOf('::ffff:127.0.0.1'), 'a loopback address');
  t.equal(privateRangeOf('::'), 'an unspecified address');
  t.equal(privateRangeOf('0.0.0.0'), 'an unspecified ("this network") address');
  t.equal(privateRangeOf('10.0.0.1'), 'a private address');
});

t.test('checkSettingsHosts: each chosen host resolved, a failed or late lookup refused', async (t) => {
  t.same(['https://[::1]:8443/x', 'http://0x7f.1/', 'smtp.example.com', ' [fe80::1] ', 'mailto:x@y', 'https://'].map(hostOf), ['::1', '127.0.0.1', 'smtp.example.com', 'fe80::1', 'mailto:x@y', null]);
  const names: Record<string, string[]> = { 'public.example': ['93.184.215.14'], 'mixed.example': ['93.184.215.14', '10.0.0.7'] };
  const resolve = async (host: string) => {
    if (host === 'slow.example') return new Promise<string[]>(() => undefined);
    const found = names[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };
  const refusal = async (values: Record<string, unknown>, patterns: string[]) => {
    try {
      await checkSettingsHosts(values, patterns, resolve, 50);
      return null;
    } catch (error) {
      if (!isCodedError(error)) throw error;
      return { code: error.code, ...error.details };
    }
  };
  t.equal(await refusal({ smtp: { host: 'public.example' } }, ['smtp.host']), null, 'a name with public addresses only');
  t.equal(await refusal({ smtp: { port: 25 } }, ['smtp.host']), null, 'no host chosen');
  const mixed = await refusal({ providers: [{ id: 'one', baseURL: 'https://public.example/v1' }, { id: 'two', baseURL: 'https://mixed.example/v1' }] }, ['providers.*.baseURL']);
  t.match(mixed, { code: 'SETTINGS_HOST_REFUSED', path: 'providers.two.baseURL', host: 'mixed.example', reason: 'which resolves to 10.0.0.7, a private address' }, 'one private address of several is enough');
  const unknown = await refusal({ smtp: { host: 'nowhere.example' } }, ['smtp.host']);
  t.match(unknown, { code: 'SETTINGS_HOST_REFUSED', path: 'smtp.host', reason: /does not resolve \(ENOTFOUND\)/ }, 'a name that does not resolve cannot be checked');
  const late = await refusal({ smtp: { host: 'slow.example' } }, ['smtp.host']);
  t.match(late, { code: 'SETTINGS_HOST_REFUSED', reason: /does not resolve \(ETIMEOUT\)/ }, 'a lookup past the bound is refused');
  const both = await refusal({ twilio: { baseUrl: 'https://127.0.0.1' }, vonage: { baseUrl: 'https://[::ffff:169.254.169.254]' } }, ['twilio.baseUrl', 'vonage.baseUrl']);
  t.same((both as { errors?: unknown } | null)?.errors, [
    { path: 'twilio.baseUrl', message: "host '127.0.0.1' which is a loopback address" },
    { path: 'vonage.baseUrl', message: "host '::ffff:a9fe:a9fe' which is a link-local address (cloud metadata services answer at 169.254.169.254)" },
  ], 'every refused path is listed');
});

/** A body of each namespace choosing `host` (a bare host or a URL's host part). */
const bodies = (host: string): Record<'email' | 'sms' | 'auth' | 'ai', { body: unknown; path: string }> => ({
  email: { body: { provider: 'smtp', from: 'noreply@tenant.example', smtp: { host, port: 2525 } }, path: 'smtp.host' },
  sms: { body: { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: `https://${host.includes(':') ? `[${host}]` : host}`, accountSid: SID, authToken: 'tenant-token' } }, path: 'twilio.baseUrl' },
  auth: { body: { oidcProviders: [{ id: 'tenant-sso', name: 'Tenant SSO', clientId: 'osr', clientSecret: 'tenant-secret', discoveryUrl: `https://${host.includes(':') ? `[${host}]` : host}/.well-known/openid-configuration` }] }, path: 'oidcProviders.tenant-sso.discoveryUrl' },
  ai: { body: { providers: [{ id: 'local', baseURL: `http://${host.includes(':') ? `[${host}]` : host}:11434/v1`, models: ['m1'] }] }, path: 'providers.local.baseURL' },
});

async function world(t: Test, privateHosts: 'deny' | 'allow' | undefined, env: NodeJS.ProcessEnv = {}) {
  const site = sqliteSite(t, ['hosts']);
  const rt: TestRuntime = await site.boot({
    env,
    // Production wants the public origin for links in mails.
    config: { apps: [], sms: { provider: 'log' }, plugins: { auth: { baseURL: 'https://app.example.com' }, email: { provider: 'log' }, ai: { providers: [] }, ...(privateHosts ? { settings: { privateHosts } } : {}) } },
  });
  const admin = (await signIn(rt)).token;
  const put = (namespace: string, payload: unknown) => rt.inject({ method: 'PUT', url: `/api/v1/settings/${namespace}`, headers: bearer(admin), payload: payload as object });
  const revision = async (namespace: string) => (await rt.inject({ url: `/api/v1/settings/${namespace}`, headers: bearer(admin) })).json().revision as number;
  return { put, revision };
}

t.test("privateHosts 'deny': a host of the operator's network is refused in every namespace, naming the path; a public one is accepted", async (t) => {
  const { put, revision } = await world(t, 'deny');
  for (const host of ['127.0.0.1', '169.254.169.254', '::1', 'localhost']) {
    for (const [namespace, { body, path }] of Object.entries(bodies(host))) {
      const res = await put(namespace, body);
      t.equal(res.statusCode, 400, `${namespace} at ${host}: 400`);
      t.equal(res.json().error.code, 'SETTINGS_HOST_REFUSED');
      t.equal(res.json().error.details.path, path, `names ${path}`);
      t.match(res.json().error.message, /ask the operator to set plugins\.settings\.privateHosts: 'allow'/, 'says what to do');
    }
  }
  for (const namespace of ['email', 'sms', 'auth', 'ai']) t.equal(await revision(namespace), 0, `${namespace}: nothing was stored`);
  const metadata = await put('ai', bodies('169.254.169.254').ai.body);
  t.match(metadata.json().error.details.reason, /link-local address \(cloud metadata/, 'the reason names the range');
  const named = await put('email', bodies('localhost').email.body);
  t.match(named.json().error.details.reason, /^which resolves to (127\.0\.0\.1|::1), a loopback address$/, 'a name is judged by its addresses');
  const unresolved = await put('email', bodies('nowhere.invalid').email.body);
  t.same([unresolved.statusCode, unresolved.json().error.details.path], [400, 'smtp.host'], 'a name that does not resolve is refused');
  t.match(unresolved.json().error.details.reason, /does not resolve/);
  const mapped = await put('ai', { providers: [{ id: 'local', baseURL: 'http://[::ffff:127.0.0.1]:11434/v1', models: ['m1'] }] });
  t.same([mapped.statusCode, mapped.json().error.details.reason], [400, 'which is a loopback address'], 'an IPv4-mapped IPv6 address is judged as its IPv4 address');

  for (const [namespace, { body }] of Object.entries(bodies('93.184.215.14'))) {
    const res = await put(namespace, body);
    t.equal(res.statusCode, 200, `${namespace} at a public address: accepted (${res.body.slice(0, 200)})`);
    t.equal(res.json().revision, 1, `${namespace}: stored`);
  }
});

t.test("privateHosts 'allow': the loopback host is accepted", async (t) => {
  const { put } = await world(t, 'allow');
  for (const [namespace, { body }] of Object.entries(bodies('127.0.0.1'))) {
    const res = await put(namespace, body);
    t.same([res.statusCode, res.json().revision], [200, 1], `${namespace} at 127.0.0.1: accepted`);
  }
});

t.test("the default: 'deny' in production, 'allow' elsewhere", async (t) => {
  const development = await world(t, undefined);
  t.equal((await development.put('email', bodies('127.0.0.1').email.body)).statusCode, 200, 'outside production a local mail catcher may be chosen');
  const production = await world(t, undefined, { NODE_ENV: 'production' });
  const res = await production.put('email', bodies('127.0.0.1').email.body);
  t.same([res.statusCode, res.json().error?.code, res.json().error?.details?.path], [400, 'SETTINGS_HOST_REFUSED', 'smtp.host'], 'in production it is refused');
  t.equal(await production.revision('email'), 0, 'nothing was stored');
});
