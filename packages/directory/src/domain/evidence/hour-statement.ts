/**
 * Each hour's signed statement (docs/verifiable-order.md "The hour's statement"), built from the order
 * just computed and what it was computed from, never by computing it again: the rules version, the
 * shuffle's day, the night whose reputation it read and the evidence log's head that night was
 * scored from, and the Merkle root of one leaf per place (@svc/verify order.ts). The leaves are not
 * stored as text: each place's facts fit in 32 bits (kept with the roots of its whole tiles, as long
 * as the hour's order is kept), and a leaf is written again from them, the stored order and the
 * listing's id and domain when it is asked for.
 */
import { HASH_BYTES, TILE_WIDTH, inclusionProof, leafHash, orderLeafText, statementText, type HashSource, type Tier } from '@svc/verify';
import type { DirectoryContext } from '../context.js';
import { HOUR_MS, shuffleDay, type FactRows } from '../ranking/hourly-order.js';
import { nightOf } from '../reputation/reputation.js';
import type { StoredStatement } from '../../store/store.js';
import { STEP_MASK, TimeSlices, filledInSteps, pacedHandOff, pacedQuery, runInSteps } from '../stepwise.js';
import { Kept, signHead, type EvidenceTree } from './log-tree.js';
import { hashedHere, type OrderTree, type OrderTreeHasher, type OrderTreeHashing } from './order-tree.js';
import { networkHostOf, type NetworkKey } from './network-key.js';
import { keysInSeqOrder, leavesOfKeys, unpackFacts, type LeafSources } from './statement-leaves.js';

/** What leaves say is kept as long as the hour's order itself (search-service.ts keeps 48 hours). */
export const LEAVES_KEPT_MS = 48 * HOUR_MS;

/** Each listing's place in the order (0-based) by seq, -1 for those not in it; made in steps. */
async function placesBySeq(facts: FactRows): Promise<Int32Array> {
  const slices = new TimeSlices();
  let top = -1;
  for (let i = 0; i < facts.length; i++) {
    top = Math.max(top, facts.seq(i));
    if ((i & STEP_MASK) === STEP_MASK) await slices.due();
  }
  const places = await runInSteps(filledInSteps(new Int32Array(top + 1), -1));
  for (let i = 0; i < facts.length; i++) {
    places[facts.seq(i)] = i;
    if ((i & STEP_MASK) === STEP_MASK) await slices.due();
  }
  return places;
}

/** The order's rank facts by place (PackedFacts), made in steps. */
async function rankFactsByPlace(facts: FactRows): Promise<Uint32Array> {
  const slices = new TimeSlices();
  const rankFacts = new Uint32Array(facts.length);
  for (let i = 0; i < facts.length; i++) {
    rankFacts[i] = facts.packed(i);
    if ((i & STEP_MASK) === STEP_MASK) await slices.due();
  }
  return rankFacts;
}

/** Leaves made between two turns on the node's thread (about a millisecond of work). */
const LEAVES_PER_SLICE = 256;

interface KeptHour {
  size: number;
  order: Int32Array;
  facts: Uint32Array;
  tileRoots: Buffer;
}

export interface StatementAnswer extends StoredStatement {
  /** The signed note. */
  note: string;
}

export class HourStatements {
  readonly #ctx: DirectoryContext;
  readonly #tree: EvidenceTree;
  readonly #key: NetworkKey;
  /** What the last hours' leaves are made from, and leaf hashes of their tiles: none of it ever changes. */
  readonly #hours = new Kept<Promise<KeptHour | null>>(4);
  readonly #tiles = new Kept<{ texts: string[]; hashes: Buffer[] }>(256);
  readonly #roots = new Kept<Buffer>(50_000);
  /** Statements being made (off the search path, in steps): asking for one waits for it. */
  readonly #making = new Map<number, Promise<unknown>>();

  readonly #hasher: OrderTreeHasher;

  /** `hasher`: where an order's tree is hashed (on this thread unless given; app.ts gives large orders a worker). */
  constructor(ctx: DirectoryContext, tree: EvidenceTree, key: NetworkKey, hasher: OrderTreeHasher = hashedHere) {
    this.#ctx = ctx;
    this.#tree = tree;
    this.#key = key;
    this.#hasher = hasher;
  }

