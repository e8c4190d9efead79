import { randomFillSync } from 'node:crypto';

/** Random bytes drawn in batches: one call into the system's generator per 128 ids. */
const pool = Buffer.alloc(128 * 6);
let poolAt = pool.length;

let lastMs = 0;
let sequence = 0;

/**
 * A new record id: a UUID version 7 (RFC 9562), so ids sort in creation order and make a stable
 * keyset tie-breaker. 48 bits of Unix milliseconds, then a 32-bit sequence (started at a random
 * value below 2^31 each millisecond and counted up within it, so ids made in the same millisecond
 * still sort in order), then 42 random bits. The clock never runs backwards here: an earlier
 * reading, or a sequence that runs out, continues from the last millisecond used.
 */
export function newId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = randomBytes(4).readUInt32BE(0) >>> 1;
  } else if (++sequence > 0xffffffff) {
    lastMs += 1;
    sequence = randomBytes(4).readUInt32BE(0) >>> 1;
  }
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >>> 28);
  bytes[7] = (sequence >>> 20) & 0xff;
  bytes[8] = 0x80 | ((sequence >>> 14) & 0x3f);
  bytes[9] = (sequence >>> 6) & 0xff;
  const random = randomBytes(6);
  bytes[10] = ((sequence & 0x3f) << 2) | (random[0]! & 0x03);
  random.copy(bytes, 11, 1, 6);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function randomBytes(n: number): Buffer {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const slice = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return slice;
}
