/**
 * Whether a service can write to its storage (docs/security.md, "When the disk fills"). A write
 * refused by the disk (SQLite's SQLITE_FULL, SQLITE_IOERR_*, or ENOSPC/EDQUOT/EIO from the file
 * system; PostgreSQL's disk_full, io_error, or a server that is down or unreachable) starts an episode: the cause is logged once, each refused call answers 503 with
 * `storage_full` (no space) or `storage_unavailable` (an I/O error) and `Retry-After`, and /healthz
 * says the service cannot write. The episode ends at the next write that succeeds: any committed
 * write of the service, or the probe /healthz makes (a one-row write, at most once a second)
 * while the episode lasts, so a service taken out of rotation still finds out it can write again.
 */
import { Problem } from '../errors/problem.js';

export type StorageFailureKind = 'full' | 'io';

/** Seconds a client is told to wait before retrying a write the disk refused. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;
/** /healthz probes the disk at most this often while an episode lasts. */
export const STORAGE_PROBE_EVERY_MS = 1_000;

// PostgreSQL's SQLSTATEs: 53100 disk_full; 58030 io_error, 25006 read-only transaction (a standby),
// 57P01–57P03 the server shutting down or starting, 08xxx the connection (guarded-postgres-dialect.ts
// gives an unreachable server 08001).
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);
const IO_CODES = new Set(['EIO', 'EROFS', '58030', '25006', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/** What kind of storage failure `error` (or an error it was caused by) is; null when it is none. */
export function storageFailureKind(error: unknown): StorageFailureKind | null {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (FULL_CODES.has(code)) return 'full';
    if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY' || IO_CODES.has(code)) return 'io';
  }
  return null;
}

/** The problem a call gets when its write was refused by the disk: 503 with Retry-After. */
export function storageProblem(kind: StorageFailureKind): Problem {
  const headers = { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) };
  const extensions = { retryAfter: STORAGE_RETRY_AFTER_SECONDS };
  return kind === 'full'
    ? new Problem('storage_full', `The service's disk is full, so nothing was saved; retry in ${STORAGE_RETRY_AFTER_SECONDS} s with the same idempotency key.`, { headers, extensions })
    : new Problem('storage_unavailable', `The service could not write to its disk, so nothing was saved; retry in ${STORAGE_RETRY_AFTER_SECONDS} s with the same idempotency key.`, { headers, extensions });
}

/** Problem codes that stand for a storage failure (logged once per episode, not per call). */
export function isStorageProblemCode(code: string): boolean {
  return code === 'storage_full' || code === 'storage_unavailable';
}

export type StorageLog = (level: 'error' | 'info', message: string, detail: Record<string, unknown>) => void;

export interface StorageState {
  writable: boolean;
  /** While not writable: the problem code calls get, and since when (ms). */
  failure?: { code: 'storage_full' | 'storage_unavailable'; sinceMs: number };
}

interface Episode {
  kind: StorageFailureKind;
  sinceMs: number;
  refused: number;
}

export class StorageHealth {
  #episode: Episode | null = null;
  #log: StorageLog;
  #probe: (() => Promise<void>) | null = null;
  #lastProbeMs = Number.NEGATIVE_INFINITY;
  #probing: Promise<void> | null = null;
  readonly #now: () => number;

  constructor(options: { log?: StorageLog; now?: () => number } = {}) {
    this.#log = options.log ?? ((level, message, detail) => console[level](message, detail));
    this.#now = options.now ?? Date.now;
  }

  /** Where the start and end of an episode are logged (the service's logger, once it has one). */
  logTo(log: StorageLog): void {
    this.#log = log;
  }

  /** A cheap write /healthz makes while an episode lasts; it throws what the disk answered. */
  probeWith(probe: () => Promise<void>): void {
    this.#probe = probe;
  }

  get writable(): boolean {
    return this.#episode === null;
  }

  /** Called with every failed statement; starts an episode (logged once) when it is a storage failure. */
  noteFailure(error: unknown): StorageFailureKind | null {
    const kind = storageFailureKind(error);
    if (kind === null) return null;
    if (this.#episode) {
      this.#episode.refused++;
      return kind;
    }
    this.#episode = { kind, sinceMs: this.#now(), refused: 1 };
    const { code, message } = error as { code?: string; message?: string };
    this.#log('error', `storage cannot be written (${code ?? 'unknown'}: ${message ?? String(error)}); writes answer 503 ${storageProblem(kind).code} until one succeeds. Free space in the data folder; the service recovers by itself.`, {
      code: code ?? null,
      cause: message ?? String(error),
    });
    return kind;
  }

  /** Called after a write committed; ends an episode. */
  noteWritten(): void {
    const episode = this.#episode;
    if (!episode) return;
    this.#episode = null;
    const seconds = Math.round((this.#now() - episode.sinceMs) / 1000);
    this.#log('info', `storage writable again after ${seconds} s (${episode.refused} failed write${episode.refused === 1 ? '' : 's'} meanwhile)`, { failedWrites: episode.refused, seconds });
  }

  /** The state now; while an episode lasts, probes the disk first (at most once a second). */
  async check(): Promise<StorageState> {
    if (this.#episode && this.#probe && this.#now() - this.#lastProbeMs >= STORAGE_PROBE_EVERY_MS) {
      this.#lastProbeMs = this.#now();
      const probe = this.#probe;
      this.#probing ??= probe()
        .then(() => this.noteWritten())
        .catch((error: unknown) => void this.noteFailure(error))
        .finally(() => {
          this.#probing = null;
        });
      await this.#probing;
    }
    const episode = this.#episode;
    return episode ? { writable: false, failure: { code: storageProblem(episode.kind).code as 'storage_full' | 'storage_unavailable', sinceMs: episode.sinceMs } } : { writable: true };
  }
}
