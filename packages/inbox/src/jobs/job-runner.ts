/**
 * Runs durable jobs from the jobs table. Jobs are written in the same transaction as the change
 * that needs them, so a crash loses none; a job leased by a process that died is taken again once
 * its lease runs out. Handlers are registered by kind.
 */
import type { InboxStore, JobRecord } from '../store/store.js';
import type { Clock } from '../domain/types.js';

export type JobHandler = (job: JobRecord, store: InboxStore) => Promise<void>;

export interface JobRunnerOptions {
  pollIntervalMs: number;
  leaseMs: number;
  batchSize: number;
  maxAttempts: number;
}

const DEFAULTS: JobRunnerOptions = { pollIntervalMs: 1_000, leaseMs: 60_000, batchSize: 20, maxAttempts: 8 };
/** Backoff 30 s × 2^(attempt-1), at most 6 hours. */
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 6 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export class JobRunner {
  readonly #store: InboxStore;
  readonly #clock: Clock;
  readonly #handlers: Record<string, JobHandler>;
  readonly #options: JobRunnerOptions;
  readonly #log: (message: string, detail?: unknown) => void;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;
  #lastPruneMs = 0;

  constructor(
    store: InboxStore,
    clock: Clock,
    handlers: Record<string, JobHandler>,
    log: (message: string, detail?: unknown) => void,
    options: Partial<JobRunnerOptions> = {},
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#handlers = handlers;
    this.#log = log;
    this.#options = { ...DEFAULTS, ...options };
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.runDue().catch((e) => this.#log('job tick failed', e)), this.#options.pollIntervalMs);
    this.#timer.unref();
    void this.runDue().catch((e) => this.#log('job tick failed', e));
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => undefined);
  }

  /** Runs every job due now; returns how many ran. One pass at a time. */
  async runDue(): Promise<number> {
    if (this.#running) return this.#running;
    this.#running = this.#drain().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      const nowMs = this.#clock.now();
      const jobs = await this.#store.jobs.claimDue(nowMs, this.#options.leaseMs, this.#options.batchSize);
      for (const job of jobs) await this.#runOne(job);
      ran += jobs.length;
      if (jobs.length < this.#options.batchSize) break;
    }
    const nowMs = this.#clock.now();
    if (nowMs - this.#lastPruneMs >= PRUNE_EVERY_MS) {
      this.#lastPruneMs = nowMs;
      await this.#store.idempotency.prune(nowMs);
    }
    return ran;
  }

  async #runOne(job: JobRecord): Promise<void> {
    const handler = this.#handlers[job.kind];
    const nowMs = () => this.#clock.now();
    if (!handler) {
      await this.#store.jobs.bury(job.id, `no handler for ${job.kind}`, nowMs());
      return;
    }
    try {
      await this.#store.transaction(async (tx) => {
        await handler(job, tx);
        await tx.jobs.finish(job.id, nowMs());
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#log(`job ${job.kind} ${job.id} failed (attempt ${job.attempts})`, error);
      if (job.attempts >= this.#options.maxAttempts) await this.#store.jobs.bury(job.id, message, nowMs());
      else {
        const delay = Math.min(BACKOFF_BASE_MS * 2 ** (job.attempts - 1), BACKOFF_CAP_MS);
        await this.#store.jobs.retry(job.id, nowMs() + delay, message, nowMs());
      }
    }
  }
}
