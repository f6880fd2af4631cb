/**
 * Entity tags of read answers: a strong tag from the exact bytes sent. xxHash64 (with the length)
 * rather than a cryptographic hash: a tag only has to differ when the bytes do, and a search answer
 * is ~50 KB, which SHA-1 takes ~60 µs to hash and xxHash ~8 µs.
 */
import xxhash from 'xxhash-wasm';

const { h64Raw } = await xxhash();

export function etagOf(bytes: Uint8Array): string {
  return `"${h64Raw(bytes).toString(36)}-${bytes.length.toString(36)}"`;
}
