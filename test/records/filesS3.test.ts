import { DeleteObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import t from 'tap';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { MissingBytes } from '../../plugins/files/fileStore.ts';
import { createS3Store, s3ClientOf } from '../../plugins/files/s3FileStore.ts';
import { bearer, eachBackend } from '../auth/authHarness.ts';
import { recordsWorld, type RecordsWorld, type Who } from './recordsWorld.ts';

/**
 * Files of records stored in an S3-compatible bucket (s3rver, a local server speaking the S3
 * wire protocol), on both drivers: upload, list, download (streamed, nosniff attachment) and
 * delete through the bucket; nothing half-written when an upload is too large, cut off, broken
 * after its file part or refused by the row insert; a hidden record's file is 404; a purge
 * removes the object.
 */

const BOUNDARY = '----osrS3Boundary7MA4YWxkTrZu0gW';
const KEY_ID_ENV = 'OSR_FILES_S3_TEST_KEY_ID';
const SECRET_ENV = 'OSR_FILES_S3_TEST_SECRET';
process.env[KEY_ID_ENV] = 'S3RVER';
process.env[SECRET_ENV] = 'S3RVER';

const part = (filename: string, contentType: string, data: Buffer | string) => Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
  Buffer.isBuffer(data) ? data : Buffer.from(data),
]);
const multipart = (filename: string, contentType: string, data: Buffer | string) => Buffer.concat([part(filename, contentType, data), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);

async function upload(w: RecordsWorld, who: Who, url: string, body: Buffer) {
  const res = await w.rt.inject({ method: 'POST', url, headers: { ...bearer(w.users[who].token), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: body });
  return { status: res.statusCode, body: res.json() };
}

async function download(w: RecordsWorld, who: Who, url: string) {
  const res = await w.rt.inject({ method: 'GET', url, headers: bearer(w.users[who].token) });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload, body: String(res.headers['content-type']).startsWith('application/json') ? res.json() : null };
}

const blocker = definePlugin({
  name: 'file-row-refuser',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterInsert', (event: { record?: Record<string, unknown> }) => {
      if (event.record?.name === 'refused-row.txt') throw new Error('the row of this file is refused');
    }, { object: 'sys_file' });
  },
});

