import { z } from 'zod';

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const MIB = 1024 * 1024;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name such as S3_ACCESS_KEY_ID');

const localStorage = z.strictObject({
  /** Bytes on local disk under `plugins.files.dir`. */
  driver: z.literal('local'),
});

const s3Storage = z.strictObject({
  /** Bytes in an S3-compatible bucket. */
  driver: z.literal('s3'),
  /** The bucket, which must exist: 3-63 lowercase letters, digits, dots and hyphens. */
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit'),
  /** The bucket's region (`eu-west-1`); S3-compatible servers accept any, usually `us-east-1`. */
  region: z.string().regex(/^[a-z0-9][a-z0-9-]{0,49}$/, 'must be a region such as us-east-1'),
  /** The server's URL for S3-compatible servers (`http://minio:9000`); unset: AWS S3. Credentials never go in it. */
  endpoint: z.url({ protocol: /^https?$/, error: 'must be an http or https URL such as https://minio.example.com:9000' })
    .refine((value) => { const u = new URL(value); return u.username === '' && u.password === '' && u.search === '' && u.hash === ''; }, 'must not hold credentials, a query or a fragment: name the credential variables in accessKeyIdEnv and secretAccessKeyEnv')
    .optional(),
  /** Address the bucket in the path (`<endpoint>/<bucket>/<key>`) instead of the host name: MinIO and most S3-compatible servers need it. */
  forcePathStyle: z.boolean().default(false),
  /** Key prefix before `<environmentId>/<fileId>`: segments of letters, digits, `_`, `-` and `.`, none empty, `.` or `..`. */
  prefix: z.string().max(200).regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/, 'must be segments of letters, digits, _, - and . separated by /, each starting with a letter, digit, _ or -').optional(),
  /** Variable holding the access key id; with secretAccessKeyEnv. Unset: the SDK's default credential chain. */
  accessKeyIdEnv: envName.optional(),
  /** Variable holding the secret access key; with accessKeyIdEnv. */
  secretAccessKeyEnv: envName.optional(),
  /** Variable holding a session token, for temporary credentials; needs the other two. */
  sessionTokenEnv: envName.optional(),
  /** Bytes per part of a multipart upload, in MiB (5 to 100): an upload holds about three parts in memory (two being sent, one filling). */
  partSizeMiB: z.number().int().min(5).max(100).default(5),
});

export const fileOptionsSchema = z.strictObject({
  /** Where file bytes are kept with the local driver; relative paths are read from the working directory. Default: `<dataDir>/files`. */
  dir: z.string().min(1).optional(),
  /** Largest file accepted, in bytes (default 10 MiB, at most 1 GiB). */
  maxBytes: z.number().int().min(1).max(1024 * MIB).default(DEFAULT_MAX_BYTES),
  /** Media types accepted (`image/png`, `image/*`); unset accepts any. */
  allowedTypes: z.array(z.string().regex(/^([a-z0-9][a-z0-9!#$&^_.+-]*|\*)\/([a-z0-9][a-z0-9!#$&^_.+-]*|\*)$/, 'must be a media type such as image/png or image/*')).min(1).optional(),
  /** Where the bytes go: `{ driver: 'local' }` (default) or `{ driver: 's3', bucket, region, ... }`. */
  storage: z.discriminatedUnion('driver', [localStorage, s3Storage], { error: "must have driver 'local' or 's3'" }).default({ driver: 'local' }),
}).superRefine((options, check) => {
  const storage = options.storage;
  if (storage.driver !== 's3') return;
  if (options.dir !== undefined) check.addIssue({ code: 'custom', path: ['dir'], message: "applies to storage.driver 'local' only: remove it, or set storage.prefix for keys in the bucket" });
  if ((storage.accessKeyIdEnv === undefined) !== (storage.secretAccessKeyEnv === undefined)) {
    check.addIssue({ code: 'custom', path: ['storage', storage.accessKeyIdEnv === undefined ? 'accessKeyIdEnv' : 'secretAccessKeyEnv'], message: 'accessKeyIdEnv and secretAccessKeyEnv go together: set both, or neither for the default credential chain' });
  }
  if (storage.sessionTokenEnv !== undefined && storage.accessKeyIdEnv === undefined) {
    check.addIssue({ code: 'custom', path: ['storage', 'sessionTokenEnv'], message: 'needs accessKeyIdEnv and secretAccessKeyEnv' });
  }
});

export type FileOptions = z.output<typeof fileOptionsSchema>;
export type S3StorageOptions = z.output<typeof s3Storage>;
