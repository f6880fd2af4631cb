/**
 * Whether a service can write to its storage (docs/security.md, "When the disk fills", and
 * docs/storage.md, "When the database goes away"). A write refused by the disk (SQLite's
 * SQLITE_FULL, SQLITE_IOERR_*, or ENOSPC/EDQUOT/EIO from the file system; PostgreSQL's disk_full or
 * io_error) or a PostgreSQL server that cannot be reached (down, restarting, failing over, out of
 * connection slots, not answering) starts an episode: the cause is logged once, each refused call
 * answers 503 with `storage_full` (no space) or `storage_unavailable` and `Retry-After`, and /healthz
 * says the service cannot write.
 *
 * How an episode ends depends on its kind. A database that was away is back at the first write that
 * commits. A disk that refused a write is back only when the probe succeeds: a write of more than a
 * create writes, into new space (sqlite.ts and postgres.ts say how each engine makes sure of that; on
 * SQLite the file system must also have STORAGE_ROOM_BYTES free). Any other commit is no proof there:
 * a disk that refuses a create still takes a one-row write that fits in space the files already hold
 * (a key's last-use note), so such a commit only asks for a probe. /healthz probes too, so a service
 * taken out of rotation still finds out it can write again. At most one probe a second.
 */
import { Problem } from '../errors/problem.js';

/**
 * `full`: no space; `io`: the disk failed a write; `unreachable`: the database server cannot be
 * reached or does not answer (nothing of the call was saved); `unknown_outcome`: the connection was
 * lost during COMMIT and the server could not be asked whether it committed (it may have).
 */
export type StorageFailureKind = 'full' | 'io' | 'unreachable' | 'unknown_outcome';

/** Seconds a client is told to wait before retrying a write the disk refused. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;
/** Seconds a client is told to wait while the database server is away (a restart takes one or two, a failover a few). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** The storage is probed at most this often while an episode lasts. */
export const STORAGE_PROBE_EVERY_MS = 1_000;
/**
 * What the probe writes: twice what an inbox create writes (a create, the largest write of either
 * service's calls, adds 66–82 KB to SQLite's log: sixteen to twenty 4 KiB pages), so a probe that
 * lands means a create lands too.
 */
export const STORAGE_PROBE_BYTES = 128 * 1024;
/**
 * Free space a SQLite service's file system must have before the probe counts (about fifteen creates'
 * log): a write into space the files already hold proves nothing about the next one, and a disk that
 * was just full and has a few pages free is full again at once.
 */
export const STORAGE_ROOM_BYTES = 1024 * 1024;

// PostgreSQL's SQLSTATEs: 53100 disk_full; 58030 io_error. The server away: 57P01–57P03 shutting
// down, crashed or starting; 08xxx the connection (postgres-failures.ts: 08001 no connection, 08006
// lost, 08007 a COMMIT's outcome unknown); 53300 no connection slot left; 25006 a read-only server
// (a standby); 57014 a statement cancelled at the statement timeout.
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);
const IO_CODES = new Set(['EIO', 'EROFS', '58030']);
const UNREACHABLE_CODES = new Set(['25006', '57P01', '57P02', '57P03', '57014', '53300', '08000', '08001', '08003', '08004', '08006']);
const UNKNOWN_OUTCOME_CODE = '08007';

/** What kind of storage failure `error` (or an error it was caused by) is; null when it is none. */
export function storageFailureKind(error: unknown): StorageFailureKind | null {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (FULL_CODES.has(code)) return 'full';
    if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY' || IO_CODES.has(code)) return 'io';
    if (code === UNKNOWN_OUTCOME_CODE) return 'unknown_outcome';
    if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  }
  return null;
}

/** Seconds to wait before a retry, by kind. */
export function storageRetryAfter(kind: StorageFailureKind): number {
  return kind === 'full' || kind === 'io' ? STORAGE_RETRY_AFTER_SECONDS : DATABASE_RETRY_AFTER_SECONDS;
}

