/**
 * Share links on both drivers: the chosen fields anonymously, never a field hidden from the creator,
 * one 404 for every link that cannot be read, spoofed identity headers ignored, rate limits, audit
 * events, the lifecycle contract, apiEnabled and apiMethods.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import type { LifecycleRetention } from '../../capabilities/lifecycleRetention.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';
import { NOT_FOUND_FLOOR_MS } from '../../plugins/share-links/shareLinkRoutes.ts';

const RATE_MAX = 60;

t.test('share links', async (t) => {
  await eachBackend(t, ['links', 'links-other'], async (t, site) => {
    const rt = await site.boot({
      config: { apps: ['test/access/fixtures/app', 'test/share-links/fixtures/app'], plugins: { email: { enabled: false }, 'share-links': { rateLimit: { max: RATE_MAX, windowSeconds: 600 } } } },
    });
    const [env, otherEnv] = site.ids as [string, string];
    const admin = await signIn(rt);
    const owner = await addUser(rt, admin.token, 'Owner');
    const other = await addUser(rt, admin.token, 'Other');
    const as = (token: string, method: string, url: string, payload?: unknown) => sendAs(rt, token, method, url, payload);
    const must = async (token: string, method: string, url: string, payload: unknown, status: number) => {
      const res = await as(token, method, url, payload);
      if (res.status !== status) t.fail(`${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const anonymous = (token: string, headers: Record<string, string> = {}) => rt.inject({ method: 'GET', url: `/api/v1/share-links/${token}`, headers });
    const tokens: string[] = [];

    // A field named in a permission set is read only by holders of a set granting it.
    await must(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'auditor', fields: { 'doc.secret': { read: true } } }, 201);
    const docA = await must(owner.token, 'POST', '/api/v1/data/doc', { title: 'DOC-A', region: 'US' }, 201);
    await must(admin.token, 'PATCH', `/api/v1/data/doc/${docA.id}`, { secret: 'SECRET-A' }, 200);
    const mine = await as(owner.token, 'GET', `/api/v1/data/doc/${docA.id}`);
    t.notOk('secret' in mine.body, 'the owner cannot read the secret field');

    let notFound: unknown;
    await t.test('the chosen fields, anonymously; a field hidden from the creator never, even if named', async (t) => {
      const created = await as(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { fields: ['title', 'secret', 'secret_shout'] });
      t.equal(created.status, 201, JSON.stringify(created.body));
      const { id, token, url } = created.body;
      tokens.push(token);
      t.match(token, /^[A-Za-z0-9_-]{43}$/);
      t.equal(url, `/api/v1/share-links/${token}`, 'url is the JSON read');
      t.equal(created.body.apiUrl, url, 'apiUrl, kept, is the same');
      t.equal(created.body.pageUrl, `/api/v1/share-links/${token}/page`, 'pageUrl is the HTML page');
      const byUrl = await rt.inject({ method: 'GET', url });
      t.equal(byUrl.statusCode, 200);
      t.match(byUrl.headers['content-type'], /^application\/json/, 'url answers JSON');
      t.same(created.body.fields, ['title', 'secret', 'secret_shout']);
      const read = await anonymous(token);
      t.equal(read.statusCode, 200, read.body);
      t.same(read.json().record, { id: docA.id, title: 'DOC-A' }, 'title only: secret and its formula are hidden from the creator');
      t.same(read.json().fields, [{ name: 'title', label: 'Title' }]);
      t.notOk(read.body.includes('SECRET-A'), 'the hidden value is nowhere in the answer');
      t.notOk(read.body.includes('US'), 'a field not chosen is not shown');
      t.equal(read.headers['cache-control'], 'no-store');
      t.equal(read.headers['referrer-policy'], 'no-referrer');

      const spoofed = await anonymous(token, { 'x-user-id': String(admin.user.id), 'x-user-roles': 'admin', 'x-forwarded-user': String(admin.user.id), authorization: `Bearer ${admin.token}` });
      t.equal(spoofed.statusCode, 200);
      t.same(spoofed.json(), read.json(), 'identity headers, even an admin credential, change nothing');

      const stored = await site.query(env, 'select * from sys_share_link where id = ?', [id]);
      t.equal(stored[0]!.token_hash, createHash('sha256').update(token).digest('hex'), 'stored as its SHA-256');
      t.notOk(JSON.stringify(stored).includes(token), 'the token itself is not stored');

      const every = await must(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, {}, 201);
      tokens.push(every.token);
      const all = (await anonymous(every.token)).json();
      t.match(all.record, { id: docA.id, title: 'DOC-A', region: 'US' }, 'no fields: every field the creator reads');
      t.notOk('secret' in all.record, 'but never the hidden one');
    });

    await t.test('the HTML page: read-only, no script, strict policy', async (t) => {
      const page = await rt.inject({ method: 'GET', url: `/api/v1/share-links/${tokens[0]}/page` });
      t.equal(page.statusCode, 200);
      t.match(page.headers['content-type'], /^text\/html/);
      const csp = String(page.headers['content-security-policy']);
      t.match(csp, /default-src 'none'/);
      t.match(csp, /frame-ancestors 'none'/);
      t.notMatch(csp, /unsafe-inline|unsafe-eval|script-src/, 'no script source is allowed at all');
      t.match(page.body, /DOC-A/);
      t.notMatch(page.body, /<script|SECRET-A|<form/i);
      const missing = await rt.inject({ method: 'GET', url: `/api/v1/share-links/${randomBytes(32).toString('base64url')}/page` });
      t.equal(missing.statusCode, 404);
      t.match(missing.body, /Link not found/);
    });

    await t.test('every link that cannot be read: the same 404', async (t) => {
      const bodies: Array<[string, number, string]> = [];
      const check = async (cause: string, token: string, url = `/api/v1/share-links/${token}`) => {
        const started = Date.now();
        const res = await rt.inject({ method: 'GET', url });
        const took = Date.now() - started;
        bodies.push([cause, res.statusCode, res.body]);
        t.ok(took >= NOT_FOUND_FLOOR_MS - 2, `${cause}: answered after the floor (${took} ms)`);
      };
      await check('random token', randomBytes(32).toString('base64url'));
      await check('malformed token', 'abc');

      // Revoked.
      const revoked = await must(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { fields: ['title'] }, 201);
      tokens.push(revoked.token);
      t.equal((await as(other.token, 'DELETE', `/api/v1/share-links/${revoked.id}`)).status, 404, "another user cannot revoke someone's link");
      t.equal((await anonymous(revoked.token)).statusCode, 200, 'still readable');
      await must(owner.token, 'DELETE', `/api/v1/share-links/${revoked.id}`, undefined, 204);
      await check('revoked', revoked.token);

      // Expired.
      const expiresAt = new Date(Date.now() + 1500);
      const expiring = await must(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { expiresAt: expiresAt.toISOString() }, 201);
      tokens.push(expiring.token);
      t.equal((await anonymous(expiring.token)).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now() + 50)));
      await check('expired', expiring.token);

      // The creator loses access: a record shared with her, then the share removed.
      const docB = await must(admin.token, 'POST', '/api/v1/data/doc', { title: 'DOC-B' }, 201);
      const share = await must(admin.token, 'POST', `/api/v1/data/doc/${docB.id}/shares`, { recipient_type: 'user', recipient_id: owner.id }, 201);
      const lost = await must(owner.token, 'POST', `/api/v1/data/doc/${docB.id}/share-links`, { fields: ['title'] }, 201);
      tokens.push(lost.token);
      t.same((await anonymous(lost.token)).json().record, { id: docB.id, title: 'DOC-B' });
      await must(admin.token, 'DELETE', `/api/v1/data/doc/${docB.id}/shares/${share.id}`, undefined, 204);
      await check('creator lost access', lost.token);

      // The creator is banned.
      const docO = await must(other.token, 'POST', '/api/v1/data/doc', { title: 'DOC-O' }, 201);
      const banned = await must(other.token, 'POST', `/api/v1/data/doc/${docO.id}/share-links`, {}, 201);
      tokens.push(banned.token);
      t.equal((await anonymous(banned.token)).statusCode, 200);
      await must(admin.token, 'POST', '/api/v1/auth/admin/ban-user', { userId: other.id }, 200);
      await check('creator banned', banned.token);

      // The record is deleted.
      const docC = await must(owner.token, 'POST', '/api/v1/data/doc', { title: 'DOC-C' }, 201);
      const deleted = await must(owner.token, 'POST', `/api/v1/data/doc/${docC.id}/share-links`, {}, 201);
      tokens.push(deleted.token);
      await must(admin.token, 'DELETE', `/api/v1/data/doc/${docC.id}`, undefined, 204);
      await check('record deleted', deleted.token);

      // Another environment.
      await check('another environment', tokens[0]!, `/api/v1/environments/${otherEnv}/share-links/${tokens[0]}`);

      const [first] = bodies;
      for (const [cause, status, body] of bodies) {
        t.equal(status, 404, `${cause}: 404`);
        t.equal(body, first![2], `${cause}: the same body as a random token`);
      }
      notFound = JSON.parse(first![2]);
      t.match(notFound, { error: { code: 'NOT_FOUND' } });
    });

    await t.test('creation: the creator must read the record; bad input is a 400 naming it', async (t) => {
      const docB = await must(admin.token, 'POST', '/api/v1/data/doc', { title: 'DOC-HIDDEN' }, 201);
      const hidden = await as(owner.token, 'POST', `/api/v1/data/doc/${docB.id}/share-links`, {});
      t.equal(hidden.status, 404, 'a record the caller cannot read cannot be shared');
      const anon = await rt.inject({ method: 'POST', url: `/api/v1/data/doc/${docA.id}/share-links`, payload: {} });
      t.equal(anon.statusCode, 401);
      const spoofedCreate = await rt.inject({ method: 'POST', url: `/api/v1/data/doc/${docA.id}/share-links`, headers: { 'x-user-id': owner.id }, payload: {} });
      t.equal(spoofedCreate.statusCode, 401, 'an x-user-id header is no identity');
      const unknown = await as(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { fields: ['title', 'nope'] });
      t.equal(unknown.status, 400);
      t.equal(unknown.body.error.code, 'SHARE_LINK_INVALID');
      t.same(unknown.body.error.details.errors, [{ path: 'fields.1', message: 'not a field of doc' }]);
      const pastExpiry = await as(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { expiresAt: '2001-01-01T00:00:00Z' });
      t.equal(pastExpiry.status, 400);
      t.equal(pastExpiry.body.error.details.errors[0].path, 'expiresAt');
      const far = await as(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() });
      t.equal(far.status, 400);
      t.match(far.body.error.message, /365 days/);
      const extra = await as(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, { fields: ['title'], creatorId: admin.user.id });
      t.equal(extra.status, 400, 'an unknown key is refused');
    });

    await t.test('apiEnabled and apiMethods apply', async (t) => {
      const memo = await must(owner.token, 'POST', '/api/v1/data/memo', { title: 'M' }, 201);
      const noGet = await as(owner.token, 'POST', `/api/v1/data/memo/${memo.id}/share-links`, {});
      t.equal(noGet.status, 405, 'an object without get in apiMethods cannot be shared');
      t.equal(noGet.body.error.code, 'METHOD_NOT_ALLOWED');
      const off = await as(admin.token, 'POST', '/api/v1/data/internal_note/x1/share-links', {});
      t.equal(off.status, 404, 'an object with apiEnabled false answers like an unknown one');
      const system = await as(admin.token, 'POST', `/api/v1/data/sys_position/x1/share-links`, {});
      t.equal(system.status, 404, 'engine-owned objects are not shared');
    });

    await t.test('listing and revoking: one\'s own; admins list all', async (t) => {
      const own = await as(owner.token, 'GET', '/api/v1/share-links');
      t.equal(own.status, 200);
      t.ok(own.body.items.length >= 5);
      t.ok(own.body.items.every((l: { creatorId: string }) => l.creatorId === owner.id), 'only her links');
      t.ok(own.body.items.some((l: { status: string }) => l.status === 'revoked'));
      t.ok(own.body.items.some((l: { status: string }) => l.status === 'expired'));
      for (const token of tokens) t.notOk(JSON.stringify(own.body).includes(token), 'no token in a listing');
      t.notOk(JSON.stringify(own.body).includes('token_hash'));
      const notAll = await as(owner.token, 'GET', '/api/v1/share-links?all=true');
      t.equal(notAll.status, 403);
      const all = await as(admin.token, 'GET', '/api/v1/share-links?all=true&limit=200');
      t.equal(all.status, 200);
      t.ok(all.body.items.some((l: { creatorId: string }) => l.creatorId === other.id), 'every creator');
      const data = await as(owner.token, 'GET', '/api/v1/data/sys_share_link');
      t.equal(data.status, 403, 'the table is not served to members through /data');
      const write = await as(admin.token, 'POST', '/api/v1/data/sys_share_link', { object: 'doc', record_id: docA.id, token_hash: 'x', creator_id: admin.user.id, expires_at: new Date().toISOString() });
      t.equal(write.status, 403, 'nor written by anyone');
      const adminRevokes = await as(admin.token, 'DELETE', `/api/v1/share-links/${own.body.items.find((l: { status: string }) => l.status === 'active').id}`);
      t.equal(adminRevokes.status, 204, 'an admin revokes any link');
    });

    await t.test('creation and revocation are audited, without the token', async (t) => {
      const rows = await site.query(env, "select * from sys_audit_event where action like 'share_link.%'");
      t.ok(rows.filter((r) => r.action === 'share_link.created').length >= 7);
      t.equal(rows.filter((r) => r.action === 'share_link.revoked').length, 2);
      const created = rows.find((r) => r.action === 'share_link.created')!;
      t.match(created, { actor_id: owner.id, target_type: 'share_link', ip: '127.0.0.1' });
      const dump = JSON.stringify(await site.query(env, 'select * from sys_audit_event'));
      for (const token of tokens) t.notOk(dump.includes(token), 'no token in the audit trail');
    });

    await t.test('the lifecycle contract removes expired links', async (t) => {
      const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
      const stale = await must(owner.token, 'POST', `/api/v1/data/doc/${docA.id}/share-links`, {}, 201);
      await site.query(env, 'update sys_share_link set expires_at = ? where id = ?', [old, stale.id]);
      const lifecycle = rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!;
      const dry = await lifecycle.run({ dryRun: true, environmentId: env });
      t.match(dry.environments[0]!.contracts.find((c) => c.name === 'share-links.expired'), { object: 'sys_share_link', keepDays: 30, rows: 1 });
      await lifecycle.run({ environmentId: env });
      t.same(await site.query(env, 'select id from sys_share_link where id = ?', [stale.id]), [], 'removed');
      t.equal((await site.query(env, 'select id from sys_share_link')).length > 0, true, 'the others stay');
    });

    await t.test('reads are rate-limited per client IP', async (t) => {
      let limited: { statusCode: number; json(): { error: { code: string } } } | null = null;
      let n = 0;
      for (; n < RATE_MAX + 5 && !limited; n++) {
        const res = await anonymous(randomBytes(32).toString('base64url'));
        if (res.statusCode === 429) limited = res;
      }
      t.ok(limited, `429 after ${n} reads`);
      t.equal(limited!.json().error.code, 'RATE_LIMITED');
      t.ok(n <= RATE_MAX + 1);
      const valid = await anonymous(tokens[1]!);
      t.equal(valid.statusCode, 429, 'a valid link too, from that address');
      const page = await rt.inject({ method: 'GET', url: `/api/v1/share-links/${tokens[1]}/page` });
      t.equal(page.statusCode, 429);
    });
  });
});
