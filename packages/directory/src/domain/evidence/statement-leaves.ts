/**
 * An hour's statement's leaves made from the listings' keys (docs/verifiable-order.md "The hour's
 * statement"): each listing of the order, read in storage order, gets its leaf at its place. The same
 * rules on the node's thread (hour-statement.ts) and on the worker that reads the keys itself
 * (workers/order-tree-worker.ts), so the two cannot write different leaves.
 */
import { orderLeafText, type OrderLeaf, type Tier } from '@svc/verify';
import { PackedFacts } from '../ranking/hourly-order.js';

/** Listings whose keys are read in one query while the leaves are made (a range of the keys' index). */
const KEYS_PER_READ = 2_048;

const TIERS: readonly Tier[] = ['new', 'building', 'trusted'];

export type LeafFacts = Omit<OrderLeaf, 'pos' | 'id' | 'domain'>;

/** member 1 bit, answering 1, reach 2, level 3, tier 2, score 14 (up to 10,000). */
export function packFacts(f: LeafFacts): number {
  return (f.member ? 1 : 0) | (f.answering ? 2 : 0) | (f.reach << 2) | (f.level << 4) | (TIERS.indexOf(f.tier) << 7) | (f.score << 9);
}

export function unpackFacts(n: number): LeafFacts {
  return {
    member: (n & 1) !== 0,
    answering: (n & 2) !== 0,
    reach: ((n >>> 2) & 3) as 1 | 2 | 3,
    level: (n >>> 4) & 7,
    tier: TIERS[(n >>> 7) & 3] as Tier,
    score: (n >>> 9) & 0x3fff,
  };
}

/** What an order's leaves are made from, beside the listings' keys. */
export interface LeafSources {
  /** Each listing's place in the order (0-based) by seq; -1 for one not in it. */
  placeOfSeq: Int32Array;
  /** The order's rank facts by place (ranking/hourly-order.ts PackedFacts). */
  rankFacts: Uint32Array;
  /** Reputation tiers of the night the order read; a domain not here is `new`. */
  tiers: ReadonlyMap<string, Tier>;
}

export interface ListingKey {
  seq: number;
  id: string;
  domain: string;
}

/**
 * Every listing's key in seq order, a part of KEYS_PER_READ at a time, from `read` (the store's
 * `listingKeysAfter`, or the same query on a worker's own connection): each part a range of the
 * keys' index after the last part's seq.
 */
export async function* keysInSeqOrder(read: (after: number, limit: number) => Promise<ListingKey[]>): AsyncGenerator<ListingKey[]> {
  for (let after = -1; ; ) {
    const keys = await read(after, KEYS_PER_READ);
    yield keys;
    if (keys.length < KEYS_PER_READ) return;
    after = (keys[keys.length - 1] as ListingKey).seq;
  }
}

/**
 * The leaves of a part of keys: their texts and places, in the keys' order, and each place's leaf
 * facts written into `leafFacts` (packFacts). A listing not in the order (delisted, or stored after
 * the order read its listings) has no leaf.
 */
export function leavesOfKeys(keys: readonly ListingKey[], sources: LeafSources, leafFacts: Uint32Array): { texts: string[]; places: Int32Array } {
  const texts: string[] = [];
  const places = new Int32Array(keys.length);
  const { placeOfSeq, rankFacts, tiers } = sources;
  for (const key of keys) {
    const place = key.seq < placeOfSeq.length ? (placeOfSeq[key.seq] as number) : -1;
    if (place < 0) continue;
    const p = rankFacts[place] as number;
    const leaf: LeafFacts = { member: PackedFacts.member(p), answering: PackedFacts.answering(p), reach: PackedFacts.reach(p), level: PackedFacts.level(p), tier: tiers.get(key.domain) ?? 'new', score: PackedFacts.scoreInt(p) };
    leafFacts[place] = packFacts(leaf);
    places[texts.length] = place;
    texts.push(orderLeafText({ pos: place + 1, id: key.id, domain: key.domain, ...leaf }));
  }
  return { texts, places: places.subarray(0, texts.length) };
}
