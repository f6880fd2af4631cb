/**
 * One form of bench/directory-page-read.ts's page read, in a worker thread of its own as an answer
 * worker reads (its own heap, V8's own young generation): the same page sets read `rounds` times
 * one after the other, then the time and the thread's heap as the reads left it.
 */
import { connectPostgres, DEFAULT_POSTGRES_SETTINGS } from '@svc/shared/storage';
import { sql } from 'kysely';
import pg from 'pg';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { StoredListingPage } from '../../packages/directory/dist/domain/listings/listing-page.js';
import { PostgresPageReader } from '../../packages/directory/dist/store/kysely/postgres-page-reader.js';

export type PageReadForm = 'text' | 'base64' | 'promise' | 'callback' | 'socket';
export interface PageReadJob {
  url: string;
  form: PageReadForm;
  version: string;
  sets: number[][];
  rounds: number;
}
export interface PageReadResult {
  form: PageReadForm;
  reads: number;
  pages: number;
  ms: number;
  heapTotalMb: number;
  youngGenerationMb: number;
}

const job = workerData as PageReadJob;
type Read = (seqs: readonly number[]) => Promise<Map<number, StoredListingPage>>;

/** The reader an answer worker uses: `fixed` as its text (sql-dialect.ts `utf8Bytes`). */
function textForm(): Read {
  const reader = new PostgresPageReader(job.url, DEFAULT_POSTGRES_SETTINGS, 1);
  return (seqs) => reader.read(job.version, seqs);
}

/** The form it replaced: the server converts `fixed` to UTF-8 bytes and sends them as base64. */
function base64Form(): Read {
  const db = connectPostgres(job.url, { applicationName: 'page read bench', max: 1, settings: DEFAULT_POSTGRES_SETTINGS });
  return async (seqs) => {
    const { rows } = await sql<{ seq: number; inputs: string; fixed: string }>`SELECT seq, inputs, encode(convert_to(fixed, 'UTF8'), 'base64') AS fixed FROM listing_pages WHERE version = ${job.version} AND seq = ANY(CAST(${[...seqs]} AS integer[]))`.execute(db);
    return new Map(rows.map((row) => [row.seq, new StoredListingPage(row.inputs, Buffer.from(row.fixed, 'base64'))]));
  };
}

/**
 * The same statement on node-postgres's own client, without Kysely or the store's dialect: in the
 * driver's promise form (what the dialect called until 2026-12-07), or its callback form (what it
 * calls now, guarded-postgres-dialect.ts `queryWithCallback`).
 */
async function rawForm(form: 'promise' | 'callback'): Promise<Read> {
  const client = new pg.Client({ connectionString: job.url });
  await client.connect();
  const statement = { name: `page-read-${form}`, text: 'SELECT seq, inputs, fixed FROM listing_pages WHERE version = $1 AND seq = ANY(CAST($2 AS integer[]))' };
  const pagesOf = (rows: { seq: number; inputs: string; fixed: string }[]) => new Map(rows.map((row) => [row.seq, new StoredListingPage(row.inputs, Buffer.from(row.fixed, 'utf8'))]));
  if (form === 'promise') return async (seqs) => pagesOf((await client.query<{ seq: number; inputs: string; fixed: string }>({ ...statement, values: [job.version, [...seqs]] })).rows);
  return (seqs) =>
    new Promise((resolve, reject) => {
      client.query<{ seq: number; inputs: string; fixed: string }>({ ...statement, values: [job.version, [...seqs]] }, (error, result) => (error ? reject(error) : resolve(pagesOf(result.rows))));
    });
}

/**
 * A control without node-postgres: the same pages' bytes sent by a server on a local socket (in this
 * thread) and made into the same strings and pages, so that what the driver's own path keeps
 * alive in the young generation shows by difference.
 */
async function socketForm(): Promise<Read> {
  const db = connectPostgres(job.url, { applicationName: 'page read bench', max: 1, settings: DEFAULT_POSTGRES_SETTINGS });
  const frame = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return [length, bytes];
  };
  const answers: Buffer[] = [];
  for (const seqs of job.sets) {
    const { rows } = await sql<{ seq: number; inputs: string; fixed: string }>`SELECT seq, inputs, fixed FROM listing_pages WHERE version = ${job.version} AND seq = ANY(CAST(${[...seqs]} AS integer[]))`.execute(db);
    answers.push(Buffer.concat(rows.flatMap((row) => [...frame(String(row.seq)), ...frame(row.inputs), ...frame(row.fixed)])));
  }
  await db.destroy();
  const server = createServer((socket) => socket.on('data', (asked) => socket.write(answers[asked[0]!]!)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  socket.setNoDelay(true);
  server.unref();
  socket.unref();
  let waiting: { expected: number; chunks: Buffer[]; got: number; done: (pages: Map<number, StoredListingPage>) => void } | null = null;
  socket.on('data', (chunk: Buffer) => {
    if (!waiting) return;
    waiting.chunks.push(chunk);
    waiting.got += chunk.length;
    if (waiting.got < waiting.expected) return;
    const all = Buffer.concat(waiting.chunks);
    const fields: string[] = [];
    for (let at = 0; at < all.length; ) {
      const length = all.readUInt32BE(at);
      fields.push(all.toString('utf8', at + 4, at + 4 + length));
      at += 4 + length;
    }
    const pages = new Map<number, StoredListingPage>();
    for (let i = 0; i < fields.length; i += 3) pages.set(Number(fields[i]), new StoredListingPage(fields[i + 1]!, Buffer.from(fields[i + 2]!, 'utf8')));
    const { done } = waiting;
    waiting = null;
    done(pages);
  });
  const setOf = new Map(job.sets.map((seqs, i) => [seqs, i]));
  return (seqs) =>
    new Promise((resolve) => {
      const i = setOf.get(seqs as number[])!;
      waiting = { expected: answers[i]!.length, chunks: [], got: 0, done: resolve };
      socket.write(Buffer.from([i]));
    });
}

const read = job.form === 'text' ? textForm() : job.form === 'base64' ? base64Form() : job.form === 'socket' ? await socketForm() : await rawForm(job.form);
// A first round outside the count: connections made, statements prepared, code compiled.
for (const seqs of job.sets) await read(seqs);
let pages = 0;
const started = performance.now();
for (let round = 0; round < job.rounds; round++) for (const seqs of job.sets) pages += (await read(seqs)).size;
const ms = performance.now() - started;
const MB = 2 ** 20;
const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
parentPort!.postMessage({
  form: job.form,
  reads: job.rounds * job.sets.length,
  pages,
  ms: Math.round(ms),
  heapTotalMb: Math.round(getHeapStatistics().total_heap_size / MB),
  youngGenerationMb: Math.round((young?.space_size ?? 0) / MB),
} satisfies PageReadResult);
process.exit(0);
