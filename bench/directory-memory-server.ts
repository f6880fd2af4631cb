/**
 * The memory bench's node (bench/directory-memory.ts): a directory over a prepared data folder or
 * PostgreSQL database, started the way bench/directory-server.ts starts one (compiled code, clock at
 * BENCH_NOW), that prepares its hour, answers the query mix a few times over HTTP, asked by a client in another process (so its answer
 * workers start and read pages, and the index makes its grid and bitsets), and prints one JSON line:
 * the process's memory when ready and after the searches (its work off the search path done, then
 * garbage collected), the index's
 * typed arrays by field, the hour's tables, then exits.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, type HeapInfo } from 'node:v8';
import { buildDirectory } from '../packages/directory/dist/app.js';
import { tuneCollectorForServing } from '../packages/directory/dist/collector-setting.js';
import { ANSWER_WORKER_IDLE_MS, NODE_IDLE_MS } from '../packages/directory/dist/heap-pages.js';

const dataDir = process.env.DATA_DIR as string;
const rounds = Number(process.env.ROUNDS ?? 3);
let offset = Date.parse(process.env.BENCH_NOW ?? new Date().toISOString()) - Date.now();
/** HOUR_CHANGE=1: then the clock moves an hour on and the node changes its hour (in place), measured too. */
const hourChange = process.env.HOUR_CHANGE === '1';
const MIX = [
  '/v1/businesses',
  '/v1/businesses?q=coffee',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=10',
  '/v1/businesses?category=restaurant',
  '/v1/businesses?open_now=true',
  '/v1/businesses?category=hair-beauty&language=en&open_now=true',
  '/v1/businesses?limit=100',
  '/v1/businesses?near=38.7223,-9.1393&radius_km=50&order=nearest',
];

/** The mix, `rounds` times, from a client in its own process (bench/support/query-mix-client.mjs), so its buffers are not the node's. */
async function searchFromAnotherProcess(address: string, times: number): Promise<void> {
  const client = spawn(process.execPath, [new URL('./support/query-mix-client.mjs', import.meta.url).pathname, address, String(times), JSON.stringify(MIX)], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(client, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the searches' client exited with ${code}`);
}

const MB = 2 ** 20;
/** The answer workers' heaps (each collected first would need its own `gc`; these are as the workers left them). */
async function answerWorkerHeaps(): Promise<HeapInfo[]> {
  return (await directory.answerWorkers?.heapStatistics()) ?? [];
}
/** The process's memory now, in MB: V8's view and the kernel's (/proc/self/status). */
function memoryNow(workerHeaps: readonly HeapInfo[] = []): Record<string, number> {
  global.gc?.();
  global.gc?.();
  const m = process.memoryUsage();
  const out: Record<string, number> = {
    rss: m.rss / MB,
    heapTotal: m.heapTotal / MB,
    heapUsed: m.heapUsed / MB,
    external: m.external / MB,
    arrayBuffers: m.arrayBuffers / MB,
  };
  for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
    const found = /^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem):\s+(\d+) kB/.exec(line);
    if (found) out[found[1]!] = Number(found[2]) / 1024;
  }
  Object.assign(out, mappingsNow());
  for (const [i, heap] of workerHeaps.entries()) {
    out[`worker${i}.heapTotal`] = heap.total_heap_size / MB;
    out[`worker${i}.heapUsed`] = heap.used_heap_size / MB;
    out[`worker${i}.external`] = heap.external_memory / MB;
  }
  // The V8 heap's spaces, reserved (used): where a heap larger than what it holds keeps its pages.
  for (const space of getHeapSpaceStatistics()) if (space.space_size >= MB) out[`v8.${space.space_name}`] = space.space_size / MB;
  for (const key of Object.keys(out)) out[key] = Math.round(out[key]! * 10) / 10;
  return out;
}

/**
 * Resident memory by kind of mapping (/proc/self/smaps, Linux), in MB: glibc's main heap (`[heap]`:
 * what malloc kept below its mmap threshold, freed or not), anonymous mappings of 1 MB or more (large
 * arrays, glibc's other arenas, thread stacks) and smaller ones (mostly the V8 heaps' 256 KB pages,
 * every thread's isolate together), and files (the binary, libraries, SQLite's mapped pages).
 */
