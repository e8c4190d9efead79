import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { recordsWorld } from './recordsWorld.ts';

/**
 * visibleWhen, readonlyWhen and requiredWhen through /data, batch and import, on both drivers: a
 * write breaking one is a 400 naming the field, a field not visible for a record is left out of
 * every read of it, and the metadata API reports the rules.
 */

const paths = (body: any) => (body?.error?.details?.errors ?? []).map((e: { path: string }) => e.path); // eslint-disable-line @typescript-eslint/no-explicit-any

t.test('conditional field rules', async (t) => {
  await eachBackend(t, ['conditions'], async (t, site) => {
    const w = await recordsWorld(t, site);

    // requiredWhen: a lost deal needs its close reason.
    const missing = await w.as('m1', 'POST', '/api/v1/data/deal', { title: 'D1', stage: 'lost' });
    t.equal(missing.status, 400);
    t.equal(missing.body.error.code, 'VALIDATION_ERROR');
    t.same(missing.body.error.details.errors, [{ path: 'close_reason', message: "is required for this record (requiredWhen: record.stage == 'lost')" }]);

    // visibleWhen on write: an open deal has no close reason to write.
    const invisible = await w.as('m1', 'POST', '/api/v1/data/deal', { title: 'D1', close_reason: 'price' });
    t.equal(invisible.status, 400);
    t.same(invisible.body.error.details.errors, [{ path: 'close_reason', message: "cannot be written: it is not visible for this record (visibleWhen: record.stage == 'lost')" }]);

    const lost = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'LOST-1', stage: 'lost', close_reason: 'REASON-PRICE' }));
    t.equal(lost.close_reason, 'REASON-PRICE', 'visible on a lost deal');
    t.equal((await w.must(w.as('m1', 'GET', `/api/v1/data/deal/${lost.id}`), 200)).close_reason, 'REASON-PRICE');

    // Reopened: the stored reason is no longer visible, in any read path.
    const reopened = await w.must(w.as('m1', 'PATCH', `/api/v1/data/deal/${lost.id}`, { stage: 'open' }), 200);
    t.notOk('close_reason' in reopened, 'the write answer omits it');
    for (const url of [`/api/v1/data/deal/${lost.id}`, `/api/v1/data/deal/${lost.id}`, '/api/v1/data/deal', `/api/v1/data/deal?select=close_reason`]) {
      const reply = await w.as('m1', 'GET', url);
      t.equal(reply.status, 200, url);
      t.notOk(JSON.stringify(reply.body).includes('REASON-PRICE'), `${url}: the hidden value appears nowhere`);
    }
    const queried = await w.must(w.as('admin', 'POST', '/api/v1/data/deal/query', { select: ['stage', 'close_reason'] }), 200);
    t.same(queried.items.map((r: Record<string, unknown>) => Object.keys(r).sort()), [['id', 'stage']], 'a query omits it too, even for an admin');
    const writeHidden = await w.as('m1', 'PATCH', `/api/v1/data/deal/${lost.id}`, { close_reason: 'other' });
    t.equal(writeHidden.status, 400, 'a field not visible for the record cannot be written');
    t.same(paths(writeHidden.body), ['close_reason']);
    const relost = await w.must(w.as('m1', 'PATCH', `/api/v1/data/deal/${lost.id}`, { stage: 'lost', close_reason: 'REASON-TIMING' }), 200);
    t.equal(relost.close_reason, 'REASON-TIMING', 'visible again once the patch makes the rule hold');
    const narrow = await w.must(w.as('m1', 'GET', `/api/v1/data/deal?select=close_reason`), 200);
    t.same(narrow.items.map((r: Record<string, unknown>) => Object.keys(r).sort()), [['id']], 'a projection without the fields the rule reads never shows the field');

    // readonlyWhen: a won deal's discount is frozen; sending it back unchanged is fine.
    const won = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'WON-1', stage: 'won', discount: 5 }));
    const frozen = await w.as('m1', 'PATCH', `/api/v1/data/deal/${won.id}`, { discount: 6 });
    t.equal(frozen.status, 400);
    t.same(frozen.body.error.details.errors, [{ path: 'discount', message: "is read-only for this record (readonlyWhen: record.stage == 'won')" }]);
    t.equal((await w.as('m1', 'PATCH', `/api/v1/data/deal/${won.id}`, { discount: 5, title: 'WON-1B' })).status, 200, 'the same value is no change');
    t.equal((await w.as('m1', 'PATCH', `/api/v1/data/deal/${won.id}`, { stage: 'open', discount: 6 })).status, 400, 'read-only as the record stands, whatever else the patch changes');
    await w.must(w.as('m1', 'PATCH', `/api/v1/data/deal/${won.id}`, { stage: 'open' }), 200);
    t.equal((await w.must(w.as('m1', 'PATCH', `/api/v1/data/deal/${won.id}`, { discount: 6 }), 200)).discount, 6, 'writable once reopened');

    // The same rules hold in a batch (nothing written) and in an import.
    const before = await w.must(w.as('admin', 'GET', '/api/v1/data/deal'), 200);
    const batch = await w.as('m1', 'POST', '/api/v1/batch', { operations: [
      { id: 'a', method: 'POST', object: 'deal', body: { title: 'B-1' } },
      { id: 'b', method: 'POST', object: 'deal', body: { title: 'B-2', stage: 'lost' } },
    ] });
    t.equal(batch.status, 400);
    t.match(JSON.stringify(batch.body), /close_reason/, 'the batch error names the field');
    t.equal((await w.must(w.as('admin', 'GET', '/api/v1/data/deal'), 200)).total, before.total, 'nothing of the batch was written');
    const imported = await w.as('m1', 'POST', '/api/v1/data/deal/import', { format: 'json', rows: [{ title: 'I-1', stage: 'lost' }] });
    t.match(JSON.stringify(imported.body), /close_reason/, 'the import names the field');
    t.equal((await w.must(w.as('admin', 'GET', '/api/v1/data/deal'), 200)).total, before.total, 'the import wrote nothing');

    // The metadata API reports the rules as declared, nothing compiled.
    const meta = await w.must(w.as('m1', 'GET', '/api/v1/meta/object/deal'), 200);
    const fields = (meta.item ?? meta).fields;
    t.equal(fields.close_reason.visibleWhen, "record.stage == 'lost'");
    t.equal(fields.close_reason.requiredWhen, "record.stage == 'lost'");
    t.equal(fields.discount.readonlyWhen, "record.stage == 'won'");
    t.notOk('conditions' in fields.close_reason);
  });
});

