/** API keys: minted with the osk_ prefix, shown once, stored hashed, revocable, expiring. */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { bearer, eachBackend, signIn } from './authHarness.ts';

t.test('api keys', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const [env] = site.ids as [string];
    const admin = await signIn(rt);

    await t.test('minted with the osk_ prefix, the secret shown once and stored hashed', async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin.token), payload: { name: 'ci' } });
      t.equal(res.statusCode, 201);
      const key = res.json();
      t.match(key, { name: 'ci', expiresAt: null, lastUsedAt: null });
      t.match(key.key, /^osk_[A-Za-z0-9]{40,}$/);
      t.equal(key.start, key.key.slice(0, 8), 'only the first characters are kept visible');

      const dump = await site.dump(env);
      t.notOk(dump.includes(key.key), 'the secret is nowhere in the database');
      t.notOk(dump.includes(key.key.slice(8)), 'not even without its visible start');
      const rows = await site.query(env, 'select key from sys_api_key where id = ?', [key.id]);
      t.equal(rows.length, 1, 'the key is stored in sys_api_key');
      t.not(rows[0]!.key, key.key, 'as a hash');

      for (const headers of [{ 'x-api-key': key.key }, bearer(key.key)]) {
        const list = await rt.inject({ url: '/api/v1/keys', headers });
        t.equal(list.statusCode, 200, `works as ${Object.keys(headers)[0]}`);
        t.notOk(list.body.includes(key.key), 'the list never shows a secret');
        t.match(list.json().items.find((k: { id: string }) => k.id === key.id), { id: key.id, name: 'ci', start: key.start });
      }
      const session = await rt.inject({ url: '/api/v1/auth/get-session', headers: { 'x-api-key': key.key } });
      t.equal(session.body, 'null', 'a key is not a session of the engine');
    });

    await t.test("a key acts as its owner, and cannot mint keys", async (t) => {
      const key = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin.token), payload: {} })).json().key as string;
      const create = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: { 'x-api-key': key }, payload: { email: 'by-key@example.com' } });
      t.equal(create.statusCode, 201, "the admin's key has the admin's rights");
      const mint = await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: { 'x-api-key': key }, payload: {} });
      t.equal(mint.statusCode, 403);
      t.match(mint.json(), { error: { code: 'PERMISSION_DENIED', details: { permission: 'keys:mint' } } });
    });

    await t.test('revoked: 401 at once; only the owner can revoke', async (t) => {
      const minted = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin.token), payload: { name: 'short' } })).json();
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } })).statusCode, 200, 'works (and is cached)');
      await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { email: 'other@example.com', password: 'other-password-1' } });
      const other = await signIn(rt, 'other@example.com', 'other-password-1');
      const foreign = await rt.inject({ method: 'DELETE', url: `/api/v1/keys/${minted.id}`, headers: bearer(other.token) });
      t.equal(foreign.statusCode, 404, "someone else's key is not found");
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } })).statusCode, 200, 'still valid');

      const revoke = await rt.inject({ method: 'DELETE', url: `/api/v1/keys/${minted.id}`, headers: bearer(admin.token) });
      t.equal(revoke.statusCode, 204);
      const after = await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } });
      t.equal(after.statusCode, 401, 'refused right after revocation');
      t.equal((await rt.inject({ method: 'DELETE', url: `/api/v1/keys/${minted.id}`, headers: bearer(admin.token) })).statusCode, 404, 'gone');
    });

    await t.test('expired: 401', async (t) => {
      const minted = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin.token), payload: { expiresIn: 1 } })).json();
      t.ok(Date.parse(minted.expiresAt) - Date.now() <= 1000, 'expires within a second');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } })).statusCode, 200, 'valid at first (and cached)');
      await sleep(1200);
      const res = await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': minted.key } });
      t.equal(res.statusCode, 401, 'refused once expired, cache or not');
    });

    await t.test('bad input and anonymous callers', async (t) => {
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/keys', payload: {} })).statusCode, 401, 'anonymous');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { 'x-api-key': 'osk_not-a-real-key' } })).statusCode, 401, 'unknown key');
      const bad = await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(admin.token), payload: { expiresIn: 0 } });
      t.equal(bad.statusCode, 400);
      t.equal(bad.json().error.code, 'VALIDATION_ERROR');
    });
  });
});
