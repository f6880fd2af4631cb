/**
 * A member's listing shows what the network holds of its receipts (directory spec §2 Receipts,
 * `outcomes`). The tallies are kept in the intake's own transaction and are what /v1/stats and the
 * ping answer read; the listing's document and its pre-rendered page are brought up to date from
 * them soon after (about 50 ms, however many receipts arrive meanwhile: one write per business), so
 * the intake itself writes no more than it must.
 *
 * Which businesses wait is kept in memory. What a stop loses is found again: at start, every business
 * whose tally changed in the last ten minutes is brought up to date, and each night's snapshot writes
 * every member's tally and outcomes with its reputation (snapshot.ts).
 */
import type { DirectoryStore } from '../../store/store.js';

/** Businesses whose tally changed this long before a start are brought up to date at that start. */
export const RESYNC_AT_START_MS = 10 * 60_000;

export class ListingSync {
  readonly #store: DirectoryStore;
  readonly #clock: { now(): number };
  readonly #waiting = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;
  /** How soon after a change the listings follow; null: only when flush is called (the job runner's pass does). */
  readonly #delayMs: number | null;

  constructor(store: DirectoryStore, clock: { now(): number }, options: { delayMs: number | null }) {
    this.#store = store;
    this.#clock = clock;
    this.#delayMs = options.delayMs;
  }

  /** The business's tally changed: its listing follows soon. */
  changed(domain: string): void {
    this.#waiting.add(domain);
    if (this.#delayMs === null || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush().catch(() => undefined);
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** At start: the businesses whose tally changed shortly before follow too (a stop may have left them waiting). */
  async resumeAfterStart(): Promise<void> {
    for (const domain of await this.#store.receipts.changedSince(this.#clock.now() - RESYNC_AT_START_MS)) this.#waiting.add(domain);
  }

  /** Brings every waiting listing up to date; returns how many. One pass at a time. */
  flush(): Promise<number> {
    this.#running ??= this.#flush().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #flush(): Promise<number> {
    let done = 0;
    while (this.#waiting.size > 0) {
      const domains = [...this.#waiting];
      this.#waiting.clear();
      for (const domain of domains) {
        try {
          await this.#store.transaction((tx) => followTally(tx, domain, this.#clock.now()));
          done += 1;
        } catch (error) {
          this.#waiting.add(domain);
          throw error;
        }
      }
    }
    return done;
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** The listing shows the business's tally and the outcomes that stand, as held now. */
export async function followTally(store: DirectoryStore, domain: string, nowMs: number): Promise<void> {
  await store.listings.recordTrust(domain, { receipts: await store.receipts.tally(domain), outcomes: await store.receipts.outcomeCounts(domain) }, nowMs);
}
