/** The before/after summaries of audit events: secrets dropped by exact names and endings, every cut marked. */
import t from 'tap';
import { isSecretField, summarize } from '../../plugins/audit/summarize.ts';

t.test('every field that names a secret is dropped, at any depth', async (t) => {
  const out = summarize({
    name: 'ops', password: 'p1', newPassword: 'p2', currentPassword: 'p3', token: 't1', apiKey: 'k1', key: 'k2', secret_key: 'k3',
    client_secret: 's1', hash: 'h1', backupCodes: ['c1'], code: '123456', nested: { sessionToken: 't2', label: 'L', deeper: { otp: '1' } },
    list: [{ authorization: 'Bearer x', id: 1 }], started: 'osk_abcdef',
  });
  t.same(out, { name: 'ops', nested: { label: 'L', deeper: {} }, list: [{ id: 1 }], started: '[hidden]' });
  t.notOk(JSON.stringify(out).match(/p1|p2|p3|t1|t2|k1|k2|k3|s1|h1|c1|123456|Bearer|osk_/), 'none of the secret values is left');
});

t.test('secret names and endings, however they are written', async (t) => {
  const secrets = [
    'password', 'PASSWORD', 'smtpPassword', 'smtp_password', 'newpassword', 'passwd', 'passphrase', 'secret', 'clientSecret', 'client-secret', 'webhook_secrets',
    'token', 'refresh_token', 'accessToken', 'idToken', 'apiKey', 'api_key', 'X-API-KEY', 'smtpApiKey', 'privateKey', 'secret_key', 'accessKey', 'signingKey',
    'key', 'code', 'pin', 'userPin', 'otp', 'hash', 'passwordHash', 'salt', 'user_salt', 'jwt', 'cookie', 'sessionCookie', 'authorization', 'signature',
    'credential', 'credentials', 'backupCodes', 'recovery_codes', 'verificationCode', 'authorizationCode', 'deviceCode', 'totpURI', 'ciphertext',
  ];
  for (const name of secrets) t.ok(isSecretField(name), `${name} is a secret`);
  const plain = [
    'postcode', 'country_code', 'statusCode', 'codename', 'tokenCount', 'tokensUsed', 'passwordChangedAt', 'password_policy', 'passenger', 'keyboard', 'monkey',
    'sortKey', 'keys', 'changedKeys', 'hashtag', 'basalt', 'secretary', 'pinned', 'spinner', 'otpEnabled', 'cookieConsent', 'signatureRequired', 'name', 'email', 'id',
  ];
  for (const name of plain) t.notOk(isSecretField(name), `${name} is not a secret`);
  t.same(summarize({ postcode: '10115', country_code: 'DE', tokenCount: 3, passwordChangedAt: '2026-01-01', passenger: 'Ann', hashtag: '#ops', secretary: 'Bob' }),
    { postcode: '10115', country_code: 'DE', tokenCount: 3, passwordChangedAt: '2026-01-01', passenger: 'Ann', hashtag: '#ops', secretary: 'Bob' }, 'kept whole');
});

t.test('a dotted name is a secret when any part is', async (t) => {
  t.same(summarize({ 'smtp.password': 'p1', 'smtp.host': 'mail.example.com', 'auth.token.value': 't1', 'ai.providers.openai.apiKey': 'k1', 'code.style': 'x' }), { 'smtp.host': 'mail.example.com' });
  t.notOk(isSecretField('smtp.port'));
  t.ok(isSecretField('providers.github.clientSecret'));
});

t.test('a true/false flag holds no secret and stays', async (t) => {
  t.same(summarize({ email: 'a@example.com', mustChangePassword: true, password: 'p1', revokeOtherSessions: false, tokenRevoked: true }),
    { email: 'a@example.com', mustChangePassword: true, revokeOtherSessions: false, tokenRevoked: true });
});

t.test('every cut is marked', async (t) => {
  const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i]));
  const out = summarize(wide)!;
  t.equal(Object.keys(out).length, 31, '30 keys and the mark');
  t.equal(out['…'], '[cut: 70 more keys]');
  t.equal(out.f29, 29);
  t.equal(out.f30, undefined);
  t.same(summarize({ a: 1, password: 'x' }), { a: 1 }, 'a dropped secret is not a cut');
  t.same(summarize({ text: 'x'.repeat(1000) }), { text: `${'x'.repeat(200)}…[cut: 1000 characters]` });
  t.same(summarize({ text: 'y'.repeat(200) }), { text: 'y'.repeat(200) }, 'a text of the limit is whole');
  t.same(summarize({ list: Array.from({ length: 25 }, (_, i) => i) }), { list: [...Array.from({ length: 20 }, (_, i) => i), '[cut: 5 more items]'] });
  t.same(summarize({ a: { b: { c: { d: 1 } } } }), { a: { b: { c: '[cut: nested]' } } }, 'depth is bounded');
  t.same(summarize({ a: { b: { c: 'flat', n: 2 } } }), { a: { b: { c: 'flat', n: 2 } } }, 'scalars at the last level stay');
  t.equal(summarize(null), null);
});
