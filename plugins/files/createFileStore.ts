import { isAbsolute, join } from 'node:path';
import { codedError } from '../../kernel/errors.ts';
import type { FileOptions, S3StorageOptions } from './fileOptions.ts';
import { createDiskStore, type FileStore } from './fileStore.ts';
import { createS3Store, type S3StoreSettings } from './s3FileStore.ts';

const PATH = 'plugins.files.storage';

/**
 * The S3 settings of validated options, credentials read from the variables they name. A named
 * variable that is unset or empty refuses the boot naming the key and the variable, never a value.
 */
export function s3SettingsOf(storage: S3StorageOptions, env: NodeJS.ProcessEnv): S3StoreSettings {
  const read = (key: 'accessKeyIdEnv' | 'secretAccessKeyEnv' | 'sessionTokenEnv'): string | undefined => {
    const name = storage[key];
    if (name === undefined) return undefined;
    const value = env[name];
    if (!value) throw codedError('CONFIG_INVALID', { path: `${PATH}.${key}`, reason: `names the environment variable ${name}, which is not set: set it, or remove ${key}` });
    return value;
  };
  const accessKeyId = read('accessKeyIdEnv');
  const secretAccessKey = read('secretAccessKeyEnv');
  const sessionToken = read('sessionTokenEnv');
  return {
    bucket: storage.bucket,
    region: storage.region,
    forcePathStyle: storage.forcePathStyle,
    partSize: storage.partSizeMiB * 1024 * 1024,
    ...(storage.endpoint ? { endpoint: storage.endpoint } : {}),
    ...(storage.prefix ? { prefix: storage.prefix.replace(/\/$/, '') } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } } : {}),
  };
}

/** The store the options choose: local disk (default `<dataDir>/files`) or an S3-compatible bucket. */
export async function createFileStore(options: FileOptions, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<FileStore> {
  if (options.storage.driver === 's3') return createS3Store(s3SettingsOf(options.storage, env));
  const dir = options.dir ?? join(dataDir, 'files');
  return createDiskStore(isAbsolute(dir) ? dir : join(process.cwd(), dir));
}
