/**
 * The bulk load's SQLite writer thread: writes each transaction the load sends on a connection of
 * its own, so that SQLite's work (a third of a load's time, ~12 s per 100,000 listings here) runs on
 * another core while the load's thread prepares the next transaction's rows and pages. The statements
 * are the ones the load's thread compiled with Kysely; this thread only binds their values.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqliteDatabase } from '@svc/shared/sqlite-driver';
import type { PortableStatement, SqliteLoadReady, SqliteLoadRequest, SqliteLoadResponse, SqliteLoadWorkerData } from './sqlite-load-protocol.js';

/** The write-ahead log's length at which this connection copies it back itself. */
const LOAD_LOG_BYTES = 256 * 1024 * 1024;

if (!parentPort) throw new Error('sqlite-load-worker runs on a worker thread');
const port = parentPort;
const data = workerData as SqliteLoadWorkerData;
const Database = createRequire(import.meta.url)(data.driverPath) as new (file: string, options: { fileMustExist: boolean }) => SqliteDatabase;
const db = new Database(data.file, { fileMustExist: true });
db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
db.pragma('synchronous = NORMAL');
db.pragma('temp_store = MEMORY');
db.pragma('foreign_keys = ON');
db.pragma(`cache_size = -${data.cacheKib}`);
// The log is copied back into the file by the store's checkpointer thread (wal-checkpointer.ts)
// while this one writes. At SQLite's default (1,000 pages) each commit of a load's transaction
// (~85 MB) also copied the whole log itself, ~0.6 s of this thread's 1.6 s a transaction; at
// LOAD_LOG_BYTES it checkpoints only what that thread has not copied yet, and the log stays bounded.
const pageSize = Number(db.pragma('page_size', { simple: true }));
db.pragma(`wal_autocheckpoint = ${Math.max(1_000, Math.floor(LOAD_LOG_BYTES / pageSize))}`);

const prepared = (statement: PortableStatement) => {
  const compiled = db.prepare(statement.sql);
  const bound = (values: Record<string, unknown>) => statement.sources.map((source) => ('slot' in source ? values[source.slot] : source.fixed));
  return { compiled, bound };
};
const lastRevision = db.prepare(data.lastRevision.sql).pluck();
const listing = prepared(data.listing);
const page = prepared(data.page);

/** The transaction's listings, numbered from the revision after the last stored; how many were new. */
function written(request: SqliteLoadRequest): number {
  const first = Number(lastRevision.get() ?? 0) + 1;
  let inserted = 0;
  for (let i = 0; i < request.rows.length; i++) {
    const row = { ...request.rows[i], revision: first + i, content_revision: first + i };
    const stored = listing.compiled.get(listing.bound(row)) as { seq: number } | undefined;
    if (!stored) continue;
    inserted++;
    const rendered = request.pages?.[i];
    if (!rendered || data.pageVersion === null) continue;
    page.compiled.run(page.bound({ seq: stored.seq, version: data.pageVersion, inputs: rendered.inputs, fixed: rendered.fixed }));
  }
  return inserted;
}

/**
 * Parts sent ahead of their transaction: the load sends the next transaction's first parts while
 * this thread still writes (or commits) the one before, but that transaction begins only once the
 * load has let its own connection go and held it again ('begin'), so the load's other statements
 * get their turn between two transactions instead of meeting this thread's lock.
 */
const waiting: SqliteLoadRequest[] = [];
let mayBegin = false;

function answer(part: SqliteLoadRequest): void {
  try {
    if (!db.inTransaction) {
      mayBegin = false;
      db.exec('BEGIN IMMEDIATE');
    }
    const inserted = written(part);
    if (part.commit) db.exec('COMMIT');
    port.postMessage({ id: part.id, inserted } satisfies SqliteLoadResponse);
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    const { message: text, code } = error as { message?: string; code?: unknown };
    port.postMessage({ id: part.id, error: { message: String(text ?? error), ...(typeof code === 'string' ? { code } : {}) } } satisfies SqliteLoadResponse);
  }
}

port.on('message', (message: SqliteLoadRequest | 'begin' | 'close') => {
  if (message === 'close') {
    // A transaction still open here belongs to a load that failed before it ended: none of it
    // stays. Parts still waiting for theirs are never written (their load sees this thread end).
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    port.close();
    return;
  }
  if (message === 'begin') mayBegin = true;
  else waiting.push(message);
  // After a failure no 'begin' comes: the parts behind it wait until the load closes this thread.
  while (waiting.length > 0 && (db.inTransaction || mayBegin)) answer(waiting.shift()!);
});
port.postMessage({ ready: true } satisfies SqliteLoadReady);
