/**
 * Every listing's rank facts for one hour as columns (issue 40): what the hour's order is sorted from,
 * its statement made from, and what the next hour prepared ahead keeps for ten minutes. Held as
 * objects (a RankFacts, its shuffle and its id each), 4.5 million listings made ~13 million objects
 * that every full collection of the heap had to mark: seconds of pause at the hour's change. As
 * typed arrays and one buffer of ids there is nothing for the collector to walk.
 *
 * The sort here is the rules' own (compareFor): each row's facts before the shuffle are folded into
 * one number that sorts the same way, then the shuffle's two halves, then what the rules compare
 * after it (fact-table.test.ts checks it against sorting the objects with compareFor).
 */
import { NO_STANDING, PackedFacts, factsWithoutShuffle, rankShuffle, type DayShuffles, type FactRows, type RankFacts, type RankInputs, type Standing } from './hourly-order.js';
import { STEP_MASK, runAtOnce } from '../stepwise.js';
import type { PublishedRules } from './rules.js';

/** Rows sorted at once before the merges (sortedInSteps), and rows between pauses. */
const RUN = 4_096;
const STEP = STEP_MASK + 1;
const { pack } = PackedFacts;

function standingOf(p: number): Standing {
  const ranked = PackedFacts.ranked(p);
  const scoreInt = PackedFacts.scoreInt(p);
  return !ranked && scoreInt === 0 ? NO_STANDING : { scoreInt, ranked };
}

/** What the rules compare before the shuffle, as one number that sorts ascending the same way. */
function keyBeforeShuffle(p: number, membersFirst: boolean): number {
  const ranked = PackedFacts.ranked(p);
  const standing = ranked ? 0xffff - PackedFacts.scoreInt(p) : 1 << 16;
  if (membersFirst) return ((PackedFacts.member(p) ? 0 : 1) << 18) | ((PackedFacts.answering(p) ? 0 : 1) << 17) | standing;
  const reach = PackedFacts.reach(p);
  return (reach << 20) | ((reach === 2 ? 7 - PackedFacts.level(p) : 0) << 17) | standing;
}

/** What the rules compare after the shuffle and before the id (v7: members first among equals). */
function keyAfterShuffle(p: number, membersFirst: boolean): number {
  return membersFirst || PackedFacts.member(p) ? 0 : 1;
}

function isLatin1(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 0xff) return false;
  return true;
}

export class FactTable implements FactRows {
  #length = 0;
  #seq: Int32Array;
  #packed: Uint32Array;
  #hi: Uint32Array;
  #lo: Uint32Array;
  /** Ids one after another (latin1); row i's is idOff[i] .. idOff[i + 1]. */
  #ids: Buffer;
  #idOff: Int32Array;
  /** Ids with a character past latin1 (none in practice: ids are ULIDs), by row. */
  #wide: Map<number, string> | null = null;

  constructor(capacity = 1_024) {
    const n = Math.max(16, capacity);
    this.#seq = new Int32Array(n);
    this.#packed = new Uint32Array(n);
    this.#hi = new Uint32Array(n);
    this.#lo = new Uint32Array(n);
    this.#idOff = new Int32Array(n + 1);
    this.#ids = Buffer.allocUnsafe(n * 26);
  }

  get length(): number {
    return this.#length;
  }

  /** A row from a listing's rank inputs (rankFacts without the object): its shuffle from the day's table where it has the listing. */
  pushInputs(inputs: RankInputs, hourStartMs: number, rules: PublishedRules, standing: Standing, shuffles?: DayShuffles): void {
    const facts = factsWithoutShuffle(inputs, hourStartMs, rules);
    const packed = pack({ ...facts, standing });
    if (shuffles?.has(inputs.seq)) this.#push(inputs.seq, packed, shuffles.hiOf(inputs.seq), shuffles.loOf(inputs.seq), inputs.id);
    else this.#pushKey(inputs.seq, packed, rankShuffle(hourStartMs, inputs.id), inputs.id);
  }

  push(f: RankFacts): void {
    this.#pushKey(f.seq, pack(f), f.shuffle, f.id);
  }

