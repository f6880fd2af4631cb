/**
 * Query clauses over rank positions (0..n-1, ascending = the published order). Each clause is a set
 * of positions that can be walked in order (`seek`), probed (`has`) and read 32 positions at a time
 * as a bit word (`word`), so the planner can drive from the smallest clause and probe the others, or
 * AND bit words when every clause is large.
 */

/** Returned by `seek` when no member is left. */
export const END = 0x7fffffff;

export interface Clause {
  /** An upper bound of the number of members. */
  readonly size: number;
  /** The smallest member >= from, or END. Cheapest when called with ascending `from`. */
  seek(from: number): number;
  has(pos: number): boolean;
  /** Membership bits of positions 32*w .. 32*w+31 (bit i = position 32*w+i). */
  word(w: number): number;
}

export function wordCount(n: number): number {
  return (n + 31) >>> 5;
}

/** A bitset of a sorted list of positions. */
export function bitsetOf(list: Int32Array, n: number): Uint32Array {
  const bits = new Uint32Array(wordCount(n));
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    bits[p >>> 5]! |= 1 << (p & 31);
  }
  return bits;
}

/** First index i in list[lo, hi) with list[i] >= target (hi when none). */
export function lowerBound(list: Int32Array, target: number, lo = 0, hi = list.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A sorted list of positions made for one search (a circle's, the name rule's, the listings left
 * out); probes by galloping from the last probe, and reads bit words from the list itself, so a
 * search over every listing makes no bitset the size of the index for it.
 */
export class ListClause implements Clause {
  private cur = 0;
  readonly size: number;

  constructor(private readonly list: Int32Array) {
    this.size = list.length;
  }

  private index(from: number): number {
    const list = this.list;
    const len = list.length;
    const i = this.cur;
    if (i > 0 && list[i - 1]! >= from) return (this.cur = lowerBound(list, from, 0, i)); // went back
    // every list[< i] is < from
    if (i >= len || list[i]! >= from) return i;
    let lo = i + 1;
    let hi = lo;
    let step = 1;
    while (hi < len && list[hi]! < from) {
      lo = hi + 1;
      step <<= 1;
      hi = lo + step;
    }
    return (this.cur = lowerBound(list, from, lo, hi < len ? hi : len));
  }

  seek(from: number): number {
    const i = this.index(from);
    return i < this.list.length ? this.list[i]! : END;
  }

  has(pos: number): boolean {
    const i = this.index(pos);
    return i < this.list.length && this.list[i] === pos;
  }

  word(w: number): number {
    const list = this.list;
    const from = w << 5;
    let i = this.index(from);
    let x = 0;
    for (; i < list.length && list[i]! < from + 32; i++) x |= 1 << (list[i]! & 31);
    // every list[< i] is < the next ascending word's first position
    this.cur = i;
    return x | 0;
  }
}

/** First index i in lo[from, to) with lo[i] >= target (to when none), galloping from `from`. */
function gallop16(lo: Uint16Array, target: number, from: number, to: number): number {
  if (from >= to || lo[from]! >= target) return from;
  let a = from + 1;
  let b = a;
  let step = 1;
  while (b < to && lo[b]! < target) {
    a = b + 1;
    step <<= 1;
    b = a + step;
  }
  if (b > to) b = to;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (lo[mid]! < target) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * A sorted posting list kept packed (postings.ts): each position's low 16 bits in `lo`, cut in chunks
 * by the rest, chunk h being entries starts[first + h] to starts[first + h + 1]. Probes by bitset
 * when it has one, otherwise by galloping from the last probe within the sought position's chunk.
 */
export class PackedListClause implements Clause {
  /** Index into lo where the last probe stopped: the next one gallops on from there when it seeks further in the same chunk. */
  private cur: number;
  private bits: Uint32Array | null;
  readonly size: number;

  constructor(
    private readonly lo: Uint16Array,
    private readonly starts: Int32Array,
    private readonly first: number,
    private readonly chunks: number,
    bits: Uint32Array | null,
    private readonly bitsSource: () => Uint32Array,
  ) {
    this.cur = starts[first]!;
    this.size = starts[first + chunks]! - this.cur;
    this.bits = bits;
  }

  seek(from: number): number {
    if (from < 0) from = 0;
    const h = from >>> 16;
    if (h >= this.chunks) return END;
    const { lo, starts } = this;
    const c = this.first + h;
    const s = starts[c]!;
    let e = starts[c + 1]!;
    const low = from & 0xffff;
    let i = s;
    const cur = this.cur;
    if (cur > s && cur <= e) {
      // the last answer lies in this chunk: ahead of it, or (went back) before it
      if (lo[cur - 1]! < low) i = cur;
      else e = cur;
    }
    i = gallop16(lo, low, i, e);
    if (i < e) {
      this.cur = i;
      return (h << 16) | lo[i]!;
    }
    // none left in this chunk: the first of the next chunk that has any
    const end = starts[this.first + this.chunks]!;
    this.cur = i;
    if (i >= end) return END;
    let k = c + 1;
    while (starts[k + 1]! <= i) k++;
    return ((k - this.first) << 16) | lo[i]!;
  }

  has(pos: number): boolean {
    const bits = this.bits;
    if (bits !== null) return ((bits[pos >>> 5]! >>> (pos & 31)) & 1) === 1;
    return this.seek(pos) === pos;
  }

  word(w: number): number {
    let bits = this.bits;
    if (bits === null) {
      bits = this.bitsSource();
      this.bits = bits;
    }
    return bits[w]! | 0;
  }
}

/** A posting list kept as a bitset (a list of at least n/32 positions takes less room so). */
export class BitsClause implements Clause {
  private readonly words: number;
  constructor(
    private readonly bits: Uint32Array,
    private readonly n: number,
    readonly size: number,
  ) {
    this.words = wordCount(n);
  }
  seek(from: number): number {
    if (from >= this.n) return END;
    const bits = this.bits;
    let w = from >>> 5;
    let x = (bits[w]! >>> (from & 31)) << (from & 31);
    while (x === 0) {
      if (++w >= this.words) return END;
      x = bits[w]!;
    }
    return (w << 5) | (31 - Math.clz32(x & -x));
  }
  has(pos: number): boolean {
    return ((this.bits[pos >>> 5]! >>> (pos & 31)) & 1) === 1;
  }
  word(w: number): number {
    return this.bits[w]! | 0;
  }
}

/** The positions of a bitset, ascending. */
export function positionsOf(bits: Uint32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  let o = 0;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]! | 0;
    while (x !== 0) {
      const low = x & -x;
      x ^= low;
      out[o++] = (w << 5) | (31 - Math.clz32(low));
    }
  }
  return out;
}

