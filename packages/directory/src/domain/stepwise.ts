/**
 * Long work over every listing in steps (issue 40: the next hour's order and layout, a rebuild in
 * the background, the tables an hour's answers read): a computation written as a generator that yields where it may pause, run either to its end at once
 * or with a turn of the event loop every few milliseconds so searches go on meanwhile.
 */

/** Work between two pauses of a stepwise computation (positions, or postings moved). */
export const STEP_MASK = (1 << 16) - 1;

/** Runs a stepwise computation (a generator that yields where it may pause) to its end at once. */
export function runAtOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs a stepwise computation, giving the event loop a turn every `sliceMs` of work, so a long
 * computation (the next hour's layout) never holds the searches waiting behind it for longer.
 */
export async function runInSteps<T>(steps: Generator<void, T>, sliceMs = 4): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await backgroundTurn();
      since = performance.now();
    }
  }
}

const waiting: (() => void)[] = [];
let releasing = false;

function releaseNext(): void {
  const next = waiting.shift();
  // the one after it goes on at the next turn of the event loop, after what came in meanwhile
  if (waiting.length > 0) setImmediate(releaseNext);
  else releasing = false;
  next?.();
}

/**
 * A turn of the event loop for work off the search path, shared by all of it: however many such
 * computations run at once (the hour's statement, its snapshot, a layout), one of them goes on per
 * turn, so a search waits behind one slice of it, never behind one slice of each.
 */
export function backgroundTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!releasing) {
      releasing = true;
      setImmediate(releaseNext);
    }
  });
}
