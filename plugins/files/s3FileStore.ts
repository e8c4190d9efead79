import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { checkStoreKey, type FileStore, MissingBytes } from './fileStore.ts';

export interface S3StoreSettings {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  /** Joined to every key: `<prefix>/<environmentId>/<key>`; already checked to hold no empty, `.` or `..` segment. */
  prefix?: string;
  /** From the variables named in config; unset: the SDK's default chain (env, shared files, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Bytes per part of a multipart upload (at least 5 MiB, S3's floor). */
  partSize: number;
}

/** Parts sent at once per upload: with partSize this bounds the memory an upload holds. */
export const UPLOAD_QUEUE = 2;

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2 and the like) under
 * `<prefix>/<environmentId>/<key>`. Uploads stream through the SDK's multipart upload, holding
 * UPLOAD_QUEUE parts being sent and one filling; a failed one is aborted, so no object appears.
 * Downloads stream the object's body.
 */
export async function createS3Store(settings: S3StoreSettings): Promise<FileStore> {
  // Loaded only when the s3 driver is configured: the SDK takes a noticeable part of a second to import.
  const { DeleteObjectCommand, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  const client = await s3ClientOf(settings);
  const objectKey = (environmentId: string, key: string): string => {
    checkStoreKey(environmentId, key);
    return `${settings.prefix ? `${settings.prefix}/` : ''}${environmentId}/${key}`;
  };
  const Bucket = settings.bucket;
  return {
    async put(environmentId, key, data) {
      const Key = objectKey(environmentId, key);
      // The stored type is neutral: the served one is decided per download, never by the bucket.
      const upload = new Upload({ client, params: { Bucket, Key, Body: data, ContentType: 'application/octet-stream' }, partSize: settings.partSize, queueSize: UPLOAD_QUEUE, leavePartsOnError: false });
      let failed: unknown;
      data.once('error', (error) => (failed = error));
      try {
        await upload.done();
      } catch (error) {
        throw failed ?? error;
      }
    },
    async open(environmentId, key) {
      // Only a missing key is missing bytes: a missing bucket (also a 404) is a store that fails.
      const answer = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(environmentId, key) })).catch((error: { name?: string }) => {
        throw error.name === 'NoSuchKey' ? new MissingBytes(key) : error;
      });
      if (!answer.Body) throw new Error('file store: the object has no body');
      return answer.Body as Readable;
    },
    async remove(environmentId, key) {
      // S3 answers a delete of a missing key with success.
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(environmentId, key) }));
    },
  };
}

export async function s3ClientOf(settings: S3StoreSettings): Promise<S3Client> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  // The SDK warns once per process that later releases will need Node 22; the version in use runs
  // on Node 20. Only that warning is switched off, by the SDK's own variable, and an operator who set it keeps their value.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config: S3ClientConfig = {
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: many S3-compatible servers refuse the trailing checksums sent otherwise.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  };
  return new S3Client(config);
}
