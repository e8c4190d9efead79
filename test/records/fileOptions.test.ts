/** Options of the files plugin: storage drivers, S3 keys and credentials, refused at boot naming the key. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KernelBootError } from '../../kernel/index.ts';
import { s3SettingsOf } from '../../plugins/files/createFileStore.ts';
import { fileOptionsSchema } from '../../plugins/files/fileOptions.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const s3 = { driver: 's3', bucket: 'osr-files', region: 'us-east-1' } as const;

t.test('S3 settings: credentials from the variables config names, the prefix without its trailing slash', async (t) => {
  const options = fileOptionsSchema.parse({ storage: { ...s3, endpoint: 'http://127.0.0.1:9000', forcePathStyle: true, prefix: 'osr/files/', accessKeyIdEnv: 'MY_KEY', secretAccessKeyEnv: 'MY_SECRET' } });
  if (options.storage.driver !== 's3') throw new Error('expected s3');
  t.same(s3SettingsOf(options.storage, { MY_KEY: 'AKIA-TEST', MY_SECRET: 'SECRET-VALUE' }), {
    bucket: 'osr-files', region: 'us-east-1', forcePathStyle: true, partSize: 5 * 1024 * 1024, endpoint: 'http://127.0.0.1:9000', prefix: 'osr/files',
    credentials: { accessKeyId: 'AKIA-TEST', secretAccessKey: 'SECRET-VALUE' },
  });
  const chain = fileOptionsSchema.parse({ storage: s3 });
  if (chain.storage.driver !== 's3') throw new Error('expected s3');
  t.same(s3SettingsOf(chain.storage, {}), { bucket: 'osr-files', region: 'us-east-1', forcePathStyle: false, partSize: 5 * 1024 * 1024 }, 'no variables named: the SDK chain');
  t.same(fileOptionsSchema.parse({}).storage, { driver: 'local' }, 'local disk by default');
});

t.test('a wrong storage config refuses the boot, naming the key and never a credential', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-file-options-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  process.env.OSR_FILE_OPTIONS_TEST_KEY = 'KEY-VALUE-NOT-SHOWN';
  t.teardown(() => delete process.env.OSR_FILE_OPTIONS_TEST_KEY);
  const cases: Array<{ files: object; want: Array<[string, string, RegExp]> }> = [
    { files: { storage: { ...s3, bucket: 'No' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.bucket', /must be an S3 bucket name/]] },
    { files: { storage: { driver: 'gcs' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.driver', /driver 'local' or 's3'/]] },
    { files: { storage: { ...s3, region: undefined } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.region', /./]] },
    { files: { dir: 'x', storage: { ...s3, accessKeyIdEnv: 'A' } }, want: [
      ['KERNEL_INVALID_OPTIONS', 'plugins.files.dir', /applies to storage.driver 'local' only/],
      ['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.secretAccessKeyEnv', /go together/],
    ] },
    { files: { storage: { ...s3, sessionTokenEnv: 'T' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.sessionTokenEnv', /needs accessKeyIdEnv/]] },
    { files: { storage: { ...s3, prefix: 'osr/../other' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.prefix', /segments/]] },
    { files: { storage: { ...s3, prefix: '/abs' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.prefix', /segments/]] },
    { files: { storage: { ...s3, endpoint: 'https://user:pass@s3.example.com' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.endpoint', /must not hold credentials/]] },
    { files: { storage: { ...s3, endpoint: 'ftp://s3.example.com' } }, want: [['KERNEL_INVALID_OPTIONS', 'plugins.files.storage.endpoint', /http or https/]] },
    { files: { storage: { ...s3, accessKeyIdEnv: 'OSR_FILE_OPTIONS_TEST_KEY', secretAccessKeyEnv: 'OSR_FILE_OPTIONS_TEST_UNSET' } }, want: [['CONFIG_INVALID', 'plugins.files.storage.secretAccessKeyEnv', /names the environment variable OSR_FILE_OPTIONS_TEST_UNSET, which is not set/]] },
  ];
  for (const { files, want } of cases) {
    const error = await startTestRuntime({ config: { dataDir, plugins: { files } as never, auth: { secret: 'file-options-secret-0123456789-0123456789' } }, env: {} }).then(
      async (rt) => { await rt.close(); return undefined; },
      (e: unknown) => e,
    );
    if (!(error instanceof KernelBootError)) {
      t.fail(`booted or failed otherwise: ${JSON.stringify(files)}: ${String(error)}`);
      continue;
    }
    const got = error.failures.map((f) => [f.code, f.message]);
    t.equal(got.length, want.length, JSON.stringify(got));
    want.forEach(([code, path, reason], i) => {
      t.equal(got[i]?.[0], code, path);
      t.match(got[i]?.[1], path, `the message names ${path}`);
      t.match(got[i]?.[1], reason);
    });
    t.notOk(JSON.stringify(got).includes('KEY-VALUE-NOT-SHOWN'), 'no credential value in the error');
  }
});
