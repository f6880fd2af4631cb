/**
 * Work off the search path in steps (issue 40): however many such computations run at once (the
 * hour's statement, its snapshot, a layout), a search waits behind one slice of them, not one each.
 */
import { describe, expect, it } from 'vitest';
import { PAUSE_PER_QUERY, filledInSteps, pacedQuery, pacedRows, runAtOnce, runInSteps, runPaced } from '../src/domain/stepwise.js';

const SLICE_MS = 10;

/** A computation of `totalMs` of busy work in steps of about a millisecond; returns its step count. */
function* busy(totalMs: number): Generator<void, number> {
  const end = performance.now() + totalMs;
  let steps = 0;
  while (performance.now() < end) {
    const until = performance.now() + 1;
    while (performance.now() < until) {
      // spin: a step of work that cannot be split
    }
    steps++;
    yield;
  }
  return steps;
}

describe('work in steps', () => {
  it('runs to the same end at once and in steps', async () => {
    expect(runAtOnce(busy(5))).toBeGreaterThan(0);
    expect(await runInSteps(busy(5))).toBeGreaterThan(0);
  });

  it('paced (a worker hashing a tree), rests about as long as it works', async () => {
    // 60 steps of a millisecond's work each (busy() counts time, rests included)
    function* work(): Generator<void, number> {
      for (let step = 0; step < 60; step++) {
        const until = performance.now() + 1;
        while (performance.now() < until) {
          // spin
        }
        yield;
      }
      return 60;
    }
    const started = performance.now();
    expect(await runPaced(work(), SLICE_MS)).toBe(60);
    const took = performance.now() - started;
    // 60 ms of work and about as long at rest (the last slice's rest may not come); at once it takes 60 ms
    expect(took, `${took.toFixed(0)} ms`).toBeGreaterThanOrEqual(60 * (1 + PAUSE_PER_QUERY) - SLICE_MS - 2);
  });

  it('fills a large array in steps, every entry, and pauses between them', () => {
    const size = 1_000_003;
    const steps = filledInSteps(new Int32Array(size), -1);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    const filled = step.value;
    expect(filled.length).toBe(size);
    expect(filled.every((v) => v === -1)).toBe(true);
    // a pause at least every 2^18 entries: a step never writes more than 1–2 MB
    expect(pauses).toBeGreaterThanOrEqual(Math.ceil(size / (1 << 18)));
    expect(runAtOnce(filledInSteps(new Float64Array(5), 0.5))).toEqual(new Float64Array(5).fill(0.5));
    expect(runAtOnce(filledInSteps(new Uint32Array(0), 1)).length).toBe(0);
  });

  it('shares one slice per turn of the event loop among every computation running', async () => {
    const work = Promise.all([0, 1, 2].map(() => runInSteps(busy(300), SLICE_MS)));
    let done = false;
    void work.then(() => (done = true));
    // What a search meets: the wait between two turns of the event loop while the three run.
    const gaps: number[] = [];
    let last = performance.now();
    while (!done) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }
    gaps.sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] as number;
    // one slice (~10 ms) per turn; a slice of each of the three would be ~30 ms
    expect(median, `median wait ${median.toFixed(1)} ms over ${gaps.length} turns`).toBeLessThan(2 * SLICE_MS);
    expect(median).toBeGreaterThan(SLICE_MS / 2);
  });

  describe('background queries on a database server, paced', () => {
    const QUERY_MS = 40;
    const query = () => new Promise<string>((resolve) => setTimeout(() => resolve('rows'), QUERY_MS));

    it('pauses after a query PAUSE_PER_QUERY times as long as it took, on a server only', async () => {
      let started = performance.now();
      expect(await pacedQuery(query, true)).toBe('rows');
      const paced = performance.now() - started;
      expect(paced).toBeGreaterThanOrEqual((1 + PAUSE_PER_QUERY) * QUERY_MS - 2);
      started = performance.now();
      expect(await pacedQuery(query, false)).toBe('rows');
      expect(performance.now() - started).toBeLessThan(paced - QUERY_MS / 2);
    });

    /** Three pages of two rows, each page one query of QUERY_MS; `closed` once the reader lets go. */
    function pagedRead() {
      const state = { closed: false };
      async function* rows(): AsyncGenerator<number> {
        try {
          for (let page = 0; page < 3; page++) {
            await query();
            yield page * 2;
            yield page * 2 + 1;
          }
        } finally {
          state.closed = true;
        }
      }
      return { rows: rows(), state };
    }

    it('paces a paged read by its queries, not by its rows, and gives the same rows', async () => {
      const started = performance.now();
      const rows: number[] = [];
      for await (const row of pacedRows(pagedRead().rows, true)) rows.push(row);
      expect(rows).toEqual([0, 1, 2, 3, 4, 5]);
      // three queries, each followed by its pause (rows from a page already read: none)
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(3 * (1 + PAUSE_PER_QUERY) * QUERY_MS - 5);
      const unpaced: number[] = [];
      const start2 = performance.now();
      for await (const row of pacedRows(pagedRead().rows, false)) unpaced.push(row);
      expect(unpaced).toEqual(rows);
      expect(performance.now() - start2).toBeLessThan(took - QUERY_MS);
    });

    it('lets the paged read go when the reader stops early', async () => {
      const read = pagedRead();
      for await (const row of pacedRows(read.rows, true)) if (row === 2) break;
      expect(read.state.closed).toBe(true);
    });
  });
});
