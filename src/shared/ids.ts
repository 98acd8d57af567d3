import { randomBytes, randomFillSync } from 'node:crypto';

// Ids are a type prefix plus a ULID-style body: 10 characters of millisecond time and
// 16 of randomness in Crockford base32, so they sort by creation time.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newId(prefix: string): string {
  let time = Date.now();
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  const start = drawRandom(16);
  let randomPart = '';
  for (let i = start; i < start + 16; i++) randomPart += ALPHABET[(pool.bytes[i] as number) % 32];
  return `${prefix}_${timePart}${randomPart}`.toLowerCase();
}

// Random bytes are drawn 4 KiB at a time: one call into the system's generator per 256 ids
// instead of one per id (a revenue event makes four ids).
const pool = { bytes: Buffer.alloc(4096), offset: 4096 };

/** Takes `length` fresh bytes of the pool; returns where they start. */
function drawRandom(length: number): number {
  if (pool.offset + length > pool.bytes.length) {
    randomFillSync(pool.bytes);
    pool.offset = 0;
  }
  const start = pool.offset;
  pool.offset += length;
  return start;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 characters from rejection sampling (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
