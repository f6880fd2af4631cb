/**
 * The Merkle tree of an hour's order (docs/verifiable-order.md): one leaf hash per place, the roots
 * of its whole tiles (kept, so a proof never reads those leaves again) and its root. Hashed either
 * here, in slices of the node's thread between searches, or for a large order on a worker thread
 * (workers/order-tree-workers.ts): millions of leaves are seconds of hashing that searches would
 * otherwise wait behind a slice at a time.
 */
import { HASH_BYTES, TILE_WIDTH, bufferSource, leafHash, prefixedLeafHash, subtreeRoot, treeRoot } from '@svc/verify';
import { TimeSlices, runInSteps } from '../stepwise.js';
import type { LeafSources } from './statement-leaves.js';

export interface OrderTree {
  root: Buffer;
  /** The roots of the whole tiles, one after another. */
  tileRoots: Buffer;
}

/** An order's tree being hashed, its leaves given in any order, each with its place. */
export interface OrderTreeHashing {
  /** Leaf texts and their places (0-based); settles once they are hashed (the statement paces itself by it). */
  add(texts: readonly string[], places: Int32Array): Promise<void>;
  /**
   * Given where the hashing has a connection of its own to the listings (a worker, app.ts): reads
   * every listing's key itself and makes and hashes each leaf (statement-leaves.ts), so neither the
   * rows nor the texts take the node's thread from the searches. Settles with how many leaves were
   * made and each place's leaf facts (packFacts); instead of `add`, never beside it. The sources'
   * arrays are handed over to the worker: the caller no longer has them.
   */
  readKeys?(sources: LeafSources): Promise<{ given: number; leafFacts: Uint32Array }>;
  /** The tree, once every place's leaf was given. */
  finish(): Promise<OrderTree>;
  /** Stops hashing (the statement failed); nothing more is given. */
  abandon(): void;
}

/** Starts hashing the tree of an order of `size` places. */
export type OrderTreeHasher = (size: number) => OrderTreeHashing;

/** The tree over leaf hashes already made (`hashes`: `size` of them), yielding after each whole tile. */
export function* treeOfHashes(hashes: Buffer, size: number): Generator<void, OrderTree> {
  const tiles = new Map<number, Buffer>();
  const source = bufferSource(hashes, tiles);
  const whole = Math.floor(size / TILE_WIDTH);
  for (let t = 0; t < whole; t++) {
    tiles.set(t, subtreeRoot(source, t * TILE_WIDTH, (t + 1) * TILE_WIDTH));
    yield;
  }
  const root = treeRoot(source, size);
  const tileRoots = Buffer.alloc(whole * HASH_BYTES);
  for (let t = 0; t < whole; t++) (tiles.get(t) as Buffer).copy(tileRoots, t * HASH_BYTES);
  return { root, tileRoots };
}

/**
 * Leaf hashes of `size` places, written at their places as their texts come: the statement reads
 * listings in storage order (a range read), not in the order's (a lookup of each at random).
 */
export class LeafHashes {
  readonly hashes: Buffer;
  readonly #given: Uint8Array;
  #count = 0;
  constructor(readonly size: number) {
    this.hashes = Buffer.allocUnsafe(size * HASH_BYTES);
    this.#given = new Uint8Array(size);
  }
  get count(): number {
    return this.#count;
  }
  set(place: number, text: string): void {
    this.#claim(place);
    leafHash(text).copy(this.hashes, place * HASH_BYTES);
  }
  /** The same for a leaf given as 0x00 and its text's UTF-8 (prefixedLeafHash). */
  setPrefixed(place: number, prefixed: Uint8Array): void {
    this.#claim(place);
    prefixedLeafHash(prefixed).copy(this.hashes, place * HASH_BYTES);
  }
  #claim(place: number): void {
    if (!Number.isInteger(place) || place < 0 || place >= this.size) throw new Error(`the order has ${this.size} places, and a leaf was given for place ${place + 1}`);
    if (this.#given[place] === 1) throw new Error(`the leaf of place ${place + 1} was given twice`);
    this.#given[place] = 1;
    this.#count++;
  }
  /** Throws unless every place's leaf was given. */
  whole(): Buffer {
    if (this.#count !== this.size) throw new Error(`the order has ${this.size} places, and ${this.#count} leaves were given`);
    return this.hashes;
  }
}

/** Hashed on this thread, a turn of the event loop after every SLICE_MS of hashing. */
export const hashedHere: OrderTreeHasher = (size) => {
  const leaves = new LeafHashes(size);
  const slices = new TimeSlices();
  return {
    async add(texts, places) {
      if (places.length !== texts.length) throw new Error(`${texts.length} leaf texts were given with ${places.length} places`);
      for (let i = 0; i < texts.length; i++) {
        leaves.set(places[i] as number, texts[i] as string);
        if ((i & 63) === 63) await slices.due();
      }
    },
    finish: async () => runInSteps(treeOfHashes(leaves.whole(), size)),
    abandon: () => undefined,
  };
};
