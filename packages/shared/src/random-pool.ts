/**
 * Random bytes from the CSPRNG, drawn a few kilobytes at a time. `crypto.randomBytes` costs a few
 * microseconds per call whatever the size, and every create drew three times (its id, its access
 * token, the IV sealing its stored answer). Each byte of the pool is handed out once and only
 * copies leave it, so a caller never sees bytes another caller got.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8192;
const pool = Buffer.alloc(POOL_BYTES);
let at = POOL_BYTES;

/** `size` fresh random bytes, in a Buffer of their own. Sizes above the pool come straight from the CSPRNG. */
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES / 4) return randomFillSync(Buffer.alloc(size));
  if (at + size > POOL_BYTES) {
    randomFillSync(pool);
    at = 0;
  }
  const bytes = Buffer.from(pool.subarray(at, at + size));
  // What was handed out is not left in the pool.
  pool.fill(0, at, at + size);
  at += size;
  return bytes;
}
