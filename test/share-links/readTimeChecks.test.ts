/**
 * Share links are checked again at every read, on both drivers: a field hidden from the creator
 * after the link was made is no longer served (and comes back when the grant goes); object access
 * the creator held when making the link and lost since answers the one 404; a stored link to an
 * object the API does not serve for reads by id is not served; an expired link made by an account
 * an administrator provisioned answers exactly the documented 404.
 */
import t from 'tap';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { SHARE_LINK } from '../../plugins/share-links/createShareLinks.ts';
import { hashToken, mintToken } from '../../plugins/share-links/shareLinkToken.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

/** The one answer of every link that cannot be read (docs/share-links.md, "Reading a link"). */
const DOCUMENTED_404 = { error: { code: 'NOT_FOUND', message: 'Share link was not found.', details: { what: 'Share link' } } };

t.test('share links: what is served is decided at read time', async (t) => {
  await eachBackend(t, ['links-recheck'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/access/fixtures/app', 'test/share-links/fixtures/app'], plugins: { email: { enabled: false } } } });
    const [env] = site.ids as [string];
    const admin = await signIn(rt);
    const owner = await addUser(rt, admin.token, 'Owner');
    const must = async (token: string, method: string, url: string, payload: unknown, status: number) => {
      const res = await sendAs(rt, token, method, url, payload);
      if (res.status !== status) t.fail(`${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const anonymous = (url: string) => rt.inject({ method: 'GET', url });

    await t.test('a field hidden from the creator after the link was made is not served', async (t) => {
      const doc = await must(owner.token, 'POST', '/api/v1/data/doc', { title: 'DOC-F', region: 'REGION-F' }, 201);
      const link = await must(owner.token, 'POST', `/api/v1/data/doc/${doc.id}/share-links`, { fields: ['title', 'region'] }, 201);
      const before = await anonymous(link.url);
      t.equal(before.statusCode, 200, before.body);
      t.same(before.json().record, { id: doc.id, title: 'DOC-F', region: 'REGION-F' }, 'both chosen fields while the creator reads both');
      t.same(before.json().fields.map((f: { name: string }) => f.name), ['title', 'region']);

      // A read grant on doc.region, held by nobody: from now on only its holders read the field.
      const set = await must(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'region_readers', fields: { 'doc.region': { read: true } } }, 201);
      const own = await sendAs(rt, owner.token, 'GET', `/api/v1/data/doc/${doc.id}`);
      t.notOk('region' in own.body, 'the creator no longer reads region');
      const after = await anonymous(link.url);
      t.equal(after.statusCode, 200, 'the link still reads the record');
      t.same(after.json().record, { id: doc.id, title: 'DOC-F' }, 'the hidden field is not served');
      t.same(after.json().fields, [{ name: 'title', label: 'Title' }], 'nor named among the fields');
      t.notOk(after.body.includes('REGION-F'), 'its value is nowhere in the answer');
      const page = await anonymous(link.pageUrl);
      t.equal(page.statusCode, 200);
      t.notOk(page.body.includes('REGION-F'), 'nor on the page');

      await must(admin.token, 'DELETE', `/api/v1/data/sys_permission_set/${set.id}`, undefined, 204);
      t.same((await anonymous(link.url)).json().record, { id: doc.id, title: 'DOC-F', region: 'REGION-F' }, 'the grant gone, the field is served again');
    });

    await t.test('object access the creator lost after making the link: the one 404', async (t) => {
      const doc = await must(admin.token, 'POST', '/api/v1/data/doc', { title: 'DOC-ADMIN' }, 201);
      t.equal((await sendAs(rt, owner.token, 'GET', `/api/v1/data/doc/${doc.id}`)).status, 404, "the admin's record is hidden from the owner");
      const set = await must(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'doc_viewers', objects: { doc: { viewAll: true } } }, 201);
      const held = await must(admin.token, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: owner.id, permission_set: set.id }, 201);
      const link = await must(owner.token, 'POST', `/api/v1/data/doc/${doc.id}/share-links`, { fields: ['title'] }, 201);
      const read = await anonymous(link.url);
      t.equal(read.statusCode, 200, 'readable while the creator views every doc');
      t.same(read.json().record, { id: doc.id, title: 'DOC-ADMIN' });

      await must(admin.token, 'DELETE', `/api/v1/data/sys_user_permission_set/${held.id}`, undefined, 204);
      const lost = await anonymous(link.url);
      t.equal(lost.statusCode, 404, 'view-all taken away: not found');
      t.same(lost.json(), DOCUMENTED_404, 'the documented body');
      t.notOk(lost.body.includes('DOC-ADMIN'));
      t.equal((await anonymous(link.pageUrl)).statusCode, 404, 'the page too');
    });

    await t.test('a stored link to an object the API does not serve by id: the one 404', async (t) => {
      // Links stored as the plugin stores them, whatever was checked when they were made: the read decides alone.
      const engine = rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const system = { environmentId: env, principal: null, system: true };
      let lastId = '';
      const stored = async (object: string, recordId: string) => {
        const token = mintToken();
        const row = await engine.create(SHARE_LINK, { object, record_id: recordId, fields: null, token_hash: hashToken(token), creator_id: owner.id, expires_at: new Date(Date.now() + 86_400_000).toISOString() }, system);
        lastId = String(row.id);
        return `/api/v1/share-links/${token}`;
      };
      const doc = await must(owner.token, 'POST', '/api/v1/data/doc', { title: 'DOC-S' }, 201);
      const served = await anonymous(await stored('doc', String(doc.id)));
      t.equal(served.statusCode, 200, 'a stored link to a served object reads');
      t.same(served.json().record.title, 'DOC-S');
      const memo = await must(owner.token, 'POST', '/api/v1/data/memo', { title: 'MEMO-S' }, 201);
      t.equal((await sendAs(rt, owner.token, 'GET', `/api/v1/data/memo/${memo.id}`)).status, 405, 'memo has no get in apiMethods');
      const noGet = await anonymous(await stored('memo', String(memo.id)));
      t.equal(noGet.statusCode, 404, 'apiMethods without get: not found');
      t.same(noGet.json(), DOCUMENTED_404);
      const note = await engine.create('internal_note', { title: 'NOTE-S' }, system);
      const internal = await anonymous(await stored('internal_note', String(note.id)));
      t.equal(internal.statusCode, 404, 'apiEnabled false: not found');
      t.notOk(internal.body.includes('NOTE-S'));
      const engineOwned = await anonymous(await stored(SHARE_LINK, lastId));
      t.equal(engineOwned.statusCode, 404, 'an engine-owned object (a link row itself): not found');
      t.notOk(engineOwned.body.includes('token_hash'));
    });

    await t.test('an expired link of a provisioned account answers the documented 404', async (t) => {
      const [row] = await site.query(env, 'select provisioned from sys_user where id = ?', [owner.id]);
      t.ok([true, 1, '1', 't'].includes(row!.provisioned as never), `the owner was made by an administrator (provisioned: ${String(row!.provisioned)})`);
      const doc = await must(owner.token, 'POST', '/api/v1/data/doc', { title: 'DOC-X' }, 201);
      const expiresAt = new Date(Date.now() + 1200);
      const link = await must(owner.token, 'POST', `/api/v1/data/doc/${doc.id}/share-links`, { expiresAt: expiresAt.toISOString() }, 201);
      t.equal((await anonymous(link.url)).statusCode, 200, 'readable until it expires');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now() + 50)));
      const expired = await anonymous(link.url);
      t.equal(expired.statusCode, 404);
      t.same(expired.json(), DOCUMENTED_404, 'exactly the documented body');
      t.equal(expired.headers['cache-control'], 'no-store');
      const page = await anonymous(link.pageUrl);
      t.equal(page.statusCode, 404);
      t.match(page.body, /Link not found/);
      t.notOk(page.body.includes('DOC-X'));
      const listed = await must(owner.token, 'GET', '/api/v1/share-links', undefined, 200);
      t.equal(listed.items.find((l: { id: string }) => l.id === link.id)?.status, 'expired', 'its creator sees it expired');
    });
  });
});
