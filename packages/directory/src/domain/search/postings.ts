/**
 * The index's posting lists (search-index.ts): laid out from each listing's term ids in position
 * order, or moved from another order's layout without reading the listings again.
 */
import { wordCount } from './clauses.js';
import type { RecordTerms } from './index-core.js';
import { STEP_MASK } from '../stepwise.js';

/**
 * Posting lists by term, over positions. A list of at least n/BITS_SHARE positions is kept as a
 * bitset: slot bitSlot[t] of termBits, wordCount(n) words, bitSize[slot] positions. Any other list
 * is kept as its positions' low 16 bits in postLo, cut in chunks by the rest (chunk h holds positions
 * h·2^16 to h·2^16 + 65,535): entries chunkOff[t·C + h] to chunkOff[t·C + h + 1] of postLo, C being
 * chunkCount(n). A term's list ends where the next term's begins (chunkOff[(t + 1)·C]), and is empty
 * for a term kept as a bitset. 2 bytes a position, and 4 bytes a term and chunk (C is 14 at 1 M
 * stored listings, 908,227 listed): a byte of every position's high part was 36 MB there.
 */
export interface Postings {
  chunkOff: Int32Array;
  postLo: Uint16Array;
  bitSlot: Int32Array;
  termBits: Uint32Array;
  bitSize: Int32Array;
}

/** Chunks of 2^16 positions in an index of n listings (at least one). */
export function chunkCount(n: number): number {
  return Math.max(1, (n + 0xffff) >>> 16);
}

/** Where term t's list begins in postLo, and where it ends. */
export function listStart(p: Postings, t: number, chunks: number): number {
  return p.chunkOff[t * chunks]!;
}
export function listEnd(p: Postings, t: number, chunks: number): number {
  return p.chunkOff[(t + 1) * chunks]!;
}

/** Term t's listed positions, ascending, written into `into` from its start; returns how many. */
export function readList(p: Postings, t: number, chunks: number, into: Int32Array): number {
  const { chunkOff, postLo } = p;
  const a = chunkOff[t * chunks]!;
  for (let h = 0; h < chunks; h++) {
    const high = h << 16;
    for (let i = chunkOff[t * chunks + h]!, e = chunkOff[t * chunks + h + 1]!; i < e; i++) into[i - a] = high | postLo[i]!;
  }
  return chunkOff[(t + 1) * chunks]! - a;
}

export const BITS_SHARE = 32;

/**
 * chunkOff from counts: entry k + 1 holds how many positions chunk k (term-major, as postLo is laid
 * out) has; made, in place, where each chunk begins.
 */
function* countsToStarts(chunkOff: Int32Array): Generator<void, void> {
  for (let k = 1; k < chunkOff.length; k++) {
    chunkOff[k]! += chunkOff[k - 1]!;
    if ((k & STEP_MASK) === STEP_MASK) yield;
  }
}

/** Postings of each record's terms, laid out by position: counted, then filled in position order, so every list comes out sorted. */
export function* layPostings(termCount: number, terms: RecordTerms, denseAt: Int32Array): Generator<void, Postings> {
  const { recOff, recTerms } = terms;
  const n = denseAt.length;
  const W = wordCount(n);
  const C = chunkCount(n);
  const len = new Int32Array(termCount);
  for (let i = 0; i < recTerms.length; i++) len[recTerms[i]!]!++;
  const bitSlot = new Int32Array(termCount).fill(-1);
  // where each term's list begins, moved on as it is filled
  const fill = new Int32Array(termCount);
  let slots = 0;
  let listed = 0;
  for (let t = 0; t < termCount; t++) {
    const l = len[t]!;
    fill[t] = listed;
    if (l > 0 && l * BITS_SHARE >= n) bitSlot[t] = slots++;
    else listed += l;
  }
  const bitSize = new Int32Array(slots);
  for (let t = 0; t < termCount; t++) if (bitSlot[t]! >= 0) bitSize[bitSlot[t]!] = len[t]!;
  const termBits = new Uint32Array(slots * W);
  const postLo = new Uint16Array(listed);
  const chunkOff = new Int32Array(termCount * C + 1);
  for (let q = 0; q < n; q++) {
    const d = denseAt[q]!;
    const word = q >>> 5;
    const bit = 1 << (q & 31);
    const lo = q & 0xffff;
    const chunk = q >>> 16;
    for (let i = recOff[d]!, e = recOff[d + 1]!; i < e; i++) {
      const t = recTerms[i]!;
      const slot = bitSlot[t]!;
      if (slot >= 0) termBits[slot * W + word]! |= bit;
      else {
        postLo[fill[t]!++] = lo;
        chunkOff[t * C + chunk + 1]!++;
      }
    }
    if ((q & STEP_MASK) === STEP_MASK) yield;
  }
  yield* countsToStarts(chunkOff);
  return { chunkOff, postLo, bitSlot, termBits, bitSize };
}

/**
 * The same postings in another order: each list mapped to new positions and sorted again, big lists
 * through a bitset (set the bits, read them back in order), small ones by sorting; the bitsets' bits
 * moved to the new positions.
 */
/** Bitset words handled between pauses (each up to 32 postings moved). */
const WORDS_PER_STEP = (1 << 12) - 1;

export function* relayPostings(old: Postings, move: Int32Array, bitsetShare: number): Generator<void, Postings> {
  const { chunkOff: oldOff, postLo: oldLo } = old;
  const n = move.length;
  const C = chunkCount(n);
  const T = (oldOff.length - 1) / C;
  const postLo = new Uint16Array(oldLo.length);
  // counts first (entry k + 1 for chunk k), made starts at the end
  const chunkOff = new Int32Array(oldOff.length);
  const W = wordCount(n);
  const bits = new Uint32Array(W);
  let longest = 0;
  for (let t = 0; t < T; t++) {
    longest = Math.max(longest, listEnd(old, t, C) - listStart(old, t, C));
    if ((t & STEP_MASK) === STEP_MASK) yield;
  }
  const sorted = new Int32Array(longest);
  let work = 0;
  for (let t = 0; t < T; t++) {
    const a = listStart(old, t, C);
    const b = listEnd(old, t, C);
    work += b - a + 1;
    if (work > STEP_MASK) {
      work = 0;
      yield;
    }
    if (b === a) continue;
    const counts = t * C + 1;
    if ((b - a) * bitsetShare >= n) {
      // a long list (millions of postings at 5 M listings): pauses inside it too
      for (let h = 0; h < C; h++) {
        const high = h << 16;
        for (let i = oldOff[t * C + h]!, e = oldOff[t * C + h + 1]!; i < e; i++) {
          const q = move[high | oldLo[i]!]!;
          bits[q >>> 5]! |= 1 << (q & 31);
          if (((i - a) & STEP_MASK) === STEP_MASK) yield;
        }
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
          postLo[o++] = q & 0xffff;
          chunkOff[counts + (q >>> 16)]!++;
        }
      }
    } else {
      const m = readList(old, t, C, sorted);
      for (let j = 0; j < m; j++) sorted[j] = move[sorted[j]!]!;
      const list = sorted.subarray(0, m).sort();
      for (let i = a; i < b; i++) {
        const q = list[i - a]!;
        postLo[i] = q & 0xffff;
        chunkOff[counts + (q >>> 16)]!++;
      }
    }
  }
  yield* countsToStarts(chunkOff);
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
  return { chunkOff, postLo, bitSlot: old.bitSlot, termBits, bitSize: old.bitSize };
}