  /**
   * The statement of the order just computed and stored: `facts` in the order's place order (the
   * sorted FactTable); `checks` the log's size before and after the order read its listings. Also
   * signs the log's head, so a head covering the night's entries and the checks read exists.
   */
  record(hourStart: number, rulesVersion: number, facts: FactRows, checks: { from: number; to: number }): Promise<StoredStatement | null> {
    const making = this.#record(hourStart, rulesVersion, facts, checks);
    this.#making.set(hourStart, making);
    const done = () => {
      if (this.#making.get(hourStart) === making) this.#making.delete(hourStart);
    };
    making.then(done, done);
    return making;
  }

  /** The same, giving the event loop a turn every few milliseconds of work: a million leaves take seconds of CPU, and searches go on meanwhile. */
  async #record(hourStart: number, rulesVersion: number, facts: FactRows, checks: { from: number; to: number }): Promise<StoredStatement | null> {
    const { store, clock } = this.#ctx;
    const night = await store.reputation.latestComplete(nightOf(hourStart));
    const logSize = night ? await store.evidence.sizeBefore(night.scoringTime) : 0;
    const logRoot = await this.#tree.root(logSize);
    const tiers = new Map<string, Tier>();
    if (night) {
      let after: string | null = null;
      for (;;) {
        const from = after;
        const batch: { domain: string; tier: Tier }[] = await pacedQuery(() => store.reputation.scores(night.night, from, 5_000), store.queriesOnServer);
        for (const s of batch) tiers.set(s.domain, s.tier);
        if (batch.length < 5_000) break;
        after = (batch[batch.length - 1] as { domain: string }).domain;
      }
    }
    // The listings' keys are read in seq order, a range at a time, and each one's leaf made at its
    // place. Read in the order's own order, each part was a lookup of 1,024 listings at random,
    // which cost the database server 13 times the CPU (at 1 M); and keys kept all at once would be
    // millions of objects for the collector to mark.
    const size = facts.length;
    const sources: LeafSources = { placeOfSeq: await placesBySeq(facts), rankFacts: await rankFactsByPlace(facts), tiers };
    const tree = this.#hasher(size);
    let made: OrderTree;
    let packed: Uint32Array;
    try {
      let given: number;
      if (tree.readKeys) ({ given, leafFacts: packed } = await tree.readKeys(sources));
      else ({ given, packed } = await this.#leavesHere(size, sources, tree));
      if (given !== size) throw new Error(`${size - given} listings of the hour's order are not stored`);
      made = await tree.finish();
    } catch (error) {
      tree.abandon();
      throw error;
    }
    const orderRoot = made.root;
    const roots = made.tileRoots;
    const body = {
      origin: `${networkHostOf(this.#ctx.settings.baseUrl)}/v1/orders`,
      hour: hourStart,
      rules: rulesVersion,
      shuffleDay: shuffleDay(hourStart),
      night: night ? night.scoringTime : null,
      logSize,
      logRoot,
      checks,
      orderSize: facts.length,
      orderRoot,
    };
    const statement: StoredStatement = {
      hourStart,
      rulesVersion,
      shuffleDay: body.shuffleDay,
      night: body.night,
      logSize,
      logRoot,
      checks,
      orderSize: facts.length,
      orderRoot,
      note: this.#key.sign(statementText(body)),
      createdAt: clock.now(),
    };
    const kept = await store.statements.put(statement, { facts: Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength), tileRoots: roots });
    await store.statements.pruneLeafFacts(hourStart - LEAVES_KEPT_MS);
    await signHead(store, this.#tree, this.#key, clock.now());
    return kept ? statement : await store.statements.get(hourStart);
  }

  /**
   * The leaves made on this thread from keys read through the node's own store (an order small enough
   * to hash here, an in-memory database, or no connection to spare for a worker's reads), with a turn
   * after each read and every few milliseconds of work: a million leaves take seconds of CPU, and
   * searches go on meanwhile.
   */
  async #leavesHere(size: number, sources: LeafSources, tree: OrderTreeHashing): Promise<{ given: number; packed: Uint32Array }> {
    const { store } = this.#ctx;
    const packed = new Uint32Array(size);
    const slices = new TimeSlices();
    let given = 0;
    const parts = keysInSeqOrder((after, limit) => pacedQuery(() => store.statements.listingKeysAfter(after, limit), store.queriesOnServer));
    for await (const keys of parts) {
      await slices.turn();
      for (let start = 0; start < keys.length; start += LEAVES_PER_SLICE) {
        const { texts, places } = leavesOfKeys(keys.slice(start, start + LEAVES_PER_SLICE), sources, packed);
        // Hashed before the next part is made, and paced: a worker hashing without pause takes a core from the searches.
        if (texts.length > 0) await pacedHandOff(() => tree.add(texts, places));
        given += texts.length;
        await slices.due();
      }
      if (given >= size) break;
    }
    return { given, packed };
  }

