import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where file bytes live. Keys are made by the plugin (random UUIDs), never from client input, and
 * each environment has its own space, so environments never share a key.
 */
export interface FileStore {
  /** Stores the stream's bytes under the key; on any failure (the stream's too) nothing is left under it. */
  put(environmentId: string, key: string, data: Readable): Promise<void>;
  /** The bytes as a stream; rejects with MissingBytes when the key holds nothing, with the store's error otherwise. */
  open(environmentId: string, key: string): Promise<Readable>;
  /** Removes the bytes; a missing key is no error. */
  remove(environmentId: string, key: string): Promise<void>;
}

/** The key holds nothing: the bytes were removed behind the runtime's back (a 404, unlike a store that fails). */
export class MissingBytes extends Error {
  constructor(key: string) {
    super(`file store: nothing is stored under ${key}`);
    this.name = 'MissingBytes';
  }
}

const KEY = /^[0-9a-f-]{36}$/;
const ENVIRONMENT = /^[A-Za-z0-9_-]{1,100}$/;

/** Refuses anything but the plugin's own shapes, so no value can name a place outside its environment's space. */
export function checkStoreKey(environmentId: string, key: string): void {
  if (!ENVIRONMENT.test(environmentId) || !KEY.test(key)) throw new Error(`file store: refused key ${JSON.stringify([environmentId, key])}`);
}

/** Files on local disk: `<dir>/<environmentId>/<key>`, streamed to a temporary name and renamed into place. */
export function createDiskStore(dir: string): FileStore {
  const root = resolve(dir);
  const pathOf = (environmentId: string, key: string): string => {
    checkStoreKey(environmentId, key);
    const path = join(root, environmentId, key);
    if (!path.startsWith(root + sep)) throw new Error('file store: path outside the root');
    return path;
  };
  return {
    async put(environmentId, key, data) {
      const path = pathOf(environmentId, key);
      await mkdir(join(root, environmentId), { recursive: true });
      try {
        await pipeline(data, createWriteStream(`${path}.part`, { flags: 'wx' }));
      } catch (error) {
        await rm(`${path}.part`, { force: true });
        throw error;
      }
      await rename(`${path}.part`, path);
    },
    async open(environmentId, key) {
      const path = pathOf(environmentId, key);
      await stat(path).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new MissingBytes(key) : error;
      });
      return createReadStream(path);
    },
    async remove(environmentId, key) {
      await rm(pathOf(environmentId, key), { force: true });
    },
  };
}
