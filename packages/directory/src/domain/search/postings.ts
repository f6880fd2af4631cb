/**
 * The index's posting lists (search-index.ts): laid out from each listing's term ids in position
 * order, or moved from another order's layout without reading the listings again.
 */
import { wordCount } from './clauses.js';
import type { RecordTerms } from './index-core.js';
import { STEP_MASK } from '../stepwise.js';

/**
 * Posting lists by term, over positions. A list of at least n/BITS_SHARE positions is kept as a
 * bitset (n/8 bytes, less than its positions' 3 bytes each): slot bitSlot[t] of termBits, wordCount(n)
 * words, bitSize[slot] positions; any other list as its positions, packed: entries termOff[t] to
 * termOff[t + 1] of postLo (low 16 bits) and postHi (the rest: a byte while n < 2^24), empty for a
 * term kept as a bitset.
 */
export interface Postings {
  termOff: Int32Array;
  postLo: Uint16Array;
  postHi: Uint8Array | Uint16Array;
  bitSlot: Int32Array;
  termBits: Uint32Array;
  bitSize: Int32Array;
}

/** The high part of n positions' packed form (see Postings). */
export function highPart(n: number, length: number): Uint8Array | Uint16Array {
  return n <= 1 << 24 ? new Uint8Array(length) : new Uint16Array(length);
}

export const BITS_SHARE = 32;

/** Postings of each record's terms, laid out by position: counted, then filled in position order, so every list comes out sorted. */
export function* layPostings(termCount: number, terms: RecordTerms, denseAt: Int32Array): Generator<void, Postings> {
  const { recOff, recTerms } = terms;
  const n = denseAt.length;
  const W = wordCount(n);
  const len = new Int32Array(termCount);
  for (let i = 0; i < recTerms.length; i++) len[recTerms[i]!]!++;
  const bitSlot = new Int32Array(termCount).fill(-1);
  const off = new Int32Array(termCount + 1);
  let slots = 0;
  for (let t = 0; t < termCount; t++) {
    const l = len[t]!;
    if (l > 0 && l * BITS_SHARE >= n) {
      bitSlot[t] = slots++;
      off[t + 1] = off[t]!;
    } else off[t + 1] = off[t]! + l;
  }
  const bitSize = new Int32Array(slots);
  for (let t = 0; t < termCount; t++) if (bitSlot[t]! >= 0) bitSize[bitSlot[t]!] = len[t]!;
  const termBits = new Uint32Array(slots * W);
  const fill = off.slice(0, termCount);
  const postLo = new Uint16Array(off[termCount]!);
  const postHi = highPart(n, off[termCount]!);
  for (let q = 0; q < n; q++) {
    const d = denseAt[q]!;
    const word = q >>> 5;
    const bit = 1 << (q & 31);
    const lo = q & 0xffff;
    const hi = q >>> 16;
    for (let i = recOff[d]!, e = recOff[d + 1]!; i < e; i++) {
      const t = recTerms[i]!;
      const slot = bitSlot[t]!;
      if (slot >= 0) termBits[slot * W + word]! |= bit;
      else {
        const o = fill[t]!++;
        postLo[o] = lo;
        postHi[o] = hi;
      }
    }
    if ((q & STEP_MASK) === STEP_MASK) yield;
  }
  return { termOff: off, postLo, postHi, bitSlot, termBits, bitSize };
}

/**
 * The same postings in another order: each list mapped to new positions and sorted again, big lists
 * through a bitset (set the bits, read them back in order), small ones by sorting; the bitsets' bits
 * moved to the new positions.
 */
/** Bitset words handled between pauses (each up to 32 postings moved). */
const WORDS_PER_STEP = (1 << 12) - 1;

export function* relayPostings(old: Postings, move: Int32Array, bitsetShare: number): Generator<void, Postings> {
  const { termOff: off, postLo: oldLo, postHi: oldHi } = old;
  const n = move.length;
  const postLo = new Uint16Array(oldLo.length);
  const postHi = highPart(n, oldLo.length);
  const W = wordCount(n);
  const bits = new Uint32Array(W);
  let longest = 0;
  for (let t = 0, T = off.length - 1; t < T; t++) {
    longest = Math.max(longest, off[t + 1]! - off[t]!);
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  const sorted = new Int32Array(longest);
  let work = 0;
  for (let t = 0, T = off.length - 1; t < T; t++) {
    const a = off[t]!;
    const b = off[t + 1]!;
    work += b - a + 1;
    if (work > STEP_MASK) {
      work = 0;
      yield;
    }
    if (b === a) continue;
    if ((b - a) * bitsetShare >= n) {
      // a long list (millions of postings at 5 M listings): pauses inside it too
      for (let i = a; i < b; i++) {
        const q = move[(oldHi[i]! << 16) | oldLo[i]!]!;
        bits[q >>> 5]! |= 1 << (q & 31);
        if (((i - a) & STEP_MASK) === STEP_MASK) yield;
      }
      yield;
      let o = a;
      for (let w = 0; w < bits.length; w++) {
        if ((w & WORDS_PER_STEP) === WORDS_PER_STEP) yield;
        let x = bits[w]! | 0;
        if (x === 0) continue;
        bits[w] = 0;
        while (x !== 0) {
          const low = x & -x;
          x ^= low;
          const q = (w << 5) | (31 - Math.clz32(low));
          postLo[o] = q & 0xffff;
          postHi[o++] = q >>> 16;
        }
      }
    } else {
      for (let i = a; i < b; i++) sorted[i - a] = move[(oldHi[i]! << 16) | oldLo[i]!]!;
      const list = sorted.subarray(0, b - a).sort();
      for (let i = a; i < b; i++) {
        const q = list[i - a]!;
        postLo[i] = q & 0xffff;
        postHi[i] = q >>> 16;
      }
    }
  }
  const termBits = new Uint32Array(old.termBits.length);
  for (let base = 0; base < termBits.length; base += W) {
    yield;
    for (let w = 0; w < W; w++) {
      // a slot is the whole index's bits (156,000 words at 5 M): pauses inside it
      if ((w & WORDS_PER_STEP) === WORDS_PER_STEP) yield;
      let x = old.termBits[base + w]! | 0;
      while (x !== 0) {
        const low = x & -x;
        x ^= low;
        const q = move[(w << 5) | (31 - Math.clz32(low))]!;
        termBits[base + (q >>> 5)]! |= 1 << (q & 31);
      }
    }
  }
  // the terms, their slots and sizes are the same in every order
  return { termOff: off, postLo, postHi, bitSlot: old.bitSlot, termBits, bitSize: old.bitSize };
}

