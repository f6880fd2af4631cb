/**
 * CRC-32 as gzip counts it (ISO-HDLC: the reflected polynomial 0xEDB88320, starting from and ended
 * with all ones; RFC 1952 §8), with the one thing zlib.crc32 does not offer: the CRC of two byte
 * strings put together from the CRC of each and the second's length (`combine`, the same algebra as
 * zlib's crc32_combine). A gzip answer assembled from parts (gzip-parts.ts) counts each part once and
 * then only its short fills: calling zlib.crc32 on every piece of a 9 KB page cost 16 µs a serving,
 * mostly in the calls themselves.
 */

const POLY = 0xedb88320;
/** The polynomial 1 (x^0), in the reflected order: the top bit. */
const ONE = 0x80000000;

const TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  TABLE[n] = c;
}

/** The CRC-32 of `bytes` from `start` to `end`, carried on from `crc` (the CRC of what came before; 0 for none). */
export function crc32(bytes: Uint8Array, crc = 0, start = 0, end = bytes.length): number {
  let c = ~crc;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** a·b modulo the polynomial, both in the reflected order. */
function multiplyModP(a: number, b: number): number {
  if (a === 0) return 0;
  let m = ONE;
  let product = 0;
  for (;;) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0…31. */
const X_TO_2_TO_K = new Uint32Array(32);
X_TO_2_TO_K[0] = ONE >>> 1;
for (let k = 1; k < 32; k++) X_TO_2_TO_K[k] = multiplyModP(X_TO_2_TO_K[k - 1]!, X_TO_2_TO_K[k - 1]!);

/**
 * What moves a CRC past `length` more bytes (x^(8·length) modulo the polynomial): computed once per
 * length, used by every `combine` over that length.
 */
export function crc32Shift(length: number): number {
  let power = ONE;
  let k = 3;
  for (let n = length; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) power = multiplyModP(X_TO_2_TO_K[k % 32]!, power);
  return power;
}

/** The CRC-32 of A then B, from A's CRC, B's CRC and crc32Shift(B's length). */
export function crc32Combine(crcA: number, crcB: number, shiftB: number): number {
  return (multiplyModP(shiftB, crcA) ^ crcB) >>> 0;
}
