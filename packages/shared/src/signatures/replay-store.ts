/**
 * Replay protection for signed requests: a signature (by the SHA-256 of its bytes) is accepted
 * once, and refused while it is kept, i.e. until its `expires` plus a minute. Only signatures that
 * verified are recorded, so nobody can fill the store without a key.
 */

export type ReplayOutcome = 'new' | 'seen' | 'full';

export interface ReplayStore {
  /**
   * Records `id` until `keepUntil` (unix seconds) unless it is already held. Must be atomic: of two
   * concurrent calls with one id exactly one answers `new`. `seen` = held and not yet past its
   * keepUntil; `full` = the store cannot take more now (the caller refuses the request, never
   * accepts it unrecorded). A database store keeps `(id PRIMARY KEY, keep_until)`, inserts with
   * ON CONFLICT DO NOTHING (treating a held row past keep_until as gone) and deletes old rows in a job.
   */
  remember(id: string, keepUntil: number, now: number): Promise<ReplayOutcome>;
}

export interface MemoryReplayStoreOptions {
  /** Most signatures held at once; when all are still live, `remember` answers `full`. */
  maxEntries?: number;
}

/** A bounded in-memory store for one process: a map plus a min-heap on keepUntil to drop expired entries cheaply. */
export class MemoryReplayStore implements ReplayStore {
  readonly maxEntries: number;
  readonly #until = new Map<string, number>();
  readonly #heap: Array<{ id: string; until: number }> = [];

  constructor(options: MemoryReplayStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.#until.size;
  }

  async remember(id: string, keepUntil: number, now: number): Promise<ReplayOutcome> {
    return this.rememberSync(id, keepUntil, now);
  }

  /** The same as remember, for callers that are not async. */
  rememberSync(id: string, keepUntil: number, now: number): ReplayOutcome {
    this.#prune(now);
    const held = this.#until.get(id);
    if (held !== undefined && held >= now) return 'seen';
    if (held === undefined && this.#until.size >= this.maxEntries) return 'full';
    this.#until.set(id, keepUntil);
    this.#push({ id, until: keepUntil });
    return 'new';
  }

  #prune(now: number): void {
    const heap = this.#heap;
    while (heap.length > 0 && (heap[0] as { until: number }).until < now) {
      const top = this.#pop();
      // A stale heap entry (the id was recorded again later) leaves the map alone.
      if (this.#until.get(top.id) === top.until) this.#until.delete(top.id);
    }
  }

  #push(entry: { id: string; until: number }): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as { until: number }).until <= entry.until) break;
      heap[i] = heap[parent] as { id: string; until: number };
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): { id: string; until: number } {
    const heap = this.#heap;
    const top = heap[0] as { id: string; until: number };
    const last = heap.pop() as { id: string; until: number };
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as { until: number }).until < (heap[left] as { until: number }).until ? right : left;
      if ((heap[child] as { until: number }).until >= last.until) break;
      heap[i] = heap[child] as { id: string; until: number };
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
