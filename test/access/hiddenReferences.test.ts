/** A lookup can only name a record its writer may read: a hidden record answers exactly like a missing one, on every write path. */
import t from 'tap';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, type Reply } from './accessWorld.ts';

/** The error body with the id it names replaced, so a hidden and a missing id can be compared byte for byte. */
const withoutId = (reply: Reply, id: string) => JSON.stringify(reply.body).split(id).join('<id>');

t.test('references to records the caller cannot see', async (t) => {
  await eachBackend(t, ['access-refs'], async (t, site) => {
    const w = await buildWorld(t, site);
    // The owner's folder is private: 'other' cannot read it. A deleted folder gives a missing id of the same shape.
    const hidden = w.ids.folder!;
    const gone = (await w.as('admin', 'POST', '/api/v1/data/folder', { name: 'GONE' })).body.id as string;
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/folder/${gone}`)).status, 204, 'the missing folder is deleted');
    t.equal((await w.as('other', 'GET', `/api/v1/data/folder/${hidden}`)).status, 404, 'the owner\'s folder is hidden from other');

    await t.test('create: a hidden id gets the error of a missing one', async (t) => {
      const toHidden = await w.as('other', 'POST', '/api/v1/data/doc', { title: 'REF-HIDDEN', folder: hidden });
      const toMissing = await w.as('other', 'POST', '/api/v1/data/doc', { title: 'REF-HIDDEN', folder: gone });
      t.equal(toMissing.status, 400, 'a missing id is 400');
      t.same(toMissing.body.error.details.errors, [{ path: 'folder', message: `no folder record has id '${gone}'` }], 'naming the field');
      t.equal(toHidden.status, toMissing.status, 'same status');
      t.equal(withoutId(toHidden, hidden), withoutId(toMissing, gone), 'same code, message and details');
      const stored = await w.as('admin', 'GET', `/api/v1/data/doc?where=${encodeURIComponent(JSON.stringify({ title: 'REF-HIDDEN' }))}`);
      t.equal(stored.body.items.length, 0, 'nothing was written');
    });

    await t.test('update: a hidden id gets the error of a missing one; a lookup kept as it was is accepted', async (t) => {
      const toHidden = await w.as('other', 'PATCH', `/api/v1/data/doc/${w.ids.docC}`, { folder: hidden });
      const toMissing = await w.as('other', 'PATCH', `/api/v1/data/doc/${w.ids.docC}`, { folder: gone });
      t.equal(toMissing.status, 400, 'a missing id is 400');
      t.equal(toHidden.status, toMissing.status, 'same status');
      t.equal(withoutId(toHidden, hidden), withoutId(toMissing, gone), 'same code, message and details');
      const docC = await w.as('admin', 'GET', `/api/v1/data/doc/${w.ids.docC}`);
      t.equal(docC.body.folder ?? null, null, 'docC still has no folder');
      // docB was put in the owner's folder by an admin: its holder sends the record back as it reads it.
      const docB = await w.as('other', 'GET', `/api/v1/data/doc/${w.ids.docB}`);
      t.equal(docB.body.folder, hidden, 'docB holds the hidden folder');
      const kept = await w.as('other', 'PATCH', `/api/v1/data/doc/${w.ids.docB}`, { title: 'DOC-B', folder: hidden });
      t.equal(kept.status, 200, JSON.stringify(kept.body));
    });

    await t.test('import: a hidden id gets the error of a missing one, row by row', async (t) => {
      const res = await w.as('other', 'POST', '/api/v1/data/doc/import', {
        format: 'json', atomic: false,
        rows: [{ title: 'IMP-HIDDEN', folder: hidden }, { title: 'IMP-MISSING', folder: gone }, { title: 'IMP-NONE' }],
      });
      t.equal(res.status, 200, JSON.stringify(res.body));
      t.hasStrict(res.body, { total: 3, created: 1, failed: 2 }, 'only the row without a folder is written');
      const [first, second] = res.body.errors as Array<{ row: number }>;
      t.same([first?.row, second?.row], [1, 2]);
      t.equal(JSON.stringify({ ...first, row: 0 }).split(hidden).join('<id>'), JSON.stringify({ ...second, row: 0 }).split(gone).join('<id>'), 'same report');
      t.same(second, { row: 2, code: 'VALIDATION_ERROR', errors: [{ path: 'folder', message: `no folder record has id '${gone}'` }] }, 'the report names the field');
    });

    await t.test('engine work references any record', async (t) => {
      const engine = w.rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const made = await engine.create('doc', { title: 'REF-SYSTEM', folder: hidden }, { environmentId: site.ids[0]!, principal: null, system: true });
      t.equal(made.folder, hidden, 'a system context is not limited to what some user sees');
      await t.rejects(engine.create('doc', { title: 'REF-SYSTEM', folder: gone }, { environmentId: site.ids[0]!, principal: null, system: true }), { code: 'VALIDATION_ERROR' }, 'but the record must exist');
    });

    await t.test('engine work done for a caller (lookupReader) references only what that caller reads, on every write path', async (t) => {
      const engine = w.rt.runtime.kernel.service<DataEngine>('data.engine')!;
      const env = site.ids[0]!;
      const reader = { kind: 'user' as const, userId: w.users.other.id, environmentId: env, isAdmin: false, positions: [], permissionSets: [], permissions: [] };
      const forOther = { environmentId: env, principal: reader, system: true, lookupReader: reader };
      const anonymous = { environmentId: env, principal: null, system: true, lookupReader: null };
      const refused = { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'folder', message: `no folder record has id '${hidden}'` }] } };
      await t.rejects(engine.create('doc', { title: 'READER-CREATE', folder: hidden }, forOther), refused, 'create: a record the reader cannot see is missing');
      await t.rejects(engine.create('doc', { title: 'READER-ANON', folder: hidden }, anonymous), refused, 'an anonymous reader sees none');
      const [outcome] = await engine.createMany('doc', [{ title: 'READER-MANY', folder: hidden }], forOther);
      t.match(outcome?.error, refused, 'createMany: refused too');
      const made = await engine.create('doc', { title: 'READER-PLAIN' }, forOther);
      await t.rejects(engine.update('doc', String(made.id), { folder: hidden }, {}, forOther), refused, 'update: refused too');
      const mine = await engine.create('folder', { name: 'READER-FOLDER', owner_id: w.users.other.id }, { environmentId: env, principal: null, system: true });
      const linked = await engine.update('doc', String(made.id), { folder: mine.id }, {}, forOther);
      t.equal(linked.folder, mine.id, 'a record the reader sees is accepted');
    });

    await t.test('a visible id is accepted: own, shared, and for whoever may read it', async (t) => {
      const own = await w.as('other', 'POST', '/api/v1/data/folder', { name: 'OTHER-FOLDER' });
      t.equal(own.status, 201);
      const toOwn = await w.as('other', 'POST', '/api/v1/data/doc', { title: 'REF-OWN', folder: own.body.id });
      t.same({ status: toOwn.status, folder: toOwn.body.folder }, { status: 201, folder: own.body.id });
      const byOwner = await w.as('owner', 'POST', '/api/v1/data/doc', { title: 'REF-OWNER', folder: hidden });
      t.same({ status: byOwner.status, folder: byOwner.body.folder }, { status: 201, folder: hidden }, 'the folder\'s owner may reference it');
      const byAdmin = await w.as('admin', 'PATCH', `/api/v1/data/doc/${w.ids.docC}`, { folder: hidden });
      t.equal(byAdmin.status, 200, 'an admin reads every folder');
      const share = await w.as('owner', 'POST', `/api/v1/data/folder/${hidden}/shares`, { recipient_type: 'user', recipient_id: w.users.other.id, access: 'read' });
      t.equal(share.status, 201, JSON.stringify(share.body));
      const shared = await w.as('other', 'POST', '/api/v1/data/doc', { title: 'REF-SHARED', folder: hidden });
      t.same({ status: shared.status, folder: shared.body.folder }, { status: 201, folder: hidden }, 'a read share opens the folder to references');
      const imported = await w.as('other', 'POST', '/api/v1/data/doc/import', { format: 'json', rows: [{ title: 'IMP-SHARED', folder: hidden }] });
      t.hasStrict(imported.body, { total: 1, created: 1, failed: 0 }, 'and to imports');
    });
  });
});
