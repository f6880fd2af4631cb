/**
 * A checker of RFC 9162 consistency proofs written for the tests alone, from the RFC's definition
 * (§2.1.4): no code is shared with @svc/verify, which makes them. It decomposes the proof by bits:
 * the node where the paths to leaf first-1 in the two trees part ("inner" levels below it, walked as
 * an inclusion path of first-1), then the right border above it; the first tree's root is rebuilt from
 * the left-hand hashes only, the second's from all. @sigstore/verify checks inclusion proofs the same
 * way; it has no consistency check, hence this file.
 */
import { createHash } from 'node:crypto';

const node = (l: Uint8Array, r: Uint8Array) => createHash('sha256').update(Buffer.from([1])).update(l).update(r).digest();
const bitLength = (n: bigint) => (n === 0n ? 0 : n.toString(2).length);
const ones = (n: bigint) => [...n.toString(2)].filter((c) => c === '1').length;
const trailingZeros = (n: bigint) => {
  let z = 0;
  while (n > 0n && (n & 1n) === 0n) {
    n >>= 1n;
    z += 1;
  }
  return z;
};

export function consistent(first: number, second: number, proof: readonly Uint8Array[], firstRoot: Uint8Array, secondRoot: Uint8Array): boolean {
  const m = BigInt(first);
  const n = BigInt(second);
  if (m > n || m < 0n) return false;
  if (m === n) return proof.length === 0 && Buffer.compare(Buffer.from(firstRoot), Buffer.from(secondRoot)) === 0;
  if (m === 0n) return proof.length === 0;
  const shift = trailingZeros(m);
  const inner = bitLength((m - 1n) ^ (n - 1n)) - shift;
  const mask = (m - 1n) >> BigInt(shift);
  // A first tree of a power of two is itself a node of the second: its root starts both walks.
  const fromRoot = m === 1n << BigInt(shift);
  const seed = fromRoot ? Buffer.from(firstRoot) : proof[0];
  const rest = fromRoot ? proof : proof.slice(1);
  const border = ones(mask >> BigInt(inner));
  if (seed === undefined || rest.length !== inner + border) return false;
  let a = Buffer.from(seed);
  let b = Buffer.from(seed);
  rest.slice(0, inner).forEach((h, i) => {
    if ((mask >> BigInt(i)) & 1n) {
      a = node(h, a);
      b = node(h, b);
    } else {
      b = node(b, h);
    }
  });
  for (const h of rest.slice(inner)) {
    a = node(h, a);
    b = node(h, b);
  }
  return a.equals(Buffer.from(firstRoot)) && b.equals(Buffer.from(secondRoot));
}
