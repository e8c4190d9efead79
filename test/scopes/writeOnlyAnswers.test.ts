/**
 * A credential that may write but not read (no data:read) is answered the id and version of what it
 * wrote, nothing more, on every write path: create, update (an empty patch too), upsert, bulk,
 * batch, import and actions, on each backend. A credential holding data:read gets the record.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { serveCrm, type Answer } from './scopesHttp.ts';

const SECRET = 'stored-text-the-writer-never-sent';

t.test('write answers of a credential without data:read', async (t) => {
  await eachBackend(t, ['writeonly'], async (t, site) => {
    const { rt, call } = await serveCrm(site);
    const admin = await signIn(rt);
    const session = bearer(admin.token);
    const mint = async (scopes: string[]) => {
      const res = await call('POST', '/api/v1/keys', { headers: session, body: { name: scopes.join('+'), scopes } });
      t.equal(res.status, 201, `minted ${scopes.join(', ')}`);
      return { 'x-api-key': String(res.body.key) };
    };
    const writer = await mint(['data:write']);
    const runner = await mint(['actions:execute']);
    const readerWriter = await mint(['data:read', 'data:write']);
    const seeded = await call('POST', '/api/v1/data/task', { headers: session, body: { subject: 'seeded', description: SECRET } });
    t.equal(seeded.status, 201, 'a task holding text the writer never sent');
    const taskId = String(seeded.body.id);
    const contact = await call('POST', '/api/v1/data/contact', { headers: session, body: { last_name: 'Upsert', email: 'upsert@example.com', notes: SECRET } });
    t.equal(contact.status, 201, 'a contact holding it too');

    /** The body is exactly { id, version }. */
    const blind = (res: Answer, body: unknown, what: string) => {
      t.same(Object.keys(body as object).sort(), ['id', 'version'], `${what}: the id and version, nothing more`);
      t.notOk(JSON.stringify(res.body).includes(SECRET), `${what}: no stored value`);
    };

    await t.test('REST create and update, an empty patch included', async (t) => {
      const created = await call('POST', '/api/v1/data/task', { headers: writer, body: { subject: 'by writer' } });
      t.equal(created.status, 201, 'create: 201');
      blind(created, created.body, 'create');
      t.equal(created.body.version, 1, 'the version is there to write again');
      const empty = await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: writer, body: {} });
      t.equal(empty.status, 200, 'PATCH {}: 200');
      blind(empty, empty.body, 'PATCH {}');
      t.equal(empty.body.id, taskId, 'naming the record');
      const patched = await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: writer, body: { priority: 'high' } });
      blind(patched, patched.body, 'PATCH with a value');
      t.equal(patched.headers.get('etag'), `"${patched.body.version}"`, 'the ETag carries the version');
    });

    await t.test('upsert, bulk, batch and import', async (t) => {
      const updated = await call('PUT', '/api/v1/data/contact/upsert?on=email', { headers: writer, body: { email: 'upsert@example.com', last_name: 'Upsert' } });
      t.equal(updated.status, 200, 'upsert of the existing record: 200');
      blind(updated, updated.body, 'upsert (update)');
      const made = await call('PUT', '/api/v1/data/contact/upsert?on=email', { headers: writer, body: { email: 'new@example.com', last_name: 'New' } });
      t.equal(made.status, 201, 'upsert of a new one: 201');
      blind(made, made.body, 'upsert (create)');
      const bulk = await call('POST', '/api/v1/data/task/bulk', { headers: writer, body: { operations: [{ method: 'create', values: { subject: 'bulk' } }, { method: 'update', id: taskId, values: {} }] } });
      t.equal(bulk.status, 200, `bulk: 200 ${JSON.stringify(bulk.body).slice(0, 200)}`);
      for (const [i, result] of (bulk.body.results as Array<{ body: unknown }>).entries()) blind(bulk, result.body, `bulk operation ${i}`);
      const batch = await call('POST', '/api/v1/batch', {
        headers: writer,
        body: { operations: [
          { id: 'a', method: 'POST', object: 'task', body: { subject: 'batch' } },
          { id: 'b', method: 'PATCH', object: 'task', recordId: taskId, body: {} },
          { id: 'c', method: 'PATCH', object: 'task', recordId: { $ref: 'a.id' }, body: { priority: 'low' } },
        ] },
      });
      t.equal(batch.status, 200, `batch: 200 ${JSON.stringify(batch.body).slice(0, 200)}`);
      for (const result of batch.body.results as Array<{ id: string; body: unknown }>) blind(batch, result.body, `batch operation ${result.id}`);
      const imported = await call('POST', '/api/v1/data/task/import', { headers: writer, body: { format: 'json', rows: [{ subject: 'imported' }] } });
      t.equal(imported.status, 200, 'import: 200');
      t.notOk(JSON.stringify(imported.body).includes('"subject"'), 'import answers no field of a record');
    });

    await t.test('an action that answers a record', async (t) => {
      const run = await call('POST', '/api/v1/actions/close_task', { headers: runner, body: { recordId: taskId } });
      t.equal(run.status, 200, 'the action ran');
      blind(run, run.body.result, 'an actions:execute key');
      const after = await call('GET', `/api/v1/data/task/${taskId}`, { headers: session });
      t.equal(after.body.status, 'done', 'the action did write');
    });

    await t.test('a credential holding data:read gets the record', async (t) => {
      const res = await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: readerWriter, body: {} });
      t.equal(res.body.description, SECRET, 'a data:read and data:write key');
      const bySession = await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: session, body: {} });
      t.equal(bySession.body.description, SECRET, 'a session acting as its user');
      const run = await call('POST', '/api/v1/actions/close_task', { headers: session, body: { recordId: taskId } });
      t.equal(run.body.result.description, SECRET, 'an action run by its user');
    });
  });
});
