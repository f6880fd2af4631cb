/**
 * Copies a SQLite file's write-ahead log back into the database on a worker thread
 * (docs/storage.md "Checkpoints off the server's thread").
 *
 * SQLite does that copy (a checkpoint: every page changed since the last one, then an fsync of the
 * log and one of the database) on the connection whose commit takes the log past
 * `wal_autocheckpoint` pages. better-sqlite3 is synchronous, so that commit held the server's only
 * thread for 45–70 ms every second or so under load, and every request in flight waited: most of the
 * inbox's create p99. A second connection on a worker thread now checkpoints without waiting for
 * anyone (PASSIVE), again and again while there is something to copy, so the backlog stays a few
 * milliseconds of writes long.
 *
 * The server's connection keeps its own automatic checkpoint: when the log reaches its limit, that
 * checkpoint finds nearly everything copied already, copies the rest (a few milliseconds) and lets the
 * next write start the log from its beginning again, which only a connection between its own
 * transactions can bring about. If the worker cannot run or stops, that automatic checkpoint does all
 * the work as before. Durability is SQLite's own either way: any connection may checkpoint.
 *
 * The worker starts only once the log has grown past `startAtWalBytes`: a database written a little
 * (most tests, a quiet business) never pays for a thread.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './sqlite-driver.js';

export interface WalCheckpointerOptions {
  /** The log size that starts the worker (default 1 MiB: 256 pages). */
  startAtWalBytes?: number;
  /** How often the log's size is looked at until then (default 500 ms). */
  lookEveryMs?: number;
  /** The pause after a checkpoint that copied pages (default 10 ms): writes are coming in. */
  busyPauseMs?: number;
  /** The pause after one that found nothing to copy (default 200 ms). */
  idlePauseMs?: number;
}

/** What the worker has done so far. */
export interface CheckpointCounts {
  checkpoints: number;
  framesCopied: number;
  failures: number;
}

/** The counts live in memory both threads see (no message a pass): checkpoints, frames copied, failures. */
const COUNTS = 3;

/**
 * The worker's whole program, run as CommonJS from this string so it needs no file of its own in
 * both `src/` (tests) and `dist/`. It opens its own connection through the same driver.
 */
const WORKER_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const counts = new Float64Array(workerData.counts);
let backfilled = 0;
let timer;
const pass = () => {
  let pause = workerData.idlePauseMs;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    counts[0] += 1;
    if (result.busy) pause = workerData.busyPauseMs;
    else if (result.checkpointed !== backfilled) {
      // After the log started again the count starts from 0.
      counts[1] += result.checkpointed > backfilled ? result.checkpointed - backfilled : result.checkpointed;
      pause = workerData.busyPauseMs;
    }
    backfilled = result.checkpointed;
  } catch {
    counts[2] += 1;
  }
  timer = setTimeout(pass, pause);
};
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  process.exit(0);
});
pass();
`;

export class WalCheckpointer {
  readonly #file: string;
  readonly #options: Required<WalCheckpointerOptions>;
  readonly #look: NodeJS.Timeout;
  #worker: Worker | null = null;
  /** The worker told to stop and not yet exited (held meanwhile; let go when stopped() gives up on it). */
  #stopping: Worker | null = null;
  #exited: Promise<void> = Promise.resolve();
  readonly #counts = new Float64Array(new SharedArrayBuffer(COUNTS * Float64Array.BYTES_PER_ELEMENT));
  #stopped = false;

  /** Watches `file` (a SQLite database in WAL mode that is open on this thread) and starts the worker when its log grows. */
  constructor(file: string, options: WalCheckpointerOptions = {}) {
    this.#file = file;
    this.#options = { startAtWalBytes: 1 << 20, lookEveryMs: 500, busyPauseMs: 10, idlePauseMs: 200, ...options };
    this.#look = setInterval(() => this.#lookAtLog(), this.#options.lookEveryMs);
    this.#look.unref();
  }

  /** Whether the worker is running. */
  get running(): boolean {
    return this.#worker !== null;
  }

  get counts(): CheckpointCounts {
    const [checkpoints = 0, framesCopied = 0, failures = 0] = this.#counts;
    return { checkpoints, framesCopied, failures };
  }

  /** Stops looking and stops the worker; the promise settles when its connection is closed. */
  stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#look);
    // Held from now until it exits: the process stays for the promise to settle, as an awaiting
    // caller (a service stopping on a signal) expects, rather than ending with its close unfinished.
    if (this.#worker) {
      this.#worker.ref();
      this.#worker.postMessage('stop');
      this.#stopping = this.#worker;
      this.#worker = null;
    }
    return this.#exited;
  }

  /** Stops (if not yet) and waits for the worker's connection to close, `maxMs` at most. */
  async stopped(maxMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    // Not unref'd: it bounds how long the process is held for a worker that does not exit.
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxMs);
    });
    await Promise.race([this.stop(), waited]);
    clearTimeout(timer);
    // A worker that did not exit in time no longer holds the process (it goes when the process does).
    this.#stopping?.unref();
  }

  #lookAtLog(): void {
    const log = statSync(`${this.#file}-wal`, { throwIfNoEntry: false });
    if (!log || log.size < this.#options.startAtWalBytes) return;
    clearInterval(this.#look);
    this.#start();
  }

  #start(): void {
    if (this.#stopped || this.#worker) return;
    const { busyPauseMs, idlePauseMs } = this.#options;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_PROGRAM, { eval: true, workerData: { file: this.#file, driverPath: sqliteDriverPath(), busyPauseMs, idlePauseMs, counts: this.#counts.buffer } });
    } catch {
      return; // No thread: the server's connection checkpoints by itself, as SQLite always does.
    }
    worker.unref();
    // A worker that fails (the file went away, the driver would not load) leaves the work to the server's connection.
    worker.on('error', () => undefined);
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.once('exit', () => {
      if (this.#worker === worker) this.#worker = null;
      if (this.#stopping === worker) this.#stopping = null;
    });
    this.#worker = worker;
  }
}
