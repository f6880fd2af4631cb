/**
 * Handing back to the system the V8 heap pages a node's heavy work freed. V8 13 (Node 24) keeps the
 * pages a full collection frees in a pool, for the heap to grow into again, and empties that pool
 * only in a collection made to reduce memory (memory pressure, or the heap's last resort), which a
 * busy server seldom meets. A node's start (reading the index snapshot, or building the index) and a
 * rebuild in the background pass hundreds of MB through the heap: at 1 M listings on PostgreSQL
 * 125–250 MB of freed pages stayed resident for the node's life, a third of its memory
 * (docs/directory.md, "Freed heap pages handed back"). So after such work the node asks for the
 * collections that empty the pool: 100–160 ms on the node's thread at 1 M.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collection function with the options it takes (the `gc` of --expose-gc). */
export type HeapCollector = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

let collector: HeapCollector | null = null;

/**
 * V8's `gc`: the global one when the process runs with --expose-gc; otherwise taken from a fresh
 * context made while the flag is on, and the flag set off again at once, so that no other context
 * (a worker's, a later vm context) sees a `gc` it did not ask for.
 */
export function heapCollector(): HeapCollector {
  if (collector) return collector;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (collector = exposed as HeapCollector);
  setFlagsFromString('--expose-gc');
  try {
    collector = runInNewContext('gc') as HeapCollector;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collector;
}

export interface HeapPagesReleased {
  /** How long the node's thread was held (ms). */
  ms: number;
  /** The process's resident memory before and after (MB). */
  rssBeforeMb: number;
  rssAfterMb: number;
}

const MB = 2 ** 20;

/**
 * A full collection of the memory-reducing kind ("last resort": V8 also shrinks its young
 * generation and empties the page pool). On V8 older than 12, which has no such flavor, it is a
 * plain full collection.
 */
export function releaseFreedHeapPages(): HeapPagesReleased {
  const collect = heapCollector();
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  // Twice: the first also shrinks the young generation, whose pages it frees into the pool after
  // emptying it; the second hands those back.
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const ms = performance.now() - started;
  const rssAfter = process.memoryUsage.rss();
  return { ms: Math.round(ms), rssBeforeMb: Math.round(rssBefore / MB), rssAfterMb: Math.round(rssAfter / MB) };
}

/**
 * One full collection once the node is busy again after the collections above. V8 sets the limit
 * for its next full collection from how fast the program allocated lately: up to 4× what is live
 * when it was idle, as it is when the start's (or a rebuild's) collections run. With memory outside
 * the heap counted in that limit (collector-setting.ts), the searches' garbage then piled up to ~1 GB
 * at 1 M listings before V8 collected again, and glibc kept that high-water mark. A collection made
 * once searches flow sets the limit from their pace (docs/directory.md, "What sets the limit").
 * Asynchronous: V8 marks alongside the searches and pauses them only to finish.
 */
export class CollectionOnceBusy {
  readonly #collect: () => void;
  readonly #now: () => number;
  readonly #onCollected: (info: { searches: number; ms: number }) => void;
  #armed = false;
  #windowStart = 0;
  #searches = 0;

  constructor(options: { collect?: () => void; now?: () => number; onCollected?: (info: { searches: number; ms: number }) => void } = {}) {
    this.#collect = options.collect ?? (() => heapCollector()({ type: 'major', execution: 'async' }));
    this.#now = options.now ?? (() => performance.now());
    this.#onCollected = options.onCollected ?? (() => undefined);
  }

  /** After heavy work's collections: the next busy spell gets one collection. */
  arm(): void {
    this.#armed = true;
    this.#searches = 0;
  }

  /**
   * Counts a search. Busy means BUSY_SEARCHES searches within BUSY_WINDOW_MS, the last of them at
   * least BUSY_AFTER_MS after the first: a trickle of searches never triggers it.
   */
  noteSearch(): void {
    if (!this.#armed) return;
    const now = this.#now();
    if (this.#searches === 0 || now - this.#windowStart > BUSY_WINDOW_MS) {
      this.#windowStart = now;
      this.#searches = 0;
    }
    this.#searches++;
    if (this.#searches < BUSY_SEARCHES || now - this.#windowStart < BUSY_AFTER_MS) return;
    this.#armed = false;
    this.#collect();
    this.#onCollected({ searches: this.#searches, ms: Math.round(now - this.#windowStart) });
  }
}

/** Searches within BUSY_WINDOW_MS that make a node busy (100 a second over two seconds). */
export const BUSY_SEARCHES = 200;
export const BUSY_WINDOW_MS = 2_000;
/** How long the searches must have flowed: V8's sense of the pace takes about a second and a half (measured: 0.3 s was too early, 1.5 s enough). */
export const BUSY_AFTER_MS = 1_500;

/**
 * Memory handed back once a thread falls idle after a busy spell. While searches flow, V8 grows a
 * thread's young generation toward its largest (64–128 MB on Node 24) and keeps the pages its
 * collections free in its pool; its memory reducer, which runs when a thread goes quiet, shrinks the
 * young generation but leaves those pages resident (a probe at 1 M listings: the node's heap back
 * from 123 to 61 MB after 30 s idle, its memory not). On PostgreSQL an answer worker, whose page
 * reads wait on the network, held 145 MB of heap for 31–39 MB used after 6,400 searches, and 145
 * still after 30 s idle (19 MB on SQLite, whose reads do not wait). So a thread notes its work, and
 * once `minWork` has been done and none has come for `idleMs`, it makes the memory-reducing
 * collections (`releaseFreedHeapPages`; docs/directory.md, "Memory handed back when searches
 * pause"). A trickle of work never triggers it more than once per `minWork`.
 */
export class CollectionWhenIdle {
  readonly #collect: () => void;
  readonly #idleMs: number;
  readonly #minWork: number;
  readonly #now: () => number;
  #lastWork = 0;
  #work = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: { idleMs: number; minWork: number; collect?: () => void; now?: () => number }) {
    this.#idleMs = options.idleMs;
    this.#minWork = options.minWork;
    this.#collect = options.collect ?? (() => void releaseFreedHeapPages());
    this.#now = options.now ?? (() => performance.now());
  }

  /** A unit of work done (a search, an answer): the collection may come `idleMs` after the last one. */
  noteWork(): void {
    this.#lastWork = this.#now();
    this.#work++;
    // One timer for a busy spell, moved on when it fires early rather than reset at each call.
    if (this.#work >= this.#minWork) this.#timer ??= this.#wait(this.#idleMs);
  }

  /** Stops a collection that is waiting (the thread ends). */
  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #wait(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#check(), ms);
    // Never what keeps a thread alive.
    timer.unref();
    return timer;
  }

  #check(): void {
    const idleFor = this.#now() - this.#lastWork;
    if (idleFor < this.#idleMs) {
      this.#timer = this.#wait(this.#idleMs - idleFor);
      return;
    }
    this.#timer = null;
    this.#work = 0;
    this.#collect();
  }
}

/**
 * The node's thread: after BUSY_SEARCHES searches, once none has come for 5 s. Its collections hold
 * the thread for 100–160 ms at 1 M listings, so only a pause in the searches gets them.
 */
export const NODE_IDLE_MS = 5_000;
/** An answer worker: after 100 answers, once none has come for 2 s (its collections hold only the worker, whose heap is small). */
export const ANSWER_WORKER_IDLE_MS = 2_000;
export const ANSWER_WORKER_MIN_ANSWERS = 100;
