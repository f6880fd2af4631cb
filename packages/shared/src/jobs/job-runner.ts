/**
 * Runs durable jobs from a jobs table. Jobs are written in the same transaction as the change that
 * needs them, so a crash loses none; a job leased by a process that died is taken again once its
 * lease runs out. Handlers are registered by kind and run inside a transaction with the job's finish.
 * Failures back off exponentially; a job is buried after its last attempt. A disk that refuses
 * writes is logged once per episode by the database's StorageHealth, not at every tick.
 */
import { storageFailureKind } from '../storage/storage-health.js';
import type { JobRecord, JobStore } from './job-store.js';

/** What the runner needs of a service's storage: its jobs, and transactions that carry them. */
export interface JobHost<Tx extends { jobs: JobStore }> {
  jobs: JobStore;
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * A handler runs inside a transaction together with its job's finish. One that must wait on the
 * network first gives a `prepare` step, run outside any transaction, whose result `commit` writes.
 */
export type JobHandler<Tx> =
  | ((job: JobRecord, tx: Tx) => Promise<void>)
  | { prepare: (job: JobRecord) => Promise<unknown>; commit: (job: JobRecord, tx: Tx, prepared: unknown) => Promise<void> };

export interface JobRunnerOptions {
  pollIntervalMs: number;
  leaseMs: number;
  batchSize: number;
  maxAttempts: number;
  /** Housekeeping run after each pass, at most once per `everyMs` (pruning, sweeps). */
  chores: { everyMs: number; run: (nowMs: number) => Promise<void> }[];
}

const DEFAULTS: JobRunnerOptions = { pollIntervalMs: 1_000, leaseMs: 60_000, batchSize: 20, maxAttempts: 8, chores: [] };
/** Backoff 30 s × 2^(attempt-1), at most 6 hours. */
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 6 * 3_600_000;

export interface RunnerClock {
  now(): number;
}

const DAY_MS = 86_400_000;
/** Finished (and cancelled) jobs are kept a week, failed ones a month (to look into), then deleted. */
export const JOB_RETENTION = { doneMs: 7 * DAY_MS, deadMs: 30 * DAY_MS, pruneEveryMs: 3_600_000 } as const;

export class JobRunner<Tx extends { jobs: JobStore }> {
  readonly #host: JobHost<Tx>;
  readonly #clock: RunnerClock;
  readonly #handlers: Record<string, JobHandler<Tx>>;
  readonly #options: JobRunnerOptions;
  readonly #log: (message: string, detail?: unknown) => void;
  readonly #choreLastRun: number[];
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(
    host: JobHost<Tx>,
    clock: RunnerClock,
    handlers: Record<string, JobHandler<Tx>>,
    log: (message: string, detail?: unknown) => void,
    options: Partial<JobRunnerOptions> = {},
  ) {
    this.#host = host;
    this.#clock = clock;
    this.#handlers = handlers;
    this.#log = log;
    const merged = { ...DEFAULTS, ...options };
    // Every runner keeps its own table small: finished jobs are pruned hourly.
    const pruneJobs = {
      everyMs: JOB_RETENTION.pruneEveryMs,
      run: async (nowMs: number) => {
        await host.jobs.prune('done', nowMs - JOB_RETENTION.doneMs);
        await host.jobs.prune('cancelled', nowMs - JOB_RETENTION.doneMs);
        await host.jobs.prune('dead', nowMs - JOB_RETENTION.deadMs);
      },
    };
    this.#options = { ...merged, chores: [...merged.chores, pruneJobs] };
    this.#choreLastRun = this.#options.chores.map(() => Number.NEGATIVE_INFINITY);
  }

  start(): void {
    if (this.#timer) return;
    const tick = () => void this.runDue().catch((e: unknown) => storageFailureKind(e) === null && this.#log('job tick failed', e));
    this.#timer = setInterval(tick, this.#options.pollIntervalMs);
    this.#timer.unref();
    tick();
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
      const jobs = await this.#host.jobs.claimDue(nowMs, this.#options.leaseMs, this.#options.batchSize);
      for (const job of jobs) await this.#runOne(job);
      ran += jobs.length;
      if (jobs.length < this.#options.batchSize) break;
    }
    const nowMs = this.#clock.now();
    for (const [index, chore] of this.#options.chores.entries()) {
      if (nowMs - (this.#choreLastRun[index] ?? 0) < chore.everyMs) continue;
      this.#choreLastRun[index] = nowMs;
      await chore.run(nowMs);
    }
    return ran;
  }

  async #runOne(job: JobRecord): Promise<void> {
    const handler = this.#handlers[job.kind];
    const nowMs = () => this.#clock.now();
    if (!handler) {
      await this.#host.jobs.bury(job.id, `no handler for ${job.kind}`, nowMs());
      return;
    }
    try {
      if (typeof handler === 'function') {
        await this.#host.transaction(async (tx) => {
          await handler(job, tx);
          await tx.jobs.finish(job.id, nowMs());
        });
      } else {
        const prepared = await handler.prepare(job);
        await this.#host.transaction(async (tx) => {
          await handler.commit(job, tx, prepared);
          await tx.jobs.finish(job.id, nowMs());
        });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (storageFailureKind(error) === null) this.#log(`job ${job.kind} ${job.id} failed (attempt ${job.attempts})`, error);
      if (job.attempts >= this.#options.maxAttempts) await this.#host.jobs.bury(job.id, message, nowMs());
      else {
        const delay = Math.min(BACKOFF_BASE_MS * 2 ** (job.attempts - 1), BACKOFF_CAP_MS);
        await this.#host.jobs.retry(job.id, nowMs() + delay, message, nowMs());
      }
    }
  }
}
