/**
 * An answer worker (a worker thread): reads a search answer's pages from its own read-only
 * connection to the directory's SQLite file and assembles the answer's bytes, so that the server's
 * thread only searches the index and speaks HTTP. See answer-workers.ts for the other side.
 */
import { openSqliteFile } from '@svc/shared/sqlite-driver';
import { parentPort, workerData } from 'node:worker_threads';
import { assembleAnswer } from '../domain/search/answer-assembly.js';
import { PageReader } from '../store/kysely/page-reader.js';
import { decodePlan, type AnswerRequest, type AnswerResponse, type AnswerWorkerData } from './answer-protocol.js';

const { file, pageVersion, cacheKib } = workerData as AnswerWorkerData;
const sqlite = openSqliteFile(file, { readonly: true, fileMustExist: true });
sqlite.pragma(`cache_size = -${cacheKib}`);
const pages = new PageReader(sqlite);
const port = parentPort;
if (!port) throw new Error('answer-worker.ts runs as a worker thread');

port.on('message', (request: AnswerRequest) => {
  const id = request.id;
  let response: AnswerResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    const plan = decodePlan(request);
    const answer = assembleAnswer(plan, pages.read(pageVersion, plan.listings.map((l) => l.seq)));
    if (answer) {
      // A buffer of its own, moved to the other thread rather than copied.
      const owned = answer.toOwnedBytes();
      transfer.push(owned.buffer);
      response = { id, bytes: owned };
    } else {
      response = { id, bytes: null };
    }
  } catch (error) {
    response = { id, bytes: null, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(response, transfer);
});
