import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { codedError } from '../../kernel/errors.ts';
import type { FileStore } from './fileStore.ts';

export interface StoredBytes {
  key: string;
  size: number;
  sha256: string;
}

/**
 * Streams a part's bytes into the store under a new random key, counting and hashing them on the
 * way. Past `maxBytes` the stream fails with PAYLOAD_TOO_LARGE; on that or any other failure
 * (a body cut off, the store refusing) whatever was written under the key is removed before the
 * error goes on.
 */
export async function storeFilePart(store: FileStore, environmentId: string, data: AsyncIterable<Buffer>, maxBytes: number): Promise<StoredBytes> {
  const key = randomUUID();
  const hash = createHash('sha256');
  let size = 0;
  let failure: unknown;
  async function* counted(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of data) {
        size += chunk.length;
        if (size > maxBytes) throw codedError('PAYLOAD_TOO_LARGE', { limit: maxBytes });
        hash.update(chunk);
        yield chunk;
      }
    } catch (error) {
      failure = error;
      throw error;
    }
  }
  try {
    await store.put(environmentId, key, Readable.from(counted(), { objectMode: false }));
  } catch (error) {
    await store.remove(environmentId, key).catch(() => undefined);
    throw failure ?? error;
  }
  return { key, size, sha256: hash.digest('hex') };
}