function mappingsNow(): Record<string, number> {
  const kb = { mallocHeap: 0, anonLarge: 0, anonSmall: 0, files: 0 };
  let kind: keyof typeof kb = 'files';
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return {};
  }
  for (const line of text.split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[3]!;
      const sizeKb = (parseInt(mapping[2]!, 16) - parseInt(mapping[1]!, 16)) / 1024;
      kind = name === '[heap]' ? 'mallocHeap' : name.startsWith('/') ? 'files' : sizeKb >= 1024 ? 'anonLarge' : 'anonSmall';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kb[kind] += Number(rss[1]);
  }
  return Object.fromEntries(Object.entries(kb).map(([key, value]) => [key, value / 1024]));
}

// V8's collector set as a node's start sets it (collector-setting.ts), with DIRECTORY_HEAP_GROWING_PERCENT as an operator would set it.
const { externalInHeapLimit, heapGrowingPercent } = tuneCollectorForServing(process.env.DIRECTORY_HEAP_GROWING_PERCENT ? Number(process.env.DIRECTORY_HEAP_GROWING_PERCENT) : null);
const releaseHeapPages = process.env.RELEASE_HEAP_PAGES !== '0';
const heapEvents: { msg: string; heap?: unknown; busy?: unknown }[] = [];
function keepHeapEvent(line: string): void {
  const entry = JSON.parse(line) as { msg?: string; heap?: unknown; busy?: unknown };
  if (entry.msg?.startsWith('heap')) heapEvents.push({ msg: entry.msg, heap: entry.heap, busy: entry.busy });
}
/** Past the idle wait, time for the collections themselves (100–160 ms on the node's thread at 1 M). */
const IDLE_MARGIN_MS = 1_500;
const started = performance.now();
const directory = await buildDirectory({
  dataDir,
  baseUrl: 'http://127.0.0.1',
  rateLimit: 0,
  clock: { now: () => Date.now() + offset },
  // Only the node's own accounts of its collections are kept (what each held the thread, and the RSS before and after).
  logLevel: 'info',
  logStream: { write: (line: string) => void keepHeapEvent(line) },
  runJobs: false,
  hourlyTimer: false,
  // As a node started by main.ts unless the run compares without (RELEASE_HEAP_PAGES=0): heap-pages.ts.
  releaseHeapPages,
});
await directory.search.hour();
const pagesRendered = await directory.pagesReady;
const prepareMs = Math.round(performance.now() - started);
// Each figure once the work the node does off the search path is done (the hour's statement, a
// snapshot being written, a rebuild in the background): what it holds from then on, not on the way.
await directory.search.settled();
const ready = memoryNow(await answerWorkerHeaps());
const address = await directory.http.listen({ host: '127.0.0.1', port: 0 });
const searchStarted = performance.now();
await searchFromAnotherProcess(address, rounds);
const searchMs = Math.round(performance.now() - searchStarted);
await directory.search.settled();
// At the searches' end, then once the node and its workers have had their pause (heap-pages.ts
// CollectionWhenIdle): what a node holds while searches flow, and what it keeps once they pause.
const atSearchesEnd = memoryNow(await answerWorkerHeaps());
await new Promise((resolve) => setTimeout(resolve, (releaseHeapPages ? NODE_IDLE_MS : ANSWER_WORKER_IDLE_MS) + IDLE_MARGIN_MS));
const afterSearches = memoryNow(await answerWorkerHeaps());
let change: Record<string, unknown> | null = null;
if (hourChange) {
  offset += 3_600_000;
  const changeStarted = performance.now();
  const response = await fetch(`${address}${MIX[0]}`);
  await response.arrayBuffer();
  const ms = Math.round(performance.now() - changeStarted);
  await directory.search.settled();
  change = { ms, status: response.status, after: memoryNow(await answerWorkerHeaps()) };
}
const state = directory.search.peek();
if (!state) throw new Error('no hour prepared');
const index = state.index.memory();
const tables = { 'shuffles (DayShuffles)': state.shuffles.byteLength, 'ranks (HourRanks)': state.ranks.byteLength };
process.stdout.write(`${JSON.stringify({ done: true, externalInHeapLimit, heapGrowingPercent, prepareMs, pagesRendered, searchMs, ready, atSearchesEnd, afterSearches, change, heapEvents, index, tables, stats: state.index.stats() })}\n`);
await directory.close();
process.exit(0);
