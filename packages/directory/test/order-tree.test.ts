/**
 * An hour's order's tree (docs/verifiable-order.md), hashed on the node's thread and on a worker
 * thread: the same root and the same whole tiles' roots, both the root RFC 9162 §2.1.1 defines
 * (computed here from the RFC, not with the directory's Merkle code), whatever order the leaves are
 * given in, and an order given too few leaves, a leaf past its places or one place twice is refused
 * rather than hashed. The worker is handed the leaves as bytes (each its text's UTF-8 after 0x00),
 * so some texts here are beyond ASCII.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashedHere, type OrderTreeHasher } from '../src/domain/evidence/order-tree.js';
import { hashedInWorker, orderTreeHasher } from '../src/workers/order-tree-workers.js';

const sha256 = (...parts: (Buffer | string)[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** MTH(D[n]) as RFC 9162 §2.1.1 writes it. */
function rfcRoot(leaves: readonly string[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return sha256(Buffer.from([0]), leaves[0] as string);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Buffer.from([1]), rfcRoot(leaves.slice(0, k)), rfcRoot(leaves.slice(k)));
}

/** Some domains beyond ASCII (two- and four-byte UTF-8), so leaves differ in bytes from their lengths in characters. */
const domainOf = (i: number) => (i % 7 === 3 ? `café-${i}.example` : i % 11 === 5 ? `𝄞-${i}.example` : `shop-${i}.example`);
const texts = (n: number) => Array.from({ length: n }, (_, i) => `svc-order/1 pos=${i + 1} id=biz_${i} domain=${domainOf(i)} member=0 answering=0 reach=1 level=2 tier=new score=${i % 97}`);

const placesFrom = (from: number, n: number) => Int32Array.from({ length: n }, (_, i) => from + i);

async function hashed(hasher: OrderTreeHasher, leaves: readonly string[], batch = 100) {
  const tree = hasher(leaves.length);
  for (let i = 0; i < leaves.length; i += batch) await tree.add(leaves.slice(i, i + batch), placesFrom(i, Math.min(batch, leaves.length - i)));
  return tree.finish();
}

/** The same leaves given in a shuffled order of places (as the statement reads listings: by seq), in batches of `batch`. */
async function hashedShuffled(hasher: OrderTreeHasher, leaves: readonly string[], batch = 64) {
  const places = Array.from(leaves.keys());
  let state = 7;
  for (let i = places.length - 1; i > 0; i--) {
    state = (state * 48271) % 2147483647;
    const j = state % (i + 1);
    [places[i], places[j]] = [places[j] as number, places[i] as number];
  }
  const tree = hasher(leaves.length);
  for (let i = 0; i < places.length; i += batch) {
    const part = Int32Array.from(places.slice(i, i + batch));
    await tree.add(Array.from(part, (place) => leaves[place] as string), part);
  }
  return tree.finish();
}

describe("an hour's order's tree", () => {
  for (const [name, hasher] of [
    ['on the node’s thread', hashedHere],
    ['on a worker thread', hashedInWorker()],
  ] as const) {
    it(`${name}: the RFC's root, and each whole tile's root`, async () => {
      for (const n of [1, 2, 255, 256, 1_000, 2_049]) {
        const leaves = texts(n);
        const tree = await hashed(hasher, leaves);
        expect(tree.root.equals(rfcRoot(leaves))).toBe(true);
        const whole = Math.floor(n / 256);
        expect(tree.tileRoots.length).toBe(whole * 32);
        for (let t = 0; t < whole; t++) expect(tree.tileRoots.subarray(t * 32, (t + 1) * 32).equals(rfcRoot(leaves.slice(t * 256, (t + 1) * 256)))).toBe(true);
      }
    });

    it(`${name}: the same tree when the leaves come in another order than their places`, async () => {
      const leaves = texts(2_049);
      const [inOrder, shuffled] = [await hashed(hasher, leaves), await hashedShuffled(hasher, leaves)];
      expect(shuffled.root.equals(rfcRoot(leaves))).toBe(true);
      expect(shuffled.tileRoots.equals(inOrder.tileRoots)).toBe(true);
    });

    it(`${name}: refuses an order given fewer leaves than its places, a leaf past them, or a place twice`, async () => {
      const short = hasher(10);
      await short.add(texts(9), placesFrom(0, 9));
      await expect(short.finish()).rejects.toThrow(/10 places, and 9 leaves were given/);
      const long = hasher(10);
      // The worker answers a batch after it is given: the refusal comes at the latest with the tree.
      const added = long.add(texts(11), placesFrom(0, 11)).then(() => long.finish());
      await expect(added).rejects.toThrow(/10 places, and a leaf was given for place 11/);
      const twice = hasher(10);
      const again = twice
        .add(texts(5), placesFrom(0, 5))
        .then(() => twice.add(texts(5), placesFrom(4, 5)))
        .then(() => twice.finish());
      await expect(again).rejects.toThrow(/the leaf of place 5 was given twice/);
      await expect(hasher(10).add(texts(3), placesFrom(0, 2))).rejects.toThrow(/3 leaf texts were given with 2 places/);
    });
  }

  it('hashes orders from the given size on a worker, smaller ones on the node’s thread, to the same tree', async () => {
    const leaves = texts(700);
    const [here, worker] = [await hashed(orderTreeHasher(701), leaves, 64), await hashed(orderTreeHasher(700), leaves, 64)];
    expect(worker.root.equals(here.root)).toBe(true);
    expect(worker.tileRoots.equals(here.tileRoots)).toBe(true);
  });
});
