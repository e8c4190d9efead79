import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bearer, eachBackend } from '../auth/authHarness.ts';
import { recordsWorld, type RecordsWorld, type Who } from './recordsWorld.ts';

/**
 * Files of records through /data/:object/:id/files on both drivers: FILES_DISABLED, read access to
 * list and download (a hidden record is 404), edit access to upload and delete, size and type
 * limits, served as a nosniff attachment, names never reaching the disk, bytes gone with a purge.
 */

const BOUNDARY = '----osrTestBoundary7MA4YWxkTrZu0gW';

function multipart(filename: string, contentType: string, data: Buffer | string, field = 'file'): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nignored\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    Buffer.isBuffer(data) ? data : Buffer.from(data),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function upload(w: RecordsWorld, who: Who, url: string, body: Buffer) {
  const res = await w.rt.inject({ method: 'POST', url, headers: { ...bearer(w.users[who].token), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: body });
  return { status: res.statusCode, body: res.json() };
}

async function download(w: RecordsWorld, who: Who, url: string) {
  const res = await w.rt.inject({ method: 'GET', url, headers: bearer(w.users[who].token) });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload, body: res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : null };
}

t.test('files', async (t) => {
  await eachBackend(t, ['files'], async (t, site) => {
    const w = await recordsWorld(t, site, { config: { apps: ['test/records/fixtures/app'], plugins: { email: { enabled: false }, files: { maxBytes: 1000, allowedTypes: ['text/*', 'image/png', 'application/octet-stream'] } } } });
    const environment = site.ids[0]!;
    const filesDir = join(site.dataDir, 'files', environment);
    const deal = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'PRIVATE-DEAL' }));
    const url = `/api/v1/data/deal/${deal.id}/files`;

    const up = await upload(w, 'm1', url, multipart('../../evil name.txt', 'text/plain', 'HELLO-FILE-BYTES'));
    t.equal(up.status, 201, JSON.stringify(up.body));
    t.match(up.body, { name: 'evil name.txt', contentType: 'text/plain', size: 16, uploadedBy: w.users.m1.id, sha256: /^[0-9a-f]{64}$/ });
    const [row] = await site.query(environment, 'select storage_key, name from sys_file where id = ?', [up.body.id]);
    t.ok(existsSync(join(filesDir, String(row!.storage_key))), 'the bytes are stored under their random key');
    t.same(readdirSync(filesDir), [String(row!.storage_key)], 'and nothing else is written');
    t.notOk(existsSync(join(site.dataDir, 'evil name.txt')) || existsSync(join(site.dataDir, '..', 'evil name.txt')), 'the client name never reaches a path');

    const listed = await w.must(w.as('m1', 'GET', url), 200);
    t.same(listed.items.map((f: { id: string }) => f.id), [up.body.id]);
    const got = await download(w, 'm1', `${url}/${up.body.id}`);
    t.equal(got.status, 200);
    t.equal(got.raw.toString(), 'HELLO-FILE-BYTES');
    t.equal(got.headers['content-disposition'], `attachment; filename="evil name.txt"; filename*=UTF-8''evil%20name.txt`);
    t.equal(got.headers['x-content-type-options'], 'nosniff');
    t.match(String(got.headers['content-type']), /^text\/plain/);

    // Active content is served as opaque bytes.
    const html = await upload(w, 'm1', url, multipart('page.html', 'text/html', '<script>alert(1)</script>'));
    t.equal(html.status, 201);
    const served = await download(w, 'm1', `${url}/${html.body.id}`);
    t.equal(served.headers['content-type'], 'application/octet-stream');
    t.match(String(served.headers['content-security-policy']), /sandbox/);

    // A record the caller cannot read: 404 for list, download, upload and delete; nothing leaks.
    for (const reply of [await w.as('m2', 'GET', url), await download(w, 'm2', `${url}/${up.body.id}`), await upload(w, 'm2', url, multipart('x.txt', 'text/plain', 'x')), await w.as('m2', 'DELETE', `${url}/${up.body.id}`)]) {
      t.equal(reply.status, 404);
      t.equal(reply.body.error.code, 'NOT_FOUND');
      t.notOk(JSON.stringify(reply.body).includes('HELLO'), 'no bytes or names leak');
    }
    t.equal((await w.as('m1', 'GET', '/api/v1/data/sys_file')).status, 404, 'the rows are not served through /data');

    // Limits: size and type.
    const written = readdirSync(filesDir).sort();
    const big = await upload(w, 'm1', url, multipart('big.txt', 'text/plain', Buffer.alloc(1001, 65)));
    t.equal(big.status, 413);
    t.equal(big.body.error.code, 'PAYLOAD_TOO_LARGE');
    const cut = await upload(w, 'm1', url, multipart('cut.txt', 'text/plain', 'NO-END').subarray(0, -`\r\n--${BOUNDARY}--\r\n`.length));
    t.equal(cut.status, 400, 'a body cut off inside the file part');
    t.same(readdirSync(filesDir).sort(), written, 'neither leaves bytes, whole or partial, on disk');
    const exe = await upload(w, 'm1', url, multipart('tool.exe', 'application/x-msdownload', 'MZ'));
    t.equal(exe.status, 415);
    t.equal(exe.body.error.code, 'FILE_TYPE_NOT_ALLOWED');
    const noFile = await upload(w, 'm1', url, multipart('a.txt', 'text/plain', 'x', 'other'));
    t.equal(noFile.status, 400);
    t.same(noFile.body.error.details.errors, [{ path: 'file', message: 'is required: a part named file with a filename' }]);
    t.equal((await w.as('m1', 'POST', url, { file: 'x' })).status, 400, 'JSON is not an upload');

    // FILES_DISABLED on an object without enable.files.
    const memo = await w.must(w.as('m1', 'POST', '/api/v1/data/memo', { title: 'M' }));
    for (const reply of [await w.as('m1', 'GET', `/api/v1/data/memo/${memo.id}/files`), await upload(w, 'm1', `/api/v1/data/memo/${memo.id}/files`, multipart('a.txt', 'text/plain', 'x'))]) {
      t.equal(reply.status, 403);
      t.equal(reply.body.error.code, 'FILES_DISABLED');
    }

    const position = await w.must(w.as('admin', 'POST', '/api/v1/data/sys_position', { name: 'clerk' }));
    const engineOwned = await w.as('admin', 'GET', `/api/v1/data/sys_position/${position.id}/files`);
    t.equal(engineOwned.status, 403, 'engine-owned objects have no files');
    t.equal(engineOwned.body.error.code, 'FILES_DISABLED');

    // Read access lists and downloads; edit access uploads and deletes.
    const doc = await w.must(w.as('admin', 'POST', '/api/v1/data/doc', { title: 'PUBLIC-READ-DOC' }));
    const docUrl = `/api/v1/data/doc/${doc.id}/files`;
    const adminFile = await upload(w, 'admin', docUrl, multipart('report.txt', 'text/plain', 'REPORT-BYTES'));
    t.equal(adminFile.status, 201);
    t.equal((await download(w, 'm2', `${docUrl}/${adminFile.body.id}`)).raw.toString(), 'REPORT-BYTES', 'a reader downloads');
    const denied = await upload(w, 'm2', docUrl, multipart('mine.txt', 'text/plain', 'x'));
    t.equal(denied.status, 403, 'a reader may not upload');
    t.equal(denied.body.error.code, 'PERMISSION_DENIED');
    t.equal((await w.as('m2', 'DELETE', `${docUrl}/${adminFile.body.id}`)).status, 403, 'nor delete');
    t.equal((await download(w, 'm1', `${url}/${adminFile.body.id}`)).status, 404, 'a file of another record');

    // Delete one file: row and bytes.
    const [html_row] = await site.query(environment, 'select storage_key from sys_file where id = ?', [html.body.id]);
    t.equal((await w.as('m1', 'DELETE', `${url}/${html.body.id}`)).status, 204);
    t.notOk(existsSync(join(filesDir, String(html_row!.storage_key))), 'the bytes are gone');

    // Trash keeps the files; purge removes rows and bytes.
    const [docRow] = await site.query(environment, 'select storage_key from sys_file where id = ?', [adminFile.body.id]);
    const docBytes = join(filesDir, String(docRow!.storage_key));
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/doc/${doc.id}`)).status, 204);
    t.ok(existsSync(docBytes), 'a trashed record keeps its files');
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/doc/${doc.id}/purge`)).status, 204);
    t.equal((await site.query(environment, 'select count(*) as n from sys_file where record_id = ?', [doc.id]))[0]!.n as number | string | bigint, site.backend === 'postgres' ? '0' : 0, 'the rows are gone');
    for (let i = 0; i < 50 && existsSync(docBytes); i++) await new Promise((r) => setTimeout(r, 20));
    t.notOk(existsSync(docBytes), 'the bytes are gone after the purge committed');
    t.ok(existsSync(join(filesDir, String(row!.storage_key))), 'other records keep theirs');
  });
});
