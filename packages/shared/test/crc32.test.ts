/**
 * The CRC-32 of gzip (http/crc32.ts), checked against zlib's own: over whole strings, carried on
 * from one piece to the next, and put together from two pieces' CRCs and the second's length.
 */
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Combine, crc32Shift } from '../src/http/crc32.js';

/** zlib's CRC-32 (Node 20.15 and later), or one counted by inflating a gzip stream of the bytes when older. */
const zlibCrc32 = (bytes: Buffer): number => {
  const native = (zlib as unknown as { crc32?: (data: Buffer) => number }).crc32;
  if (native) return native(bytes);
  const gzip = zlib.gzipSync(bytes);
  return gzip.readUInt32LE(gzip.length - 8);
};

const LENGTHS = [0, 1, 2, 3, 7, 20, 64, 255, 256, 1_000, 4_096, 65_535, 65_536, 300_001];

describe('crc32', () => {
  it('counts what zlib counts, over a whole string or carried on piece by piece', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    for (const length of LENGTHS) {
      const bytes = randomBytes(length);
      expect(crc32(bytes), `${length}`).toBe(zlibCrc32(bytes));
      const cut = Math.floor(length / 3);
      expect(crc32(bytes, crc32(bytes.subarray(0, cut)), cut)).toBe(zlibCrc32(bytes));
    }
  });

  it('puts two pieces\' CRCs together as the CRC of both', () => {
    for (const first of LENGTHS) {
      for (const second of [0, 1, 20, 999, 65_536, 300_001]) {
        const [a, b] = [randomBytes(first), randomBytes(second)];
        expect(crc32Combine(crc32(a), crc32(b), crc32Shift(second)), `${first}+${second}`).toBe(zlibCrc32(Buffer.concat([a, b])));
      }
    }
  });
});
