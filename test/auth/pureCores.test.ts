/** The pure parts of identity, without a server. */
import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import { isCodedError } from '../../kernel/errors.ts';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { allowedWhilePasswordExpired, enginePath, rateFamilyOf } from '../../plugins/auth/authPaths.ts';
import { credentialKey, readCredential } from '../../plugins/auth/credentials.ts';
import { parseCsv } from '../../plugins/auth/import/parseCsv.ts';
import { normalizePhone, normalizeRow } from '../../plugins/auth/import/normalizeRow.ts';
import { mapAuthError } from '../../plugins/auth/mapAuthError.ts';
import { PrincipalCache } from '../../plugins/auth/principalCache.ts';
import { RateLimiter } from '../../plugins/auth/rateLimiter.ts';
import { isTrustedOrigin } from '../../plugins/auth/trustedOrigins.ts';

t.test('parseCsv', async (t) => {
  t.same(parseCsv('\uFEFFemail,name\r\na@x.com,"Doe, ""J"""\r\n\r\nb@x.com,\n'), [['email', 'name'], ['a@x.com', 'Doe, "J"'], ['b@x.com', '']]);
  t.same(parseCsv('email;name\na@x.com;A'), [['email', 'name'], ['a@x.com', 'A']], 'semicolons when the header has no comma');
  t.same(parseCsv('name\n"multi\nline"'), [['name'], ['multi\nline']]);
  t.same(parseCsv(''), []);
});

t.test('trusted origins', async (t) => {
  const own = 'http://localhost:3000';
  t.ok(isTrustedOrigin('http://localhost:3000', own, []), 'own origin');
  t.notOk(isTrustedOrigin('http://localhost:3001', own, []), 'another port');
  t.ok(isTrustedOrigin('https://app.example.com', own, ['https://app.example.com/']));
  t.ok(isTrustedOrigin('https://a.b.example.com', own, ['https://*.example.com']), 'wildcard subdomains');
  t.notOk(isTrustedOrigin('https://example.com.evil.io', own, ['https://*.example.com']), 'no suffix tricks');
  t.notOk(isTrustedOrigin('http://a.example.com', own, ['https://*.example.com']), 'scheme counts');
  t.notOk(isTrustedOrigin('null', own, ['null']), 'the null origin never');
});

t.test('readCredential reads only real credentials', async (t) => {
  const cookie = 'osr-a.session_token';
  t.same(readCredential({ 'x-api-key': 'osk_abc' }, cookie), { kind: 'apiKey', key: 'osk_abc' });
  t.same(readCredential({ authorization: 'Bearer osk_abc' }, cookie), { kind: 'apiKey', key: 'osk_abc' });
  t.same(readCredential({ authorization: 'bearer tok.sig' }, cookie), { kind: 'bearer', token: 'tok.sig' });
  t.same(readCredential({ cookie: `other=1; ${cookie}=v%2B1` }, cookie), { kind: 'cookie', value: 'v%2B1' });
  t.equal(readCredential({ cookie: 'osr-b.session_token=x' }, cookie), null, "another environment's cookie");
  t.equal(readCredential({ authorization: 'Basic abc', cookie: `${cookie}=v` }, cookie), null, 'a foreign scheme does not fall back');
  t.equal(readCredential({ 'x-user-id': 'u1' } as never, cookie), null);
  t.not(credentialKey({ kind: 'bearer', token: 'x' }), credentialKey({ kind: 'cookie', value: 'x' }));
});

t.test('engine paths', async (t) => {
  t.equal(enginePath('http://h/api/v1/auth/sign-in/email?x=1'), '/sign-in/email');
  t.equal(enginePath('http://h/api/v1/authx'), null);
  t.equal(rateFamilyOf('/sign-in/email'), 'signIn');
  t.equal(rateFamilyOf('/reset-password/abc'), 'passwordReset');
  t.equal(rateFamilyOf('/verify-email'), 'verification');
  t.equal(rateFamilyOf('/get-session'), null);
  for (const path of ['/change-password', '/sign-out', '/get-session']) t.ok(allowedWhilePasswordExpired(path), path);
  for (const path of ['/update-user', '/list-sessions', '/admin/list-users', '/change-email', '/change-password-now']) t.notOk(allowedWhilePasswordExpired(path), path);
});