t.test('files in an S3-compatible bucket', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'osr-s3rver-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const buckets = ['osr-files-sqlite', 'osr-files-postgres'];
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  t.teardown(() => server.close());
  const endpoint = `http://127.0.0.1:${port}`;

  await t.test('a missing object is MissingBytes; a missing bucket is not', async (t) => {
    const settings = { bucket: buckets[0]!, region: 'us-east-1', endpoint, forcePathStyle: true, partSize: 5 * 1024 * 1024 };
    const store = await createS3Store({ ...settings, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await t.rejects(store.open('main', '00000000-0000-4000-8000-000000000000'), MissingBytes);
    const wrong = await createS3Store({ ...settings, bucket: 'osr-no-such-bucket', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const failing = await wrong.open('main', '00000000-0000-4000-8000-000000000000').then(() => null, (error: unknown) => error);
    t.notOk(failing instanceof MissingBytes, 'a missing bucket is no 404');
    t.match(failing, { name: 'NoSuchBucket' });
    await t.rejects(store.open('../other', '00000000-0000-4000-8000-000000000000'), /refused key/, 'an environment id that is not one is refused');
  });

  await eachBackend(t, ['files'], async (t, site) => {
    const bucket = `osr-files-${site.backend}`;
    const client: S3Client = await s3ClientOf({ bucket, region: 'us-east-1', endpoint, forcePathStyle: true, partSize: 5 * 1024 * 1024, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const objects = async () => ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => String(o.Key)).sort();
    const storage = { driver: 's3' as const, bucket, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: 'osr/test', accessKeyIdEnv: KEY_ID_ENV, secretAccessKeyEnv: SECRET_ENV };
    const w = await recordsWorld(t, site, { plugins: [blocker], config: { apps: ['test/records/fixtures/app'], plugins: { email: { enabled: false }, files: { maxBytes: 1000, allowedTypes: ['text/*', 'application/octet-stream'], storage } } } });
    const environment = site.ids[0]!;
    const objectOf = (key: unknown) => `osr/test/${environment}/${String(key)}`;
    const rows = async () => Number((await site.query(environment, 'select count(*) as n from sys_file'))[0]!.n);
    const deal = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'PRIVATE-DEAL' }));
    const url = `/api/v1/data/deal/${deal.id}/files`;

    const up = await upload(w, 'm1', url, multipart('../../notes.txt', 'text/plain', 'HELLO-S3-BYTES'));
    t.equal(up.status, 201, JSON.stringify(up.body));
    t.match(up.body, { name: 'notes.txt', contentType: 'text/plain', size: 14, uploadedBy: w.users.m1.id });
    const [row] = await site.query(environment, 'select storage_key from sys_file where id = ?', [up.body.id]);
    t.same(await objects(), [objectOf(row!.storage_key)], 'one object, under <prefix>/<environment>/<random key>');
    t.notOk(existsSync(join(site.dataDir, 'files')), 'nothing on local disk');

    t.same((await w.must(w.as('m1', 'GET', url), 200)).items.map((f: { id: string }) => f.id), [up.body.id]);
    const got = await download(w, 'm1', `${url}/${up.body.id}`);
    t.equal(got.status, 200);
    t.equal(got.raw.toString(), 'HELLO-S3-BYTES', 'the bytes come back from the bucket');
    t.equal(got.headers['content-length'], '14');
    t.equal(got.headers['content-disposition'], `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
    t.equal(got.headers['x-content-type-options'], 'nosniff');
    t.match(String(got.headers['content-type']), /^text\/plain/);

    // Active content: an opaque attachment, whatever was declared.
    const html = await upload(w, 'm1', url, multipart('page.html', 'text/html', '<script>alert(1)</script>'));
    t.equal(html.status, 201);
    const served = await download(w, 'm1', `${url}/${html.body.id}`);
    t.equal(served.headers['content-type'], 'application/octet-stream');
    t.match(String(served.headers['content-disposition']), /^attachment;/);
    t.equal(served.headers['x-content-type-options'], 'nosniff');
    t.equal(served.raw.toString(), '<script>alert(1)</script>');

    // A record the caller cannot read: 404 like a missing one, and nothing is written.
    const before = await objects();
    for (const reply of [await w.as('m2', 'GET', url), await download(w, 'm2', `${url}/${up.body.id}`), await upload(w, 'm2', url, multipart('x.txt', 'text/plain', 'x')), await w.as('m2', 'DELETE', `${url}/${up.body.id}`)]) {
      t.equal(reply.status, 404);
      t.equal(reply.body.error.code, 'NOT_FOUND');
      t.notOk(JSON.stringify(reply.body).includes('HELLO'), 'no bytes or names leak');
    }
    t.same(await objects(), before, 'a hidden record gets no object');

    // Nothing half-written: too large, cut off, broken after the file part, row refused.
    const rowsBefore = await rows();
    const big = await upload(w, 'm1', url, multipart('big.txt', 'text/plain', Buffer.alloc(1001, 65)));
    t.equal(big.status, 413);
    t.equal(big.body.error.code, 'PAYLOAD_TOO_LARGE');
    const cut = await upload(w, 'm1', url, part('cut.txt', 'text/plain', 'NO-END'));
    t.equal(cut.status, 400);
    t.match(cut.body.error.message, /not closed by the boundary/);
    const broken = await upload(w, 'm1', url, Buffer.concat([part('ok.txt', 'text/plain', 'WHOLE'), Buffer.from(`\r\n--${BOUNDARY}\r\nX-Not-A-Disposition: 1\r\n\r\nx\r\n--${BOUNDARY}--\r\n`)]));
    t.equal(broken.status, 400);
    t.match(broken.body.error.message, /no Content-Disposition/);
    const refused = await upload(w, 'm1', url, multipart('refused-row.txt', 'text/plain', 'ROW-REFUSED'));
    t.equal(refused.status, 500, 'the row insert fails');
    t.same(await objects(), before, 'no object is left by any of them');
    t.equal(await rows(), rowsBefore, 'and no row');

    // An object gone from the bucket behind the runtime's back: 404, not a broken stream.
    const [htmlRow] = await site.query(environment, 'select storage_key from sys_file where id = ?', [html.body.id]);
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectOf(htmlRow!.storage_key) }));
    const gone = await download(w, 'm1', `${url}/${html.body.id}`);
    t.equal(gone.status, 404);
    t.equal(gone.body.error.code, 'NOT_FOUND');

    // Delete one file: row and object.
    t.equal((await w.as('m1', 'DELETE', `${url}/${html.body.id}`)).status, 204);
    t.same(await objects(), [objectOf(row!.storage_key)]);

    // Trash keeps the object; purge removes it once the delete committed.
    const doc = await w.must(w.as('admin', 'POST', '/api/v1/data/doc', { title: 'DOC' }));
    const docFile = await upload(w, 'admin', `/api/v1/data/doc/${doc.id}/files`, multipart('report.txt', 'text/plain', 'REPORT'));
    t.equal(docFile.status, 201);
    const [docRow] = await site.query(environment, 'select storage_key from sys_file where id = ?', [docFile.body.id]);
    const docObject = objectOf(docRow!.storage_key);
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/doc/${doc.id}`)).status, 204);
    t.ok((await objects()).includes(docObject), 'a trashed record keeps its object');
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/doc/${doc.id}/purge`)).status, 204);
    for (let i = 0; i < 50 && (await objects()).includes(docObject); i++) await new Promise((r) => setTimeout(r, 20));
    t.same(await objects(), [objectOf(row!.storage_key)], 'the purge removed the object; other records keep theirs');
  });
});
