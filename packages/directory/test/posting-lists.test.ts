/**
 * The index's packed posting lists (postings.ts, clauses.ts PackedListClause): laid out from records,
 * moved to another order, and probed, each checked against plain sorted lists of the same positions.
 */
import { describe, expect, it } from 'vitest';
import { END, ListClause, PackedListClause } from '../src/domain/search/clauses.js';
import { chunkCount, layPostings, listEnd, listStart, relayPostings, type Postings } from '../src/domain/search/postings.js';
import { runAtOnce } from '../src/domain/stepwise.js';
import { sfc32 as randomOf } from '../src/demo/prng.js';

const N = 300_000; // five chunks of 2^16 positions

/**
 * Term lists over N positions, shaped so that chunks are skipped: a term only in the first and
 * last chunks, one in a single middle chunk, one with a position at each chunk's edges, sparse and
 * dense random ones, and one empty.
 */
function termLists(random: () => number): number[][] {
  const lists: number[][] = [
    [0, 1, 2, 65_535, N - 1],
    [65_535, 65_536, 131_071, 131_072, 196_607, 196_608, 262_143, 262_144],
    Array.from({ length: 40 }, (_, i) => 140_000 + i * 50),
    [...Array.from({ length: 30 }, (_, i) => i * 7), ...Array.from({ length: 30 }, (_, i) => N - 300 + i * 9)],
    [],
  ];
  for (const share of [0.0005, 0.004, 0.01, 0.02]) {
    const list: number[] = [];
    for (let q = 0; q < N; q++) if (random() < share) list.push(q);
    lists.push(list);
  }
  return lists;
}

/** Records (dense id = position) holding each term of `lists` at its positions. */
function recordsOf(lists: number[][]): { recOff: Int32Array; recTerms: Int32Array } {
  const termsAt: number[][] = Array.from({ length: N }, () => []);
  lists.forEach((list, t) => list.forEach((q) => termsAt[q]!.push(t)));
  const recOff = new Int32Array(N + 1);
  for (let q = 0; q < N; q++) recOff[q + 1] = recOff[q]! + termsAt[q]!.length;
  return { recOff, recTerms: Int32Array.from(termsAt.flat()) };
}

function identity(n: number): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => i);
}

/** A term's positions read back from the postings, whichever way it is kept. */
function positionsOf(p: Postings, t: number): number[] {
  const slot = p.bitSlot[t]!;
  const out: number[] = [];
  if (slot >= 0) {
    const W = (N + 31) >>> 5;
    for (let q = 0; q < N; q++) if ((p.termBits[slot * W + (q >>> 5)]! >>> (q & 31)) & 1) out.push(q);
    return out;
  }
  const clause = clauseOf(p, t);
  for (let q = clause.seek(0); q !== END; q = clause.seek(q + 1)) out.push(q);
  return out;
}

function clauseOf(p: Postings, t: number): PackedListClause {
  const C = chunkCount(N);
  return new PackedListClause(p.postLo, p.chunkOff, t * C, C, null, () => {
    throw new Error('no bitset in this test');
  });
}

describe('packed posting lists', () => {
  const random = randomOf(40);
  const lists = termLists(random);
  const laid = runAtOnce(layPostings(lists.length, recordsOf(lists), identity(N)));

  it('keep every term’s positions, in chunks of 2^16, at 2 bytes a listed position', () => {
    lists.forEach((list, t) => expect(positionsOf(laid, t), `term ${t}`).toEqual(list));
    const C = chunkCount(N);
    expect(C).toBe(5);
    expect(laid.chunkOff.length).toBe(lists.length * C + 1);
    const listed = lists.reduce((sum, list, t) => sum + (laid.bitSlot[t]! >= 0 ? 0 : list.length), 0);
    expect(laid.postLo.length).toBe(listed);
    // the term in chunk 2 alone: its other chunks are empty
    expect(listEnd(laid, 2, C) - listStart(laid, 2, C)).toBe(40);
    expect(laid.chunkOff[2 * C + 2]).toBe(listStart(laid, 2, C));
    expect(laid.chunkOff[2 * C + 3]).toBe(listEnd(laid, 2, C));
  });

  it('moved to another order, hold each term’s positions in that order, sorted', () => {
    const move = Int32Array.from({ length: N }, (_, i) => (i * 7919 + 13) % N);
    const relaid = runAtOnce(relayPostings(laid, move, 64));
    lists.forEach((list, t) => {
      const want = list.map((q) => move[q]!).sort((a, b) => a - b);
      expect(positionsOf(relaid, t), `term ${t}`).toEqual(want);
    });
    // and back: every position where it began
    const back = new Int32Array(N);
    move.forEach((q, i) => (back[q] = i));
    const again = runAtOnce(relayPostings(relaid, back, 64));
    lists.forEach((list, t) => expect(positionsOf(again, t), `term ${t}`).toEqual(list));
    expect(again.chunkOff).toEqual(laid.chunkOff);
    expect(again.postLo).toEqual(laid.postLo);
  });

  it('answer seek and has as a plain sorted list does, probes ascending, going back, and past the end', () => {
    const probe = randomOf(7);
    lists.forEach((list, t) => {
      if (laid.bitSlot[t]! >= 0 || list.length === 0) return;
      const packed = clauseOf(laid, t);
      const plain = new ListClause(Int32Array.from(list));
      expect(packed.size).toBe(list.length);
      let at = 0;
      for (let step = 0; step < 3000; step++) {
        const roll = probe();
        // mostly forward by small and large steps, sometimes back, sometimes at a member or a chunk's edge
        if (roll < 0.5) at += Math.floor(probe() * 200);
        else if (roll < 0.7) at += Math.floor(probe() * 70_000);
        else if (roll < 0.8) at = Math.max(0, at - Math.floor(probe() * 70_000));
        else if (roll < 0.9) at = list[Math.floor(probe() * list.length)]!;
        else at = Math.floor(probe() * 5) * 65_536 - (probe() < 0.5 ? 1 : 0);
        if (at > N + 10) at = Math.floor(probe() * N);
        const from = Math.max(0, at);
        if (probe() < 0.5) expect(packed.seek(from), `term ${t} seek ${from}`).toBe(plain.seek(from));
        else expect(packed.has(from), `term ${t} has ${from}`).toBe(plain.has(from));
      }
      expect(packed.seek(N)).toBe(END);
      expect(packed.seek(END)).toBe(END);
      expect(packed.seek(list[0]!)).toBe(list[0]);
    });
  });
});