/** Any of its members. */
export class UnionClause implements Clause {
  readonly size: number;
  constructor(private readonly members: Clause[]) {
    let s = 0;
    for (const m of members) s += m.size;
    this.size = s;
  }
  seek(from: number): number {
    let best = END;
    for (const m of this.members) {
      const p = m.seek(from);
      if (p < best) best = p;
    }
    return best;
  }
  has(pos: number): boolean {
    for (const m of this.members) if (m.has(pos)) return true;
    return false;
  }
  word(w: number): number {
    let x = 0;
    for (const m of this.members) x |= m.word(w);
    return x;
  }
}

/** Every position not in `inner`. */
export class NotClause implements Clause {
  readonly size: number;
  constructor(
    private readonly inner: Clause,
    private readonly n: number,
  ) {
    this.size = Math.max(0, n - inner.size);
  }
  seek(from: number): number {
    let p = from;
    while (p < this.n && this.inner.has(p)) p++;
    return p < this.n ? p : END;
  }
  has(pos: number): boolean {
    return pos < this.n && !this.inner.has(pos);
  }
  word(w: number): number {
    return ~this.inner.word(w) & validMask(w, this.n);
  }
}

/** Every position. */
export class AllClause implements Clause {
  constructor(readonly size: number) {}
  seek(from: number): number {
    return from < this.size ? from : END;
  }
  has(pos: number): boolean {
    return pos >= 0 && pos < this.size;
  }
  word(w: number): number {
    return validMask(w, this.size);
  }
}

/** The bits of word w that stand for positions < n. */
export function validMask(w: number, n: number): number {
  const rest = n - (w << 5);
  if (rest >= 32) return -1;
  if (rest <= 0) return 0;
  return ((1 << rest) - 1) | 0;
}

/** The members of `inner` that pass a per-position test (a member's inbox door counts only while it answers). */
export class TestedClause implements Clause {
  readonly size: number;
  constructor(
    private readonly inner: Clause,
    private readonly test: (pos: number) => boolean,
  ) {
    this.size = inner.size;
  }
  seek(from: number): number {
    for (let p = this.inner.seek(from); p !== END; p = this.inner.seek(p + 1)) if (this.test(p)) return p;
    return END;
  }
  has(pos: number): boolean {
    return this.inner.has(pos) && this.test(pos);
  }
  word(w: number): number {
    let x = this.inner.word(w);
    let out = 0;
    while (x !== 0) {
      const low = x & -x;
      x ^= low;
      if (this.test((w << 5) | (31 - Math.clz32(low)))) out |= low;
    }
    return out | 0;
  }
}