/** The problem a call gets when its write was refused by the storage: 503 with Retry-After. */
export function storageProblem(kind: StorageFailureKind): Problem {
  const retryAfter = storageRetryAfter(kind);
  const headers = { 'retry-after': String(retryAfter) };
  const extensions = { retryAfter };
  switch (kind) {
    case 'full':
      return new Problem('storage_full', `The service's disk is full, so nothing was saved; retry in ${retryAfter} s with the same idempotency key.`, { headers, extensions });
    case 'io':
      return new Problem('storage_unavailable', `The service could not write to its disk, so nothing was saved; retry in ${retryAfter} s with the same idempotency key.`, { headers, extensions });
    case 'unreachable':
      return new Problem('storage_unavailable', `The service's database cannot be reached just now, so nothing was saved; retry in ${retryAfter} s with the same idempotency key.`, { headers, extensions });
    case 'unknown_outcome':
      return new Problem(
        'storage_unavailable',
        `The connection to the service's database was lost while this change was being saved, so it may have been saved. Retry in ${retryAfter} s with the same idempotency key: if it was saved, the retry answers it (Idempotent-Replayed: true) and nothing is made twice.`,
        { headers, extensions: { ...extensions, saved: 'unknown' } },
      );
  }
}

/** Problem codes that stand for a storage failure (logged once per episode, not per call). */
export function isStorageProblemCode(code: string): boolean {
  return code === 'storage_full' || code === 'storage_unavailable';
}

export type StorageLog = (level: 'error' | 'warn' | 'info', message: string, detail: Record<string, unknown>) => void;

export interface StorageState {
  writable: boolean;
  /** While not writable: the problem code calls get, and since when (ms). */
  failure?: { code: 'storage_full' | 'storage_unavailable'; sinceMs: number; retryAfterSeconds: number };
}

interface Episode {
  kind: StorageFailureKind;
  sinceMs: number;
  refused: number;
}

export class StorageHealth {
  #episode: Episode | null = null;
  #lastEpisodeEndMs = Number.NEGATIVE_INFINITY;
  #log: StorageLog;
  #probe: (() => Promise<void>) | null = null;
  #lastProbeMs = Number.NEGATIVE_INFINITY;
  #probing: Promise<void> | null = null;
  readonly #now: () => number;
  /** PostgreSQL's `host:port/database`; undefined for a SQLite file in the data folder. */
  readonly #database: string | undefined;
  /** Advice given before the service's logger was known (advise), logged once it is. */
  #advice: string[] = [];
  #logSet = false;

  constructor(options: { log?: StorageLog; now?: () => number; database?: string } = {}) {
    this.#log = options.log ?? ((level, message, detail) => console[level](message, detail));
    this.#now = options.now ?? Date.now;
    this.#database = options.database;
  }