t.test('the OpenAPI document carries the rules on the field schemas, and the comment and file routes', async (t) => {
  await eachBackend(t, ['conditionsdoc'], async (t, site) => {
    if (site.backend === 'postgres') return;
    const w = await recordsWorld(t, site);
    const doc = await w.must(w.as('admin', 'GET', '/api/v1/openapi.json'), 200);
    const schemas = doc.components.schemas as Record<string, { properties?: Record<string, Record<string, unknown>> }>;
    const record = Object.values(schemas).find((s) => s.properties?.close_reason && s.properties?.discount)!;
    t.equal(record.properties!.close_reason!['x-visibleWhen'], "record.stage == 'lost'");
    t.equal(record.properties!.close_reason!['x-requiredWhen'], "record.stage == 'lost'");
    t.equal(record.properties!.discount!['x-readonlyWhen'], "record.stage == 'won'");
    // Comment and file routes are documented on the objects that enable them only.
    const paths = Object.keys(doc.paths);
    for (const path of ['/data/deal/{id}/comments', '/data/deal/{id}/comments/{commentId}', '/data/deal/{id}/files', '/data/deal/{id}/files/{fileId}']) t.ok(paths.includes(path), path);
    t.notOk(paths.includes('/data/memo/{id}/comments'), 'feeds off: no comment routes');
    t.notOk(paths.includes('/data/memo/{id}/files'), 'files off: no file routes');
    t.notOk(paths.some((p) => p.startsWith('/data/sys_') && /comments|files/.test(p)), 'nor on engine-owned objects');
    t.ok(doc.paths['/data/deal/{id}/files'].post.requestBody.content['multipart/form-data'], 'the upload is multipart');
  });
});