  async get(hourStart: number): Promise<StoredStatement | null> {
    await this.#settled(hourStart);
    return this.#ctx.store.statements.get(hourStart);
  }

  /** Waits for the hour's statement if this process is making it (whatever came of it). */
  async #settled(hourStart: number): Promise<void> {
    await this.#making.get(hourStart)?.catch(() => undefined);
  }

  /** Leaves [start, start + count) of the hour's order; null when they are no longer kept (or the hour has no statement). */
  async leaves(hourStart: number, start: number, count: number): Promise<string[] | null> {
    const kept = await this.#kept(hourStart);
    if (!kept) return null;
    const end = Math.min(kept.size, start + count);
    return start >= end ? [] : this.#leafTexts(kept, start, end);
  }

  /** The leaf at a place (from 1) and its inclusion proof under the statement's order root. */
  async proof(hourStart: number, position: number): Promise<{ leaf: string; proof: Buffer[]; size: number } | null> {
    const kept = await this.#kept(hourStart);
    if (!kept) return null;
    const index = position - 1;
    const tiles = new Set([Math.floor(index / TILE_WIDTH)]);
    if (kept.size % TILE_WIDTH !== 0) tiles.add(Math.floor(kept.size / TILE_WIDTH));
    const leaves = new Map<number, Buffer>();
    let text = '';
    for (const tile of tiles) {
      const start = tile * TILE_WIDTH;
      const cacheKey = `${hourStart}/${tile}`;
      let read = this.#tiles.get(cacheKey);
      if (!read) {
        const texts = await this.#leafTexts(kept, start, Math.min(kept.size, start + TILE_WIDTH));
        read = { texts, hashes: texts.map((t) => leafHash(t)) };
        this.#tiles.set(cacheKey, read);
      }
      read.hashes.forEach((h, k) => leaves.set(start + k, h));
      if (tile === Math.floor(index / TILE_WIDTH)) text = read.texts[index - start] as string;
    }
    const roots = this.#roots;
    const source: HashSource = {
      leaf: (i) => leaves.get(i) as Buffer,
      known: (start, n) =>
        n === TILE_WIDTH && (start / TILE_WIDTH + 1) * HASH_BYTES <= kept.tileRoots.length
          ? kept.tileRoots.subarray((start / TILE_WIDTH) * HASH_BYTES, (start / TILE_WIDTH + 1) * HASH_BYTES)
          : roots.get(`${hourStart}/${start}:${n}`),
      remember: (start, n, root) => {
        if (n >= 16) roots.set(`${hourStart}/${start}:${n}`, root);
      },
    };
    return { leaf: text, proof: inclusionProof(source, index, kept.size), size: kept.size };
  }

  #kept(hourStart: number): Promise<KeptHour | null> {
    const key = String(hourStart);
    let kept = this.#hours.get(key);
    if (!kept) {
      kept = this.#read(hourStart);
      this.#hours.set(key, kept);
      // Not found now may be found later (the hour's statement not made yet): not kept.
      const forget = () => this.#hours.delete(key);
      void kept.then((found) => found ?? forget(), forget);
    }
    return kept;
  }

  async #read(hourStart: number): Promise<KeptHour | null> {
    await this.#settled(hourStart);
    const store = this.#ctx.store;
    const [statement, order, leafFacts] = await Promise.all([store.statements.get(hourStart), store.orders.get(hourStart), store.statements.leafFacts(hourStart)]);
    if (!statement || !order || !leafFacts || order.order.length !== statement.orderSize) return null;
    const facts = new Uint32Array(leafFacts.facts.buffer.slice(leafFacts.facts.byteOffset, leafFacts.facts.byteOffset + leafFacts.facts.byteLength));
    return { size: statement.orderSize, order: order.order, facts, tileRoots: leafFacts.tileRoots };
  }

  async #leafTexts(kept: KeptHour, start: number, end: number): Promise<string[]> {
    const seqs = Array.from(kept.order.subarray(start, end));
    const keys = await this.#ctx.store.statements.listingKeys(seqs);
    return seqs.map((seq, k) => {
      const key = keys.get(seq);
      if (!key) throw new Error(`listing ${seq} of a stored order is not stored`);
      return orderLeafText({ pos: start + k + 1, id: key.id, domain: key.domain, ...unpackFacts(kept.facts[start + k] as number) });
    });
  }
}
