/**
 * The bulk load's SQLite writes on a thread of their own (issue 40). better-sqlite3 runs SQLite on
 * the thread that calls it, so a load on one thread prepared a transaction (rows, JSON, pages) and
 * then wrote it, one after the other, with the machine's other core idle. With this writer the load's
 * thread prepares the next transaction while the worker writes the one before (docs/directory.md
 * "Loading listings"). Only the root store of a SQLite file uses it: a worker cannot reach a
 * database in memory, nor a transaction its caller holds open.
 */
import { sqliteDriverPath } from '@svc/shared/sqlite-driver';
import type { ListingPage } from '../domain/listings/listing-page.js';
import type { ListingColumns } from '../store/kysely/listing-columns.js';
import { siblingModule } from './module-worker.js';
import { RequestWorker } from './request-worker.js';
import type { PortableStatement, SqliteLoadRequest, SqliteLoadResponse, SqliteLoadWorkerData } from './sqlite-load-protocol.js';

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

export class SqliteLoadWriter {
  readonly #worker: RequestWorker<Omit<SqliteLoadRequest, 'id'>, SqliteLoadResponse>;

  constructor(file: string, statements: SqliteLoadStatements, pageVersion: string | null, cacheKib: number, busyTimeoutMs = 5_000) {
    const workerData: SqliteLoadWorkerData = { driverPath: sqliteDriverPath(), file, busyTimeoutMs, cacheKib, pageVersion, ...statements };
    this.#worker = new RequestWorker(WORKER_URL, workerData, {
      name: "the load's SQLite writer",
      errorOf: (response) => (response.error ? new SqliteLoadError(response.error.message, response.error.code) : null),
    });
  }

  /**
   * Writes rows (numbered after the last stored revision) and their pages in the transaction open on
   * the worker's connection, or in the next one, which this part waits for until `begin` lets it
   * begin; `commit` ends it. Answers how many listings were new. A failure rolls back the whole
   * transaction, earlier parts with it, and no later part is written.
   */
  async write(rows: ListingColumns[], pages: ListingPage[] | null, commit: boolean): Promise<number> {
    const response = await this.#worker.request({ rows, pages, commit });
    return response.inserted ?? 0;
  }

  /** Lets the next transaction begin (its parts may have been sent already): call once per transaction. */
  begin(): void {
    this.#worker.post('begin');
  }

  /** Closes the worker's connection (rolling back a transaction left open) and waits for the thread to end. */
  async close(): Promise<void> {
    if (this.#worker.failed) return this.#worker.terminate();
    this.#worker.post('close');
    await this.#worker.exited();
  }
}

const WORKER_URL = siblingModule('sqlite-load-worker', import.meta.url);
