/**
 * The bulk load's SQLite writes on a thread of their own (issue 40). better-sqlite3 runs SQLite on
 * the thread that calls it, so a load on one thread prepared a transaction (rows, JSON, pages) and
 * then wrote it, one after the other, with the machine's other core idle. With this writer the load's
 * thread prepares the next transaction while the worker writes the one before (docs/directory.md
 * "Loading listings"). Only the root store of a SQLite file uses it: a worker cannot reach a
 * database in memory, nor a transaction its caller holds open.
 */
import type { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from '@svc/shared/sqlite-driver';
import type { ListingPage } from '../domain/listings/listing-page.js';
import type { ListingColumns } from '../store/kysely/listing-columns.js';
import { siblingModule, startModuleWorker } from './module-worker.js';
import type { PortableStatement, SqliteLoadReady, SqliteLoadRequest, SqliteLoadResponse, SqliteLoadWorkerData } from './sqlite-load-protocol.js';

/** An error from the worker's transaction, with SQLite's code when it had one (SQLITE_FULL, SQLITE_BUSY…). */
export class SqliteLoadError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.name = 'SqliteLoadError';
    this.code = code;
  }
}

export interface SqliteLoadStatements {
  lastRevision: PortableStatement;
  listing: PortableStatement;
  page: PortableStatement;
}

interface Pending {
  resolve: (inserted: number) => void;
  reject: (error: Error) => void;
}

export class SqliteLoadWriter {
  readonly #worker: Worker;
  readonly #ready: Promise<void>;
  readonly #pending = new Map<number, Pending>();
  readonly #exited: Promise<void>;
  #failure: Error | null = null;
  #ids = 0;

  constructor(file: string, statements: SqliteLoadStatements, pageVersion: string | null, cacheKib: number, busyTimeoutMs = 5_000) {
    const workerData: SqliteLoadWorkerData = { driverPath: sqliteDriverPath(), file, busyTimeoutMs, cacheKib, pageVersion, ...statements };
    this.#worker = startModuleWorker(WORKER_URL, workerData);
    let readyNow: () => void = () => undefined;
    let failedNow: (error: Error) => void = () => undefined;
    this.#ready = new Promise<void>((resolve, reject) => {
      readyNow = resolve;
      failedNow = reject;
    });
    // A worker that fails before any write is seen by the next write.
    this.#ready.catch(() => undefined);
    const fail = (error: Error) => {
      this.#failure ??= error;
      failedNow(error);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    this.#worker.on('message', (message: SqliteLoadResponse | SqliteLoadReady) => {
      if ('ready' in message) return readyNow();
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new SqliteLoadError(message.error.message, message.error.code));
      else pending.resolve(message.inserted ?? 0);
    });
    this.#worker.on('error', (error) => fail(error));
    this.#exited = new Promise<void>((resolve) =>
      this.#worker.once('exit', (code) => {
        fail(new Error(`the load's SQLite writer stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  /** Writes one transaction of rows (numbered after the last stored revision) and their pages; answers how many listings were new. */
  async write(rows: ListingColumns[], pages: ListingPage[] | null): Promise<number> {
    if (this.#failure) throw this.#failure;
    const id = this.#ids++;
    const done = new Promise<number>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#worker.postMessage({ id, rows, pages } satisfies SqliteLoadRequest);
    const [, inserted] = await Promise.all([this.#ready, done]);
    return inserted;
  }

  /** Closes the worker's connection and waits for the thread to end. */
  async close(): Promise<void> {
    if (!this.#failure) this.#worker.postMessage('close');
    else await this.#worker.terminate();
    await this.#exited;
  }
}

const WORKER_URL = siblingModule('sqlite-load-worker', import.meta.url);
