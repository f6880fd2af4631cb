/** Identifiers: ULIDs, monotonic within one process so ids sort in creation order. */
import { randomBytes } from 'node:crypto';
import { monotonicFactory, decodeTime } from 'ulid';

/**
 * ulid's own source of randomness asks the system for one byte per character (16 calls per id);
 * this draws the same cryptographic bytes 4 KiB at a time.
 */
let pool = Buffer.alloc(0);
let next = 0;
function pooledRandom(): number {
  if (next >= pool.length) {
    pool = randomBytes(4_096);
    next = 0;
  }
  return (pool[next++] as number) / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export function newId(nowMs?: number): string {
  return nextUlid(nowMs);
}

export function isUlid(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value);
}

export function ulidTimeMs(id: string): number {
  return decodeTime(id);
}
