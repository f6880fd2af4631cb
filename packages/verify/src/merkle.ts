/**
 * Merkle trees as RFC 9162 §2.1 defines them (the hashing of RFC 6962): leaves hashed with a 0x00
 * prefix, interior nodes with 0x01, a tree of n leaves split at the largest power of two below n.
 * Both the directory (which builds roots and proofs) and the verifier (which checks them) use these
 * functions; they read leaf hashes through a HashSource, so a caller may keep some subtree roots
 * (whole tiles of 256 leaves) and never read those leaves again.
 *
 * Sizes and indexes are plain numbers (below 2^53); no bitwise operator touches them.
 */
import * as crypto from 'node:crypto';
import { createHash, timingSafeEqual } from 'node:crypto';

export const HASH_BYTES = 32;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** Node's one-shot digest (Node 20.12 and later): half the cost of a Hash object for a short leaf. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, outputEncoding: 'buffer') => Buffer }).hash;

/** SHA-256(0x00 || entry). */
export function leafHash(entry: Uint8Array | string): Buffer {
  // An hour's order is millions of leaves: a text is hashed at once, with its prefix as U+0000 (one 0x00 byte in UTF-8).
  if (typeof entry === 'string' && oneShot) return oneShot('sha256', `\u0000${entry}`, 'buffer');
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

/** SHA-256 of bytes that begin with the leaf prefix 0x00 already: a leaf's hash when leaves come packed one after another, each after its prefix. */
export function prefixedLeafHash(prefixed: Uint8Array): Buffer {
  if (prefixed[0] !== 0x00) throw new Error('a leaf given with its prefix must begin with 0x00');
  return oneShot ? oneShot('sha256', prefixed, 'buffer') : createHash('sha256').update(prefixed).digest();
}

/** The input of a node's hash, 0x01 and two hashes, written here before each one-shot digest (nodeHash runs to its end before another can). */
const nodeInput = Buffer.alloc(1 + 2 * HASH_BYTES);

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (!oneShot || left.length !== HASH_BYTES || right.length !== HASH_BYTES) return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
  // An order's tree is millions of nodes: one digest of one buffer, not a Hash object each.
  nodeInput[0] = 0x01;
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_BYTES);
  return oneShot('sha256', nodeInput, 'buffer');
}

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where leaf hashes come from; `known`/`remember` keep roots of aligned subtrees (a power of two, aligned to its size). */
export interface HashSource {
  leaf(index: number): Uint8Array;
  known?(start: number, size: number): Uint8Array | undefined;
  remember?(start: number, size: number, root: Buffer): void;
}

/** A source over leaf hashes held in an array (the verifier's, and tests'). */
export function arraySource(leaves: readonly Uint8Array[]): HashSource {
  return {
    leaf(index) {
      const h = leaves[index];
      if (!h) throw new RangeError(`no leaf ${index}`);
      return h;
    },
  };
}

function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
}

/** The largest power of two strictly below n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[start:end]) (RFC 9162 §2.1.1). */
export function subtreeRoot(src: HashSource, start: number, end: number): Buffer {
  const n = end - start;
  if (n <= 0) return EMPTY_ROOT;
  if (n === 1) return Buffer.from(src.leaf(start));
  const aligned = isPowerOfTwo(n) && start % n === 0;
  if (aligned) {
    const kept = src.known?.(start, n);
    if (kept) return Buffer.from(kept);
  }
  const k = splitPoint(n);
  const root = nodeHash(subtreeRoot(src, start, start + k), subtreeRoot(src, start + k, end));
  if (aligned) src.remember?.(start, n, root);
  return root;
}

export function treeRoot(src: HashSource, size: number): Buffer {
  return subtreeRoot(src, 0, size);
}

/** PATH(index, D[0:size]) (RFC 9162 §2.1.3.1), lowest level first. */
export function inclusionProof(src: HashSource, index: number, size: number): Buffer[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`index ${index} is not in a tree of ${size}`);
  const path: Buffer[] = [];
  const walk = (m: number, start: number, end: number): void => {
    const n = end - start;
    if (n <= 1) return;
    const k = splitPoint(n);
    if (m < k) {
      walk(m, start, start + k);
      path.push(subtreeRoot(src, start + k, end));
    } else {
      walk(m - k, start + k, end);
      path.push(subtreeRoot(src, start, start + k));
    }
  };
  walk(index, 0, size);
  return path;
}

/** PROOF(first, D[0:second]) (RFC 9162 §2.1.4.1). Empty when first is 0 or equals second. */
export function consistencyProof(src: HashSource, first: number, second: number): Buffer[] {
  if (!(first >= 0 && first <= second)) throw new RangeError(`no consistency proof from ${first} to ${second}`);
  if (first === 0 || first === second) return [];
  const proof: Buffer[] = [];
  const sub = (m: number, start: number, end: number, whole: boolean): void => {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(subtreeRoot(src, start, end));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, start, start + k, whole);
      proof.push(subtreeRoot(src, start + k, end));
    } else {
      sub(m - k, start + k, end, false);
      proof.push(subtreeRoot(src, start, start + k));
    }
  };
  sub(first, 0, second, true);
  return proof;
}

const lsb = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/** Checks an inclusion proof (RFC 9162 §2.1.3.2). */
export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(r, root);
}

/** Checks a consistency proof between two tree heads (RFC 9162 §2.1.4.2). */
export function verifyConsistency(first: number, second: number, proof: readonly Uint8Array[], firstRoot: Uint8Array, secondRoot: Uint8Array): boolean {
  if (!(Number.isSafeInteger(first) && Number.isSafeInteger(second) && first >= 0 && first <= second)) return false;
  if (first === second) return proof.length === 0 && sameHash(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (lsb(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Buffer = Buffer.from(path[0] as Uint8Array);
  let sr: Buffer = Buffer.from(path[0] as Uint8Array);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(fr, firstRoot) && sameHash(sr, secondRoot);
}

/**
 * Leaf hashes of a tree built in memory (the hour's order): every leaf hash in one buffer, and the
 * roots of its whole tiles of 256 leaves kept as they are computed, so a proof re-reads at most two
 * tiles' worth of leaves.
 */
export function bufferSource(hashes: Buffer, tileRoots?: Map<number, Buffer>): HashSource {
  const tiles = tileRoots ?? new Map<number, Buffer>();
  return {
    leaf: (index) => hashes.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES),
    known: (start, size) => (size === 256 ? tiles.get(start / 256) : undefined),
    remember: (start, size, root) => {
      if (size === 256) tiles.set(start / 256, root);
    },
  };
}