t.test('mapAuthError', async (t) => {
  const cases: Array<[number, string | undefined, string]> = [
    [400, 'INVALID_EMAIL', 'VALIDATION_ERROR'], [401, 'INVALID_EMAIL_OR_PASSWORD', 'UNAUTHENTICATED'], [403, 'BANNED_USER', 'PERMISSION_DENIED'],
    [404, 'USER_NOT_FOUND', 'NOT_FOUND'], [404, undefined, 'ROUTE_NOT_FOUND'], [409, 'X', 'CONFLICT'], [429, undefined, 'RATE_LIMITED'],
  ];
  for (const [status, code, expected] of cases) {
    const error = mapAuthError({ status, code, message: 'Something', retryAfter: 7 });
    t.ok(isCodedError(error) && error.code === expected, `${status} ${code ?? ''} -> ${expected}`);
    if (code && isCodedError(error)) t.equal(error.details.reason, code, 'the engine code is kept');
  }
  const limited = mapAuthError({ status: 429, retryAfter: 7 });
  t.ok(isCodedError(limited) && limited.details.retryAfter === 7);
  t.notOk(isCodedError(mapAuthError({ status: 500, code: 'X' })), '5xx is an internal error, logged by the server');
});

t.test('RateLimiter', async (t) => {
  let now = 0;
  const options = authOptionsSchema.parse({ rateLimit: { signIn: { perIp: { max: 2, windowSeconds: 10 }, perAccount: { max: 5, windowSeconds: 10 } } } }).rateLimit;
  const limiter = new RateLimiter(options, () => now);
  const hit = () => limiter.hit('signIn', { environmentId: 'e', ip: '1.1.1.1', account: 'A@x' });
  await hit();
  await hit();
  const error = await hit().then(() => null, (e: unknown) => e);
  t.ok(isCodedError(error) && error.code === 'RATE_LIMITED' && error.details.retryAfter === 10);
  now = 9_500;
  await t.rejects(hit(), { code: 'RATE_LIMITED' }, 'still within the window');
  now = 10_000;
  await t.resolves(hit(), 'a new window');
  const off = new RateLimiter({ ...options, enabled: false });
  for (let i = 0; i < 10; i++) await off.hit('signIn', { environmentId: 'e', ip: '1', account: 'a' });
  t.pass('disabled: never limits');
});

t.test('PrincipalCache', async (t) => {
  let now = 1_000;
  const principal = { kind: 'user', userId: 'u', environmentId: 'e', isAdmin: false, positions: [], permissionSets: [], permissions: [] } as Principal;
  const cache = new PrincipalCache(5_000, 2, () => now);
  cache.set('e', 'k', principal, 3_000, cache.mark());
  t.equal(cache.get('e', 'k')?.userId, 'u');
  // Every request presenting the credential shares the remembered principal: none may change it.
  const shared = cache.get('e', 'k')!;
  t.equal(cache.get('e', 'k'), shared, 'the same principal on every hit');
  t.throws(() => shared.permissions.push('ai:chat'), TypeError, 'its permission keys are frozen');
  t.throws(() => shared.positions.push('manager'), TypeError, 'its positions are frozen');
  t.throws(() => {
    (shared as { isAdmin: boolean }).isAdmin = true;
  }, TypeError, 'and so is the principal');
  t.same([shared.isAdmin, shared.permissions, shared.positions], [false, [], []], 'as verified');
  t.equal(cache.get('other', 'k'), undefined, 'per environment');
  now = 3_000;
  t.equal(cache.get('e', 'k'), undefined, 'never past the credential expiry');
  cache.set('e', 'k', principal, null, cache.mark());
  cache.clear('e');
  t.equal(cache.get('e', 'k'), undefined, 'cleared');
  const none = new PrincipalCache(0);
  none.set('e', 'k', principal, null, none.mark());
  t.equal(none.get('e', 'k'), undefined, 'TTL 0 caches nothing');
});

t.test('import rows', async (t) => {
  t.equal(normalizePhone('+49 (151) 123-4567'), '+491511234567');
  t.equal(normalizePhone('0151 1234567'), null, 'a local number is refused');
  t.same(normalizeRow({ email: 'A@X.com', name: 'A', phone: '', invalid: [] }), { email: 'a@x.com', name: 'A', phone: null, errors: [] });
  t.match(normalizeRow({ email: '', name: '', phone: '', invalid: [] }).errors, [{ field: 'email', message: 'is required (or a phone)' }]);
  t.match(normalizeRow({ email: 'x@phone.invalid', name: '', phone: '', invalid: ['name'] }).errors, [{ field: 'name' }, { field: 'email', message: /reserved/ }]);
});
