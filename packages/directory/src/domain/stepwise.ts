/**
 * Long work over every listing in steps (issue 40: the next hour's order and layout, a rebuild in
 * the background, the tables an hour's answers read): a computation written as a generator that yields where it may pause, run either to its end at once
 * or with a turn of the event loop every few milliseconds so searches go on meanwhile.
 */

/** Work between two pauses of a stepwise computation (positions, or postings moved). */
export const STEP_MASK = (1 << 12) - 1;

/** Entries filled between two pauses of filledInSteps (1–2 MB). */
const FILL_STEP = 1 << 18;

/**
 * The array with every entry set to `value`, in steps. A new large array's memory is only mapped
 * when first written, at a page fault for each 4 KB page: written at random places (a map by seq,
 * the geo grid's cells), the first few thousand writes each fault a page, tens of milliseconds
 * in one step. Written here in order first, the faults are spread over the steps too.
 */
export function* filledInSteps<A extends Int32Array | Uint32Array | Uint8Array | Float64Array>(array: A, value: number): Generator<void, A> {
  for (let from = 0; from < array.length; from += FILL_STEP) {
    array.fill(value, from, Math.min(array.length, from + FILL_STEP));
    yield;
  }
  return array;
}

/** Runs a stepwise computation (a generator that yields where it may pause) to its end at once. */
export function runAtOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Work off the search path between two turns of the event loop: what a search may wait behind it. */
export const SLICE_MS = 1;

/**
 * Runs a stepwise computation, giving the event loop a turn every `sliceMs` of work, so a long
 * computation (the next hour's layout) never holds the searches waiting behind it for longer.
 */
export async function runInSteps<T>(steps: Generator<void, T>, sliceMs = SLICE_MS): Promise<T> {
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

/**
 * Turns of the event loop by time, for work that pauses itself rather than yielding to runInSteps:
 * `due` turns once SLICE_MS of work has passed since the last turn, `turn` at once.
 */
export class TimeSlices {
  #since = performance.now();
  async due(): Promise<void> {
    if (performance.now() - this.#since >= SLICE_MS) await this.turn();
  }
  async turn(): Promise<void> {
    await backgroundTurn();
    this.#since = performance.now();
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

/**
 * Background work's queries on a database server (PostgreSQL), paced (issue 40): the server shares
 * the machine's cores with this node and answers the searches' own queries, so after each
 * background query the work pauses as long as the query took. It then holds at most about half of
 * one server process, and a search's query meets it half as often. Where queries run on this thread
 * (SQLite) the slices already bound them, and there is no pause.
 */
export async function pacedQuery<T>(query: () => Promise<T>, onServer: boolean): Promise<T> {
  if (!onServer) return query();
  const started = performance.now();
  const result = await query();
  await pauseAfterQuery(performance.now() - started);
  return result;
}

/**
 * Work handed to another thread of this process (a worker hashing), paced as a query on a server
 * is: that thread shares the machine's two cores with the searches and the database server, so it
 * works at most about half the time, on either engine.
 */
export function pacedHandOff<T>(work: () => Promise<T>): Promise<T> {
  return pacedQuery(work, true);
}

/**
 * Runs a stepwise computation on a thread of its own (a worker), resting after every `sliceMs` of
 * work as long as the work took: that thread shares the machine's two cores with the searches and
 * the database server, so it takes at most about half of one, as a paced hand-off does.
 */
export async function runPaced<T>(steps: Generator<void, T>, sliceMs = 2 * SLICE_MS): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    const took = performance.now() - since;
    if (took >= sliceMs) {
      await pauseAfterQuery(took);
      since = performance.now();
    }
  }
}

/** A query's wait shorter than this is a row from a page already read, not a query. */
const QUERY_MS = 1;

/** The rows of a paged background read (a query a page), paced as pacedQuery paces one query. */
export function pacedRows<T>(rows: AsyncIterable<T>, onServer: boolean): AsyncIterable<T> {
  // On this thread the rows go through as they are: no generator's hop a row on a million rows.
  return onServer ? pacedPages(rows) : rows;
}

async function* pacedPages<T>(rows: AsyncIterable<T>): AsyncGenerator<T> {
  const source = rows[Symbol.asyncIterator]();
  try {
    for (;;) {
      const started = performance.now();
      const next = await source.next();
      // The wait includes what this thread ran meanwhile: under more searches, a longer pause.
      const took = performance.now() - started;
      if (took >= QUERY_MS) await pauseAfterQuery(took);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await source.return?.();
  }
}

/** A background query's pause, in times the query took: the work then holds a server process at most half the time. */
export const PAUSE_PER_QUERY = 1;

/** Resolves PAUSE_PER_QUERY times `tookMs` later (a timer, so searches that come meanwhile go first). */
export function pauseAfterQuery(tookMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.round(tookMs * PAUSE_PER_QUERY))));
}
