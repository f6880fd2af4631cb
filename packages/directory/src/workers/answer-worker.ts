/**
 * An answer worker (a worker thread): reads a search answer's pages from its own connection to the
 * directory's database (read-only on the SQLite file; a pool of one or two connections on PostgreSQL) and
 * assembles the answer's bytes, so that the server's thread only searches the index and speaks
 * HTTP. See answer-workers.ts for the other side.
 */
import { openSqliteFile } from '@svc/shared/sqlite-driver';
import { parentPort, workerData } from 'node:worker_threads';
import { assembleAnswer } from '../domain/search/answer-assembly.js';
import type { StoredListingPage } from '../domain/listings/listing-page.js';
import { PageReader } from '../store/kysely/page-reader.js';
import { ANSWER_WORKER_IDLE_MS, ANSWER_WORKER_MIN_ANSWERS, CollectionWhenIdle } from '../heap-pages.js';
import { decodePlan, type AnswerRequest, type AnswerResponse, type AnswerWorkerData, type AnswerWorkerReady } from './answer-protocol.js';

const { storage, pageVersion, cacheKib } = workerData as AnswerWorkerData;
const port = parentPort;
if (!port) throw new Error('answer-worker.ts runs as a worker thread');

/** The pages of an answer, from this worker's own connection (PostgreSQL's reader loaded only when used). */
const readPages: (version: string, seqs: readonly number[]) => Map<number, StoredListingPage> | Promise<Map<number, StoredListingPage>> = await (async () => {
  if (storage.engine === 'postgres') {
    const { PostgresPageReader } = await import('../store/kysely/postgres-page-reader.js');
    const reader = new PostgresPageReader(storage.url, storage.settings, storage.connections ?? 1);
    return (version: string, seqs: readonly number[]) => reader.read(version, seqs);
  }
  const sqlite = openSqliteFile(storage.file, { readonly: true, fileMustExist: true });
  sqlite.pragma(`cache_size = -${cacheKib}`);
  const reader = new PageReader(sqlite);
  return (version: string, seqs: readonly number[]) => reader.read(version, seqs);
})();

const whenIdle = new CollectionWhenIdle({ idleMs: ANSWER_WORKER_IDLE_MS, minWork: ANSWER_WORKER_MIN_ANSWERS });

port.postMessage({ ready: true } satisfies AnswerWorkerReady);

port.on('message', (request: AnswerRequest) => {
  const found = (() => {
    try {
      const plan = decodePlan(request);
      return { plan, pages: readPages(pageVersion, plan.listings.map((l) => l.seq)) };
    } catch (error) {
      return { error };
    }
  })();
  if ('error' in found) return answer(request.id, () => null, found.error);
  const { plan, pages } = found;
  // SQLite reads at once (one answer at a time, no wait); PostgreSQL's read is awaited.
  if (pages instanceof Map) return answer(request.id, () => assembleAnswer(plan, pages));
  pages.then(
    (read) => answer(request.id, () => assembleAnswer(plan, read)),
    (error: unknown) => answer(request.id, () => null, error),
  );
});

function answer(id: number, assemble: () => ReturnType<typeof assembleAnswer>, failure?: unknown): void {
  let response: AnswerResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    if (failure !== undefined) throw failure;
    const assembled = assemble();
    if (assembled) {
      // A buffer of its own, moved to the other thread rather than copied.
      const owned = assembled.toOwnedBytes();
      transfer.push(owned.buffer);
      response = { id, bytes: owned };
    } else {
      response = { id, bytes: null };
    }
  } catch (error) {
    response = { id, bytes: null, error: error instanceof Error ? error.message : String(error) };
  }
  (port as NonNullable<typeof port>).postMessage(response, transfer);
  whenIdle.noteWork();
}
