/**
 * Work off the search path in steps (issue 40): however many such computations run at once (the
 * hour's statement, its snapshot, a layout), a search waits behind one slice of them, not one each.
 */
import { describe, expect, it } from 'vitest';
import { runAtOnce, runInSteps } from '../src/domain/stepwise.js';

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
});
