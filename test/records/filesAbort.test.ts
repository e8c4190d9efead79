import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import S3rver from 's3rver';
import t from 'tap';
import { s3ClientOf } from '../../plugins/files/s3FileStore.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { recordsWorld } from './recordsWorld.ts';

/**
 * A client that goes away in the middle of an upload leaves nothing behind, on local disk and in
 * an S3-compatible bucket (s3rver), on both drivers: the bytes that arrived were already streaming
 * into the store (a `.part` file, an S3 multipart upload with a part) when the connection closed,
 * and afterwards there is no file, no object and no row. The same size sent whole is stored (in
 * parts, in the bucket) and comes back intact.
 */

const BOUNDARY = '----osrAbortBoundary7MA4YWxkTrZu0gW';
const MIB = 1024 * 1024;
process.env.OSR_FILES_ABORT_TEST_KEY_ID = 'S3RVER';
process.env.OSR_FILES_ABORT_TEST_SECRET = 'S3RVER';

async function until(what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

t.test('an upload cut off by the client leaves nothing', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'osr-s3rver-abort-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'osr-abort-sqlite' }, { name: 'osr-abort-postgres' }] });
  const { port } = await server.run();
  t.teardown(() => server.close());
  const endpoint = `http://127.0.0.1:${port}`;

  for (const driver of ['local', 's3'] as const) await t.test(driver, (t) => eachBackend(t, ['files'], async (t, site) => {
    const bucket = `osr-abort-${site.backend}`;
    const client = await s3ClientOf({ bucket, region: 'us-east-1', endpoint, forcePathStyle: true, partSize: 5 * MIB, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const objects = async () => ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => String(o.Key));
    const uploadsDir = join(directory, bucket, '._S3rver_uploads');
    const store = {
      local: { name: 'local', storage: { driver: 'local' as const }, started: () => files(join(site.dataDir, 'files')).some((f) => f.endsWith('.part')) },
      s3: { name: 's3', storage: { driver: 's3' as const, bucket, region: 'us-east-1', endpoint, forcePathStyle: true, accessKeyIdEnv: 'OSR_FILES_ABORT_TEST_KEY_ID', secretAccessKeyEnv: 'OSR_FILES_ABORT_TEST_SECRET' }, started: () => files(uploadsDir).some((f) => /(^|\/)1$/.test(f)) },
    }[driver];
    {
      const logs: Array<{ err?: { message?: string } }> = [];
      const sink = new Writable({ write(chunk: Buffer, _encoding, done) { for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line)); done(); } });
      const w = await recordsWorld(t, site, {
        logger: pino({ level: 'info' }, sink),
        config: { apps: ['test/records/fixtures/app'], server: { listen: true, port: 0, host: '127.0.0.1' }, plugins: { email: { enabled: false }, files: { maxBytes: 8 * MIB, storage: store.storage } } },
      });
      const deal = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'D' }));
      const url = new URL(`${w.rt.runtime.http().url()}/api/v1/data/deal/${deal.id}/files`);
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      await new Promise((r) => socket.once('connect', r));
      socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${w.users.m1.token}\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${7 * MIB}\r\n\r\n`);
      socket.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      // More than one S3 part, so the bucket's multipart upload has begun; far less than announced.
      for (let i = 0; i < 6; i++) socket.write(Buffer.alloc(MIB, 66));
      await until(`${store.name}: the bytes streaming into the store`, store.started);
      socket.destroy();
      await until(`${store.name}: the upload's failure`, () => logs.some((l) => l.err?.message === 'aborted'));
      t.same(files(join(site.dataDir, 'files')).filter((f) => !/^[^/]+$/.test(f)), [], `${store.name}: no file on disk, whole or partial`);
      t.same(await objects(), [], `${store.name}: no object in the bucket`);
      t.equal(Number((await site.query(site.ids[0]!, 'select count(*) as n from sys_file'))[0]!.n), 0, `${store.name}: no row`);

      // The same size sent whole: stored in parts and streamed back intact.
      const bytes = Buffer.alloc(6 * MIB + 123);
      for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) % 251;
      const body = Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), bytes, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
      const up = await w.rt.inject({ method: 'POST', url: url.pathname, headers: { authorization: `Bearer ${w.users.m1.token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: body });
      t.equal(up.statusCode, 201, up.body);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      t.match(up.json(), { size: bytes.length, sha256 }, `${store.name}: size and hash of what was sent`);
      const down = await w.rt.inject({ method: 'GET', url: `${url.pathname}/${up.json().id}`, headers: { authorization: `Bearer ${w.users.m1.token}` } });
      t.equal(down.statusCode, 200);
      t.equal(createHash('sha256').update(down.rawPayload).digest('hex'), sha256, `${store.name}: the download is the same bytes`);
      if (store.name === 's3') t.equal((await objects()).length, 1, 's3: one object');
    }
  }));
});