  /** Where the start and end of an episode are logged (the service's logger, once it has one). */
  logTo(log: StorageLog): void {
    this.#log = log;
    this.#logSet = true;
    for (const advice of this.#advice) this.#log('warn', advice, {});
    this.#advice = [];
  }

  /** Something the operator should know about the storage (a superuser role): a warning, logged once the service's logger is set. */
  advise(message: string): void {
    if (this.#logSet) this.#log('warn', message, {});
    else this.#advice.push(message);
  }

  /** What was advised and not yet logged (a start line may show it). */
  get pendingAdvice(): readonly string[] {
    return this.#advice;
  }

  /** The write that ends a disk's episode (a create's size or more, into new space); it throws what the storage answered. */
  probeWith(probe: () => Promise<void>): void {
    this.#probe = probe;
  }

  /** The health's clock (ms): a write notes when it was sent, so a late answer is not taken for a recovery. */
  now(): number {
    return this.#now();
  }

  get writable(): boolean {
    return this.#episode === null;
  }

  /** Called with every failed statement; starts an episode (logged once) when it is a storage failure. */
  noteFailure(error: unknown, sentAtMs?: number): StorageFailureKind | null {
    const kind = storageFailureKind(error);
    if (kind === null) return null;
    if (this.#episode) {
      this.#episode.refused++;
      return kind;
    }
    // A write sent before the last episode ended whose failure is known only now (a lost COMMIT asked
    // about until the database answered): part of that outage, already logged and over. A COMMIT sent
    // a moment after another call saw the server go fails with that outage too.
    if (sentAtMs !== undefined && sentAtMs < this.#lastEpisodeEndMs) return kind;
    this.#episode = { kind, sinceMs: this.#now(), refused: 1 };
    const { code, message } = error as { code?: string; message?: string };
    const cause = `${code ?? 'unknown'}: ${message ?? String(error)}`;
    const answer = `writes answer 503 ${storageProblem(kind).code} until one succeeds`;
    const text = (() => {
      if (kind === 'unreachable' || kind === 'unknown_outcome') {
        return `the database cannot be reached (${cause}); ${answer}. Check that PostgreSQL is running at ${this.#database ?? 'the URL\'s address'}, reachable from here and has free connection slots; the service reconnects by itself.`;
      }
      const where = this.#database === undefined ? 'Free space in the data folder' : `Free space on the database server's disk (${this.#database})`;
      return `storage cannot be written (${cause}); ${answer}. ${where}; the service recovers by itself.`;
    })();
    this.#log('error', text, { code: code ?? null, cause: message ?? String(error), ...(this.#database === undefined ? {} : { database: this.#database }) });
    return kind;
  }

  /**
   * Called after a write committed. A database that was away is back. A disk that refused writes may
   * still refuse a create (a small write fits where a create does not): that asks for a probe (at most
   * one a second), whose success ends the episode.
   */
  noteCommitted(sentAtMs?: number): void {
    const episode = this.#episode;
    if (!episode) return;
    // A commit sent before the episode began was answered by the database as it was then (an old
    // primary finishing its last commits): it proves nothing about the database now.
    if (sentAtMs !== undefined && sentAtMs < episode.sinceMs) return;
    if (episode.kind === 'unreachable' || episode.kind === 'unknown_outcome') this.#end();
    else void this.#probeWhenDue();
  }

  /** The state now; while an episode lasts, probes the storage first (at most once a second). */
  async check(): Promise<StorageState> {
    if (this.#episode) await this.#probeWhenDue();
    const episode = this.#episode;
    if (!episode) return { writable: true };
    const code = storageProblem(episode.kind).code as 'storage_full' | 'storage_unavailable';
    return { writable: false, failure: { code, sinceMs: episode.sinceMs, retryAfterSeconds: storageRetryAfter(episode.kind) } };
  }

  /** Runs the probe unless one is running (then waits for it) or one ran less than a second ago. */
  #probeWhenDue(): Promise<void> {
    if (this.#probing) return this.#probing;
    const probe = this.#probe;
    if (!probe || this.#now() - this.#lastProbeMs < STORAGE_PROBE_EVERY_MS) return Promise.resolve();
    this.#lastProbeMs = this.#now();
    this.#probing = Promise.resolve()
      .then(probe)
      .then(
        () => this.#end(),
        (error: unknown) => void this.noteFailure(error),
      )
      .finally(() => {
        this.#probing = null;
      });
    return this.#probing;
  }

  #end(): void {
    const episode = this.#episode;
    if (!episode) return;
    this.#episode = null;
    this.#lastEpisodeEndMs = this.#now();
    const seconds = Math.round((this.#now() - episode.sinceMs) / 100) / 10;
    this.#log('info', `storage writable again after ${seconds} s (${episode.refused} failed write${episode.refused === 1 ? '' : 's'} meanwhile)`, { failedWrites: episode.refused, seconds });
  }
}
