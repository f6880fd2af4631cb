/**
 * Runs checks: takes queued checks (under a lease, within the day's budget) up to the crawler's
 * concurrency, checks each site outside any transaction, and writes the result. Re-checks that are
 * due are queued once a minute. A check held by a worker that died is taken again when its lease
 * runs out (the queue is the checks table itself), so checks survive a restart.
 */
import { storageFailureKind } from '@svc/shared';
import type { CheckService } from '../domain/checks/check-service.js';
import { checkSite } from './site-check.js';
import type { CrawlerSettings } from './site-fetcher.js';

export interface CheckWorkerOptions {
  pollIntervalMs: number;
  log: (message: string, detail?: unknown) => void;
}

const DUE_EVERY_MS = 60_000;

export class CheckWorker {
  readonly #service: CheckService;
  readonly #crawler: CrawlerSettings;
  readonly #clock: { now(): number };
  readonly #options: CheckWorkerOptions;
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #lastDue = Number.NEGATIVE_INFINITY;

  constructor(service: CheckService, crawler: CrawlerSettings, clock: { now(): number }, options: CheckWorkerOptions) {
    this.#service = service;
    this.#crawler = crawler;
    this.#clock = clock;
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#options.pollIntervalMs);
    this.#timer.unref();
    void this.tick();
  }

  /** Queues due re-checks (at most once a minute) and starts as many checks as there is room for. */
  async tick(): Promise<void> {
    if (this.#ticking) return this.#ticking;
    this.#ticking = (async () => {
      try {
        const nowMs = this.#clock.now();
        if (nowMs - this.#lastDue >= DUE_EVERY_MS) {
          this.#lastDue = nowMs;
          await this.#service.queueDue();
        }
        const room = this.#service.settings.concurrency - this.#running.size;
        for (const check of await this.#service.claim(room)) {
          const run = this.#run(check.domain).finally(() => this.#running.delete(run));
          this.#running.add(run);
        }
      } catch (error) {
        // The database away is logged once by its StorageHealth, not at every tick.
        if (storageFailureKind(error) === null) this.#options.log('check tick failed', error);
      }
    })().finally(() => {
      this.#ticking = null;
    });
    return this.#ticking;
  }

  async #run(domain: string): Promise<void> {
    try {
      const result = await checkSite(domain, this.#crawler, this.#clock.now());
      await this.#service.scoring(domain);
      await this.#service.finish(domain, result.state === 'done' ? result : { state: result.state, reason: result.reason });
    } catch (error) {
      this.#options.log(`check of ${domain} failed`, error);
      await this.#service.finish(domain, { state: 'failed', reason: 'The check stopped on an error of ours; it is tried again later.' }).catch(() => undefined);
    }
    // Room was made: take the next one at once.
    void this.tick();
  }

  /** Runs checks until none is queued or running (tests and the demo start). */
  async drain(timeoutMs = 120_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.tick();
      if (this.#running.size === 0) {
        await this.tick();
        if (this.#running.size === 0) return;
      }
      await Promise.race([...this.#running]);
      if (Date.now() > until) throw new Error('checks did not finish in time');
    }
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#ticking;
    await Promise.allSettled([...this.#running]);
  }
}
