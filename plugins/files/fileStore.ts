import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where file bytes live. Keys are made by the plugin (random UUIDs), never from client input; an
 * S3-compatible store implements the same four calls.
 */
export interface FileStore {
  put(environmentId: string, key: string, data: Buffer): Promise<void>;
  /** The bytes as a stream; rejects when the key holds nothing. */
  open(environmentId: string, key: string): Promise<Readable>;
  /** Removes the bytes; a missing key is no error. */
  remove(environmentId: string, key: string): Promise<void>;
}

const KEY = /^[0-9a-f-]{36}$/;
const ENVIRONMENT = /^[A-Za-z0-9_-]{1,100}$/;

/** Files on local disk: `<dir>/<environmentId>/<key>`, written to a temporary name and renamed into place. */
export function createDiskStore(dir: string): FileStore {
  const root = resolve(dir);
  const pathOf = (environmentId: string, key: string): string => {
    // Both are the plugin's own values; checked anyway, so no input can point outside the root.
    if (!ENVIRONMENT.test(environmentId) || !KEY.test(key)) throw new Error(`file store: refused key ${JSON.stringify([environmentId, key])}`);
    const path = join(root, environmentId, key);
    if (!path.startsWith(root + sep)) throw new Error('file store: path outside the root');
    return path;
  };
  return {
    async put(environmentId, key, data) {
      const path = pathOf(environmentId, key);
      await mkdir(join(root, environmentId), { recursive: true });
      await writeFile(`${path}.part`, data, { flag: 'wx' });
      await rename(`${path}.part`, path);
    },
    async open(environmentId, key) {
      const path = pathOf(environmentId, key);
      await stat(path);
      return createReadStream(path);
    },
    async remove(environmentId, key) {
      await rm(pathOf(environmentId, key), { force: true });
    },
  };
}