  #pushKey(seq: number, packed: number, shuffle: string, id: string): void {
    this.#push(seq, packed, Number.parseInt(shuffle.slice(0, 8), 16), Number.parseInt(shuffle.slice(8, 16), 16), id);
  }

  #push(seq: number, packed: number, hi: number, lo: number, id: string): void {
    const wide = !isLatin1(id);
    const at = this.#row(seq, packed, hi, lo, wide ? 0 : id.length);
    if (wide) (this.#wide ??= new Map()).set(this.#length - 1, id);
    else this.#ids.write(id, at, 'latin1');
  }

  /** Adds a row with room for `idBytes` of its id; returns where the id goes. */
  #row(seq: number, packed: number, hi: number, lo: number, idBytes: number): number {
    const i = this.#length;
    if (i === this.#seq.length) this.#grow(i * 2);
    this.#seq[i] = seq;
    this.#packed[i] = packed;
    this.#hi[i] = hi;
    this.#lo[i] = lo;
    const at = this.#idOff[i]!;
    this.#roomForIds(at + idBytes);
    this.#idOff[i + 1] = at + idBytes;
    this.#length = i + 1;
    return at;
  }

  /** The ids' buffer holds at least `bytes` (the ids written so far kept). */
  #roomForIds(bytes: number): void {
    if (bytes <= this.#ids.length) return;
    const ids = Buffer.allocUnsafe(Math.max(this.#ids.length * 2, bytes));
    this.#ids.copy(ids, 0, 0, this.#idOff[this.#length]!);
    this.#ids = ids;
  }

  #grow(capacity: number): void {
    const grown = <T extends Int32Array | Uint32Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a.subarray(0, Math.min(a.length, n)));
      return b;
    };
    this.#seq = grown(this.#seq, capacity);
    this.#packed = grown(this.#packed, capacity);
    this.#hi = grown(this.#hi, capacity);
    this.#lo = grown(this.#lo, capacity);
    this.#idOff = grown(this.#idOff, capacity + 1);
  }

  /** Copies row i of another table onto the end of this one. */
  pushRow(from: FactTable, i: number): void {
    const wide = from.#wide?.get(i);
    if (wide !== undefined) {
      this.#push(from.#seq[i]!, from.#packed[i]!, from.#hi[i]!, from.#lo[i]!, wide);
      return;
    }
    const start = from.#idOff[i]!;
    const end = from.#idOff[i + 1]!;
    const at = this.#row(from.#seq[i]!, from.#packed[i]!, from.#hi[i]!, from.#lo[i]!, end - start);
    // byte by byte: an id is a few dozen bytes, less than a native copy's call costs
    const src = from.#ids;
    const dst = this.#ids;
    for (let k = start; k < end; k++) dst[at + k - start] = src[k]!;
  }

  /** Copies rows start .. end - 1 of another table onto the end of this one, in bulk. */
  pushRows(from: FactTable, start: number, end: number): void {
    const count = end - start;
    if (count <= 0) return;
    const i = this.#length;
    if (i + count > this.#seq.length) this.#grow(Math.max(i + count, i * 2));
    this.#seq.set(from.#seq.subarray(start, end), i);
    this.#packed.set(from.#packed.subarray(start, end), i);
    this.#hi.set(from.#hi.subarray(start, end), i);
    this.#lo.set(from.#lo.subarray(start, end), i);
    const at = this.#idOff[i]!;
    const a = from.#idOff[start]!;
    const b = from.#idOff[end]!;
    this.#roomForIds(at + b - a);
    from.#ids.copy(this.#ids, at, a, b);
    for (let k = 1; k <= count; k++) this.#idOff[i + k] = from.#idOff[start + k]! - a + at;
    if (from.#wide) for (const [row, id] of from.#wide) if (row >= start && row < end) (this.#wide ??= new Map()).set(i + row - start, id);
    this.#length = i + count;
  }

  seq(i: number): number {
    return this.#seq[i]!;
  }

  /** Member, answering, reach, level and standing of row i in one number (what HourRanks keeps). */
  packed(i: number): number {
    return this.#packed[i]!;
  }

  shuffleHi(i: number): number {
    return this.#hi[i]!;
  }

  shuffleLo(i: number): number {
    return this.#lo[i]!;
  }

  id(i: number): string {
    return this.#wide?.get(i) ?? this.#ids.toString('latin1', this.#idOff[i]!, this.#idOff[i + 1]!);
  }

  /** Row i as the RankFacts object the rest of the domain reads. */
  at(i: number): RankFacts {
    const p = this.#packed[i]!;
    return {
      seq: this.#seq[i]!,
      member: PackedFacts.member(p),
      answering: PackedFacts.answering(p),
      reach: PackedFacts.reach(p),
      level: PackedFacts.level(p),
      standing: standingOf(p),
      shuffle: this.#hi[i]!.toString(16).padStart(8, '0') + this.#lo[i]!.toString(16).padStart(8, '0'),
      id: this.id(i),
    };
  }

  /** The seqs in row order: the hour's order once the table is sorted. */
  seqs(): Int32Array {
    return this.#seq.slice(0, this.#length);
  }

  /** Row a of this table against row b of `other` under the rules (compareFor on their objects). */
  compare(a: number, other: FactTable, b: number, membersFirst: boolean): number {
    const pa = this.#packed[a]!;
    const pb = other.#packed[b]!;
    return (
      keyBeforeShuffle(pa, membersFirst) - keyBeforeShuffle(pb, membersFirst) ||
      this.#hi[a]! - other.#hi[b]! ||
      this.#lo[a]! - other.#lo[b]! ||
      keyAfterShuffle(pa, membersFirst) - keyAfterShuffle(pb, membersFirst) ||
      compareIds(this.id(a), other.id(b))
    );
  }

  /** The rows in the order given (row indices), in steps. */
  *permutedInSteps(rows: Int32Array): Generator<void, FactTable> {
    const out = new FactTable(rows.length);
    for (let k = 0; k < rows.length; k++) {
      out.pushRow(this, rows[k]!);
      if (k % STEP === STEP - 1) yield;
    }
    return out;
  }
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The table sorted by the rules, in steps (sorted runs, then merged pairwise, a pause every few
 * thousand rows), so the next hour's order is sorted while searches go on. A new table.
 */
export function* sortedInSteps(table: FactTable, rules: PublishedRules): Generator<void, FactTable> {
  const membersFirst = rules.numbers.membersFirst;
  const n = table.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = table.packed(i);
    // before the shuffle (21 bits) and its high half: one number, exact in a double
    keys[i] = keyBeforeShuffle(p, membersFirst) * 2 ** 32 + table.shuffleHi(i);
    if (i % STEP === STEP - 1) yield;
  }
  const compare = (a: number, b: number): number => keys[a]! - keys[b]! || table.compare(a, table, b, membersFirst);
  let src = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    src[i] = i;
    if (i % STEP === STEP - 1) yield;
  }
  for (let lo = 0; lo < n; lo += RUN) {
    src.subarray(lo, Math.min(n, lo + RUN)).sort(compare);
    yield;
  }
  let dst = new Int32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let o = lo; o < hi; o++) {
        dst[o] = j >= hi || (i < mid && compare(src[i]!, src[j]!) <= 0) ? src[i++]! : src[j++]!;
        if ((o & (STEP - 1)) === STEP - 1) yield;
      }
    }
    [src, dst] = [dst, src];
  }
  return yield* table.permutedInSteps(src);
}

