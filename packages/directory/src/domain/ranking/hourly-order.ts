/**
 * The hourly order (directory spec §4, ranking rules): computed once per hour at :00 UTC over every
 * listed business and frozen. Nothing a profile says and nothing paid enters it: only membership,
 * whether an inbox answered, reachable doors and level, reputation, and the day's shuffle.
 */
import { hash } from 'node:crypto';
import { levelRank, listingLevel, type ListingRecord } from '../listings/listing.js';
import { STEP_MASK, filledInSteps, runAtOnce } from '../stepwise.js';
import type { PublishedRules } from './rules.js';

export const HOUR_MS = 3_600_000;

export function hourStartOf(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS;
}

/** First 16 hex characters of SHA-256("<YYYY-MM-DD>:<id lowercased>"): the day's shuffle key, a string. */
export function rankShuffle(hourStartMs: number, listingId: string): string {
  return shuffleOfDay(shuffleDay(hourStartMs), listingId);
}

/** The UTC date (YYYY-MM-DD) whose shuffle stands in the hour. */
export function shuffleDay(hourStartMs: number): string {
  return new Date(hourStartMs).toISOString().slice(0, 10);
}

function shuffleOfDay(day: string, listingId: string): string {
  // One-shot hashing: computed for every listing once a day (DayShuffles) and each hour when the order is computed.
  return hash('sha256', `${day}:${listingId.toLowerCase()}`, 'hex').slice(0, 16);
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

/**
 * Every listing's shuffle key for one UTC day, computed once for the day (not per answer): by listing
 * seq, as two 32-bit halves of the 16 hex characters. A listing added since falls back to hashing.
 */
export class DayShuffles {
  readonly day: string;
  readonly #hi: Uint32Array;
  readonly #lo: Uint32Array;
  readonly #known: Uint8Array;

  private constructor(day: string, size: number) {
    this.day = day;
    this.#hi = new Uint32Array(size);
    this.#lo = new Uint32Array(size);
    this.#known = new Uint8Array(size);
  }

  /** From each listing's seq and id; `shuffle` when the key was already computed for this day (rankFacts, a FactTable). */
  static build(day: string, listings: readonly { seq: number; id: string; shuffle?: string }[] | FactRows): DayShuffles {
    if (isFactRows(listings)) return runAtOnce(DayShuffles.fromRowsInSteps(day, listings));
    let maxSeq = 0;
    for (const l of listings) if (l.seq > maxSeq) maxSeq = l.seq;
    const table = new DayShuffles(day, maxSeq + 1);
    for (const l of listings) {
      const key = l.shuffle ?? shuffleOfDay(day, l.id);
      table.#hi[l.seq] = Number.parseInt(key.slice(0, 8), 16);
      table.#lo[l.seq] = Number.parseInt(key.slice(8, 16), 16);
      table.#known[l.seq] = 1;
    }
    return table;
  }

  /** Bytes of the table's arrays. */
  get byteLength(): number {
    return this.#hi.byteLength + this.#lo.byteLength + this.#known.byteLength;
  }

  /** Whether the table has the listing (else get() needs its id to hash). */
  has(seq: number): boolean {
    return this.#known[seq] === 1;
  }

  /** From a FactTable's rows, in steps (a pause every STEP_ROWS rows: millions of listings are written at random places). */
  static *fromRowsInSteps(day: string, rows: FactRows): Generator<void, DayShuffles> {
    const table = new DayShuffles(day, (yield* maxSeqInSteps(rows)) + 1);
    // written below at random places: their pages mapped first, in order (filledInSteps)
    yield* filledInSteps(table.#hi, 0);
    yield* filledInSteps(table.#lo, 0);
    yield* filledInSteps(table.#known, 0);
    for (let i = 0; i < rows.length; i++) {
      const seq = rows.seq(i);
      table.#hi[seq] = rows.shuffleHi(i);
      table.#lo[seq] = rows.shuffleLo(i);
      table.#known[seq] = 1;
      if (i % STEP_ROWS === STEP_ROWS - 1) yield;
    }
    return table;
  }

  /** The key's first and last 32 bits as numbers (has(seq) must hold). */
  hiOf(seq: number): number {
    return this.#hi[seq] as number;
  }

  loOf(seq: number): number {
    return this.#lo[seq] as number;
  }

  /** The listing's shuffle key on this table's day (rankShuffle). */
  get(seq: number, listingId: string): string {
    if (this.#known[seq] !== 1) return shuffleOfDay(this.day, listingId);
    return this.known(seq);
  }

  /** The key of a listing the table has (has(seq)). */
  known(seq: number): string {
    return hex8(this.#hi[seq] as number) + hex8(this.#lo[seq] as number);
  }
}

/** Reputation as of the last nightly snapshot (domain/reputation/snapshot.ts); a business without one is not ranked. */
export interface Standing {
  scoreInt: number;
  ranked: boolean;
}

export const NO_STANDING: Standing = Object.freeze({ scoreInt: 0, ranked: false });

export interface RankFacts {
  seq: number;
  member: boolean;
  answering: boolean;
  /** 1: reachable now; 2: reachable through other live agent doors; 3: not reachable. */
  reach: 1 | 2 | 3;
  level: number;
  standing: Standing;
  shuffle: string;
  id: string;
}

/**
 * A listing's facts before the shuffle in one 32-bit number (FactTable, HourRanks): member (bit 0),
 * answering (1), reach (2–3), level (4–6), ranked (7), the standing's score (8–23).
 */
export const PackedFacts = {
  pack(f: Pick<RankFacts, 'member' | 'answering' | 'reach' | 'level' | 'standing'>): number {
    if (!(f.level >= 0 && f.level <= 7) || !(f.standing.scoreInt >= 0 && f.standing.scoreInt <= 0xffff)) throw new RangeError(`rank facts out of range: level ${f.level}, score ${f.standing.scoreInt}`);
    return ((f.member ? 1 : 0) | (f.answering ? 2 : 0) | (f.reach << 2) | (f.level << 4) | (f.standing.ranked ? 0x80 : 0) | (f.standing.scoreInt << 8)) >>> 0;
  },
  member: (p: number): boolean => (p & 1) !== 0,
  answering: (p: number): boolean => (p & 2) !== 0,
  reach: (p: number): 1 | 2 | 3 => ((p >>> 2) & 3) as 1 | 2 | 3,
  level: (p: number): number => (p >>> 4) & 7,
  ranked: (p: number): boolean => (p & 0x80) !== 0,
  scoreInt: (p: number): number => (p >>> 8) & 0xffff,
};

/** Rank facts by row as columns (FactTable): what the hour's tables are made from without an object per listing. */
export interface FactRows {
  readonly length: number;
  seq(i: number): number;
  /** PackedFacts of the row. */
  packed(i: number): number;
  shuffleHi(i: number): number;
  shuffleLo(i: number): number;
}

/** Rows between two pauses of a table made in steps (as the index's steps: 4,096). */
const STEP_ROWS = STEP_MASK + 1;

function isFactRows(x: object): x is FactRows {
  return typeof (x as FactRows).packed === 'function';
}

/** Each seq's place in the hour's sorted rows (-1: a seq not in them), in steps as the tables above. */
export function* placesInSteps(rows: FactRows): Generator<void, Int32Array> {
  const places = yield* filledInSteps(new Int32Array((yield* maxSeqInSteps(rows)) + 1), -1);
  for (let i = 0; i < rows.length; i++) {
    places[rows.seq(i)] = i;
    if (i % STEP_ROWS === STEP_ROWS - 1) yield;
  }
  return places;
}

function* maxSeqInSteps(rows: FactRows): Generator<void, number> {
  let max = 0;
  for (let i = 0; i < rows.length; i++) {
    if (rows.seq(i) > max) max = rows.seq(i);
    if (i % STEP_ROWS === STEP_ROWS - 1) yield;
  }
  return max;
}

/** The facts a view's place and why are written from. */
export type PlacementFacts = Pick<RankFacts, 'member' | 'answering' | 'reach' | 'standing' | 'shuffle'>;

export function isAnswering(listing: Pick<ListingRecord, 'source' | 'lastPingAt'>, atMs: number, answeringHours: number): boolean {
  return listing.source === 'member' && listing.lastPingAt !== null && listing.lastPingAt >= atMs - answeringHours * HOUR_MS;
}

/** What the order reads of a listing (kept as columns in storage, so no document is parsed). */
export interface RankInputs {
  seq: number;
  id: string;
  source: ListingRecord['source'];
  lastPingAt: number | null;
  level: number;
  agentDoor: boolean;
}

export function rankInputsOf(listing: ListingRecord): RankInputs {
  return {
    seq: listing.seq,
    id: listing.id,
    source: listing.source,
    lastPingAt: listing.lastPingAt,
    level: levelRank(listingLevel(listing.doors)),
    agentDoor: listing.doors.some((d) => d.status === 'live' && d.type !== 'inbox' && levelRank(d.level) >= levelRank('askable')),
  };
}

export function rankFacts(inputs: RankInputs, hourStartMs: number, rules: PublishedRules, standing: Standing, shuffles?: DayShuffles): RankFacts {
  const { member, answering, reach, level } = factsWithoutShuffle(inputs, hourStartMs, rules);
  return { seq: inputs.seq, member, answering, reach, level, standing, shuffle: shuffles ? shuffles.get(inputs.seq, inputs.id) : rankShuffle(hourStartMs, inputs.id), id: inputs.id };
}

function compareV6(a: RankFacts, b: RankFacts): number {
  return (
    Number(b.member) - Number(a.member) ||
    Number(b.answering) - Number(a.answering) ||
    compareStanding(a, b) ||
    (a.shuffle < b.shuffle ? -1 : a.shuffle > b.shuffle ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function compareV7(a: RankFacts, b: RankFacts): number {
  return (
    a.reach - b.reach ||
    (a.reach === 2 ? b.level - a.level : 0) ||
    compareStanding(a, b) ||
    (a.shuffle < b.shuffle ? -1 : a.shuffle > b.shuffle ? 1 : 0) ||
    Number(b.member) - Number(a.member) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function compareStanding(a: RankFacts, b: RankFacts): number {
  return Number(b.standing.ranked) - Number(a.standing.ranked) || (a.standing.ranked ? b.standing.scoreInt - a.standing.scoreInt : 0);
}

/** How the rules sort two listings (a total order: ids are unique). */
export function compareFor(rules: PublishedRules): (a: RankFacts, b: RankFacts) => number {
  return rules.numbers.membersFirst ? compareV6 : compareV7;
}

/** Whether two facts of one listing place it alike (its shuffle and id do not change within the hour). */
export function samePlaceFacts(a: RankFacts, b: RankFacts): boolean {
  return a.member === b.member && a.answering === b.answering && a.reach === b.reach && a.level === b.level && a.standing.ranked === b.standing.ranked && a.standing.scoreInt === b.standing.scoreInt;
}

/**
 * What the hour's order knows of each listing (member, answering, reach), by seq, so that an
 * answer can show a listing's place and why without reading its documents. Listings added since the
 * table was made are not in it (`has` is false).
 */
export class HourRanks {
  /** PackedFacts by seq (0: not in the order; a listed one's reach is never 0). */
  readonly #packed: Uint32Array;

  private constructor(size: number) {
    this.#packed = new Uint32Array(size);
  }

  /**
   * From the facts of the order just computed, or from every listing's rank inputs and the hour's
   * standings (the order was stored by another process).
   */
  static build(hourStartMs: number, rules: PublishedRules, listings: readonly (RankInputs | RankFacts)[] | FactRows, standings: ReadonlyMap<number, Standing>): HourRanks {
    if (isFactRows(listings)) return runAtOnce(HourRanks.fromRowsInSteps(listings));
    let maxSeq = 0;
    for (const l of listings) if (l.seq > maxSeq) maxSeq = l.seq;
    const table = new HourRanks(maxSeq + 1);
    for (const l of listings) {
      const facts = 'reach' in l ? l : factsWithoutShuffle(l, hourStartMs, rules);
      const standing = 'standing' in l ? l.standing : (standings.get(l.seq) ?? NO_STANDING);
      table.#packed[l.seq] = PackedFacts.pack({ ...facts, standing });
    }
    return table;
  }

  /** From a FactTable's rows, in steps (a pause every STEP_ROWS rows). */
  static *fromRowsInSteps(rows: FactRows): Generator<void, HourRanks> {
    const table = new HourRanks((yield* maxSeqInSteps(rows)) + 1);
    yield* filledInSteps(table.#packed, 0);
    for (let i = 0; i < rows.length; i++) {
      table.#packed[rows.seq(i)] = rows.packed(i);
      if (i % STEP_ROWS === STEP_ROWS - 1) yield;
    }
    return table;
  }

  /** A copy with these listings' facts replaced (null: no longer in the order). */
  amended(again: ReadonlyMap<number, RankFacts | null>): HourRanks {
    let size = this.#packed.length;
    for (const seq of again.keys()) if (seq >= size) size = seq + 1;
    const table = new HourRanks(size);
    table.#packed.set(this.#packed);
    for (const [seq, facts] of again) table.#packed[seq] = facts ? PackedFacts.pack(facts) : 0;
    return table;
  }

  /** Bytes of the table's arrays. */
  get byteLength(): number {
    return this.#packed.byteLength;
  }

  has(seq: number): boolean {
    return seq < this.#packed.length && this.#packed[seq] !== 0;
  }

  /** What a view shows of the listing's place this hour (has(seq) must hold). */
  placement(seq: number, shuffle: string): PlacementFacts {
    const p = this.#packed[seq] as number;
    return {
      member: PackedFacts.member(p),
      answering: PackedFacts.answering(p),
      reach: PackedFacts.reach(p),
      standing: { scoreInt: PackedFacts.scoreInt(p), ranked: PackedFacts.ranked(p) },
      shuffle,
    };
  }
}

export function factsWithoutShuffle(inputs: RankInputs, hourStartMs: number, rules: PublishedRules): Pick<RankFacts, 'member' | 'answering' | 'reach' | 'level'> {
  const answering = isAnswering(inputs, hourStartMs, rules.numbers.answeringHours);
  return { member: inputs.source === 'member', answering, reach: answering ? 1 : inputs.agentDoor ? 2 : 3, level: inputs.level };
}

/** Why a business is where it is, in plain words. */
export function whyPlaced(facts: PlacementFacts, rankPos: number, rules: PublishedRules): string {
  return `Place ${rankPos} in this hour's order (rules ${rules.version}). ${whyClass(facts, rules)}`;
}

/** The sentences after the place: how the listing stands under the rules, and by reputation or the shuffle. */
function whyClass(facts: PlacementFacts, rules: PublishedRules): string {
  const standing = rules.numbers.membersFirst
    ? !facts.member
      ? 'Not a member, so it comes after every member.'
      : facts.answering
        ? 'A member whose inbox answered in the last day.'
        : 'A member whose inbox has not answered in the last day.'
    : facts.reach === 1
      ? 'Reachable now: a member whose inbox answered in the last day.'
      : facts.reach === 2
        ? 'Reachable through a live agent door; higher readiness levels come first.'
        : 'No door answered recently, so it comes after businesses that can be reached now.';
  const order = facts.standing.ranked
    ? `Ranked by its reputation (score ${(facts.standing.scoreInt / 10_000).toFixed(4)}).`
    : "Not ranked by reputation yet, so placed by today's shuffle.";
  return `${standing} ${order}`;
}