/** The table sorted by the rules, at once. */
export function sortedTable(table: FactTable, rules: PublishedRules): FactTable {
  return runAtOnce(sortedInSteps(table, rules));
}

/**
 * An order sorted ahead of its hour, with some listings placed again: `again` gives each one's facts
 * now (null: no longer listed). The others keep their sequence; the result is what sorting every
 * listing's facts now would give, in one pass.
 */
export function amendedTable(sorted: FactTable, again: ReadonlyMap<number, RankFacts | null>, rules: PublishedRules): FactTable {
  const membersFirst = rules.numbers.membersFirst;
  const placed = new FactTable(again.size);
  for (const facts of again.values()) if (facts) placed.push(facts);
  const sortedPlaced = sortedTable(placed, rules);
  let top = -1;
  for (const seq of again.keys()) if (seq > top) top = seq;
  const isAgain = new Uint8Array(top + 1);
  for (const seq of again.keys()) if (seq >= 0) isAgain[seq] = 1;
  // Where each one placed again goes: before the first row it sorts before (a binary search; the
  // rows' sequence holds whatever is left out of it).
  const at = new Int32Array(sortedPlaced.length);
  for (let j = 0, low = 0; j < sortedPlaced.length; j++) {
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (sortedPlaced.compare(j, sorted, mid, membersFirst) < 0) high = mid;
      else low = mid + 1;
    }
    at[j] = low;
  }
  const out = new FactTable(sorted.length + sortedPlaced.length);
  // the sorted rows copied in runs, between the rows left out and the places of those placed again
  let runStart = 0;
  let j = 0;
  for (let i = 0; i <= sorted.length; i++) {
    const placing = j < sortedPlaced.length && at[j] === i;
    const seq = i < sorted.length ? sorted.seq(i) : -1;
    const skip = seq >= 0 && seq <= top && isAgain[seq] === 1;
    if (!placing && !skip) continue;
    out.pushRows(sorted, runStart, i);
    while (j < sortedPlaced.length && at[j] === i) out.pushRow(sortedPlaced, j++);
    runStart = skip ? i + 1 : i;
  }
  out.pushRows(sorted, runStart, sorted.length);
  return out;
}
