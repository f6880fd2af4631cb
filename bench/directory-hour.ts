/**
 * Search through the hour's change (issue 40): the next hour prepared ahead (`ahead`: its order
 * sorted and the index laid out in it in the hour's last minutes, the listings written since placed
 * again at the change), the index given the new order at the change (`in-place`: listings written
 * during the hour kept in the small live index) and the rebuild both replace (the whole index built
 * again at the change whenever a listing's content changed: `hourInPlace: false`), in the same run,
 * on the same stored listings.
 *
 *   npx tsx bench/directory-hour.ts [--size 100000] [--seconds 15] [--writes 1000] [--modes rebuild,in-place,ahead]
 *                                   [--dir /tmp/directory-hour] [--database-url postgres://…] [--hour-offset 0] [--load-only true] [--render-workers 0]
 *                                   [--rows-per-transaction 50000] [--rows-per-part 10000]
 *                                   [--external-in-heap-limit true] [--release-heap-pages false]
 *
 * For each mode: a directory (in this process, every cache off, answers on the server's thread)
 * builds its index at hour H; --writes listings are renamed (a content change each); searches of
 * the query mix run one after another for --seconds (the hour before, its writes in the live
 * index's small second index, as in any hour with writes); the clock moves to the hour's last
 * minutes (H + 51 min), where searches run until the next hour is prepared (at once but for `ahead`)
 * and --seconds after (`lastMinutes`); --writes / 10 more listings are renamed; the clock moves to
 * H + 1 and the same searches run for --seconds again, the first of them meeting the hour's change (the
 * order computed and stored, its signed statement, and the index given it or built again; the
 * search deadline is lifted, so the change is timed rather than answered 503 after 10 s). Each
 * window's p50 / p99 / max are the latencies of the searches in it; `change` is the first search's
 * after the clock moved, and the window through the change is that search and the searches until the
 * change's work off the search path is done (its statement, and a snapshot where one is written) and
 * --seconds after. The hour before is searched once its own start's work is done. The last minutes
 * and the window through the change also give their figures apart for the searches made while the
 * background work ran (`whilePreparing`, `whileChangeWork`, with its seconds) and for those after it.
 * V8 counts memory outside its heap in the heap's limit, as a node's start sets it (collector-setting.ts;
 * `--external-in-heap-limit false`: V8's own default; DIRECTORY_HEAP_GROWING_PERCENT in the
 * environment bounds that limit's growth as it does for a node). Each window also counts the node's full
 * collections (`fullCollections`: how many, their pauses summed and the longest, in ms), which
 * pause the searches' thread.
 * Listings are stored once under --dir (SQLite) or in a database `bench_hour_<size>` (PostgreSQL)
 * with the bulk load (--rows-per-transaction: listings in each of its transactions; --rows-per-part:
 * listings it prepares and hands on at a time; the load's own defaults when absent). Writes bench/results/directory-hour-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { join } from 'node:path';
import pg from 'pg';
import { storageTarget } from '@svc/shared';
import { generateListings } from '../packages/directory/src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../packages/directory/src/demo/seed-directory.js';
import { buildDirectory, listingPageRenderer } from '../packages/directory/src/app.js';
import { tuneCollectorForServing } from '../packages/directory/src/collector-setting.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';
import { TestClock } from '../test-support/http-client.js';
import { glibcMallocSettings } from './support/malloc-settings.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 100_000);
const seconds = Number(args.get('seconds') ?? 15);
const writes = Number(args.get('writes') ?? 1_000);
const modes = (args.get('modes') ?? 'rebuild,in-place,ahead').split(',') as ('rebuild' | 'in-place' | 'ahead')[];
const dir = join(args.get('dir') ?? '/tmp/directory-hour', String(size));
const postgresUrl = args.get('database-url') ?? null;
const BASE = 'http://127.0.0.1';
// --hour-offset moves the hours measured (orders are stored per hour: a later run on the same data
// reads the orders an earlier one computed, unless it measures other hours).
const START = Date.parse('2026-12-08T12:10:00Z') + Number(args.get('hour-offset') ?? 0) * 3_600_000;
const HOUR = 3_600_000;
const MIX = [
  '/v1/businesses',
  '/v1/businesses?q=coffee',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=10',
  '/v1/businesses?category=restaurant',
  '/v1/businesses?open_now=true',
  '/v1/businesses?category=hair-beauty&language=en&open_now=true',
  '/v1/businesses?near=38.7223,-9.1393&radius_km=50&order=nearest',
];
const load = () => Math.round(loadavg()[0]! * 100) / 100;

async function databaseUrl(): Promise<string | null> {
  if (!postgresUrl) return null;
  const name = `bench_hour_${size}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.href;
}

mkdirSync(dir, { recursive: true });
const url = await databaseUrl();
const generated = () => generateListings({ count: size, seed: 42, nowMs: START, placeCategoryOf: taxonomyCategoryPicker() });
// The listings renamed during the hours measured: the first ones stored (the generator is lazy).
const listings: ReturnType<typeof generated> extends Iterable<infer T> ? T[] : never = [];
for (const listing of generated()) {
  if (listings.length >= 2 * modes.length * writes) break;
  listings.push(listing);
}
{
  const store = await openDirectoryStore(storageTarget(url, join(dir, 'directory.sqlite'), '--database-url'), { pages: listingPageRenderer(BASE) });
  const have = await store.listings.countAll();
  if (have === 0) {
    const t0 = performance.now();
    const source = timedSource(generated());
    const rowsPerTransaction = args.has('rows-per-transaction') ? { rowsPerTransaction: Number(args.get('rows-per-transaction')) } : {};
    const rowsPerPart = args.has('rows-per-part') ? { rowsPerPart: Number(args.get('rows-per-part')) } : {};
    await store.listings.load(source, { renderWorkers: Number(args.get('render-workers') ?? 0), ...rowsPerTransaction, ...rowsPerPart });
    const totalSec = (performance.now() - t0) / 1000;
    const generateSec = source.spentMs() / 1000;
    console.log(
      `stored ${size} listings in ${totalSec.toFixed(1)} s: generating them ${generateSec.toFixed(1)} s, ` +
        `storing ${(totalSec - generateSec).toFixed(1)} s (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')})`,
    );
  } else if (have < size) throw new Error(`${dir} holds ${have} listings; remove it`);
  await store.close();
}
/** The listings as the load reads them, with the time spent making them (the generator, not storage) summed. */
function timedSource<T>(items: Iterable<T>): Iterable<T> & { spentMs(): number } {
  let spent = 0;
  return {
    spentMs: () => spent,
    *[Symbol.iterator]() {
      const iterator = items[Symbol.iterator]();
      for (;;) {
        const started = performance.now();
        const next = iterator.next();
        spent += performance.now() - started;
        if (next.done) return;
        yield next.value;
      }
    },
  };
}
// --load-only: the listings stored (the next runs measure on them), nothing measured.
if (args.get('load-only') === 'true') process.exit(0);

function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  return { searches: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

// As main.ts starts a node: freed heap pages handed back after heavy work, then one collection once
// searches flow (heap-pages.ts); `--release-heap-pages false`: as buildDirectory's default.
const releaseHeapPages = args.get('release-heap-pages') !== 'false';
// As a node's start sets it (main.ts), with DIRECTORY_HEAP_GROWING_PERCENT as an operator would set it.
const { externalInHeapLimit, heapGrowingPercent } = args.get('external-in-heap-limit') === 'false' ? { externalInHeapLimit: false, heapGrowingPercent: null } : tuneCollectorForServing(process.env.DIRECTORY_HEAP_GROWING_PERCENT ? Number(process.env.DIRECTORY_HEAP_GROWING_PERCENT) : null);
// The node's full collections (mark-compacts), each window's count and pauses beside its latencies:
// every one pauses the thread the searches run on.
const fullCollections: { at: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) fullCollections.push({ at: entry.startTime, ms: entry.duration });
  }
}).observe({ entryTypes: ['gc'] });
function collectionsBetween(from: number, to: number) {
  const inWindow = fullCollections.filter((c) => c.at >= from && c.at < to);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { count: inWindow.length, ms: round(inWindow.reduce((sum, c) => sum + c.ms, 0)), maxMs: round(Math.max(0, ...inWindow.map((c) => c.ms))) };
}

const results: Record<string, unknown>[] = [];
let hour = 0;
for (const mode of modes) {
  // Each mode on hours of its own (their orders are computed afresh, not read from the other's).
  const clock = new TestClock(START + hour * HOUR);
  // The first search waits for the node's start, which at 5 M built from PostgreSQL can pass ten minutes.
  const built = performance.now();
  const directory = await buildDirectory({ dataDir: dir, databaseUrl: url, baseUrl: BASE, clock, logLevel: 'silent', runJobs: false, hourlyTimer: false, cacheAnswers: false, answerWorkers: 0, rateLimit: 0, searchDeadlineMs: 3_600_000, hourInPlace: mode !== 'rebuild', prepareAhead: mode === 'ahead', releaseHeapPages });
  await directory.pagesReady;
  const get = async (path: string): Promise<number> => {
    const t = performance.now();
    const response = await directory.http.inject({ method: 'GET', url: path });
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return performance.now() - t;
  };
  const readySec = Math.round((performance.now() - built + (await get(MIX[0]!))) / 100) / 10;
  // The searches of a window, and apart those made while the work awaited (`until`) was under way
  // (`during`, with how long it lasted) and those after it: which of them the p99 comes from.
  const windowParts = async (until?: Promise<unknown>) => {
    const latencies: number[] = [];
    const during: number[] = [];
    let done = until === undefined;
    const started = performance.now();
    let workSec = 0;
    void until?.then(() => {
      done = true;
      workSec = Math.round((performance.now() - started) / 100) / 10;
    });
    let end = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < end || latencies.length === 0 || !done; i++) {
      const working = !done;
      const latency = await get(MIX[i % MIX.length]!);
      latencies.push(latency);
      if (working) during.push(latency);
      // Requests reach a server from its sockets, a turn of the event loop each: work waiting for a
      // turn (the next hour prepared in steps) runs between them, as it would between requests.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!done) end = performance.now() + seconds * 1000;
    }
    return { latencies, during: { ...summary(during), workSec }, after: summary(latencies.slice(during.length)), fullCollections: collectionsBetween(started, performance.now()) };
  };
  const window = async (until?: Promise<unknown>) => {
    const parts = await windowParts(until);
    return { ...summary(parts.latencies), fullCollections: parts.fullCollections };
  };
  const loadBefore = load();
  let prepareSec = 0;
  // Content changes during the hour: renamed listings (new ones each mode, so each hour has changes).
  clock.advance(20 * 60_000);
  const renamed = listings.slice(hour * writes, (hour + 1) * writes);
  const w0 = performance.now();
  for (const listing of renamed) await directory.store.listings.upsert({ ...listing, name: `${listing.name} ${mode}`, updatedAt: clock.now() });
  const writeSec = Math.round((performance.now() - w0) / 100) / 10;
  // The first search after the writes reads them from the change feed and builds the small index.
  const followMs = Math.round((await get(MIX[0]!)) * 10) / 10;
  // The hour as it runs once its start's own work is done (its statement made, its snapshot written).
  await directory.search.settled();
  // The hour before the change, as searched after its writes (their listings in the small index).
  const before = await window();
  // The hour's last minutes: the next hour is prepared ahead (mode ahead) while these searches go on;
  // the window lasts until it is ready and --seconds after. Then --writes / 10 more renames, placed again at the change.
  clock.advance(HOUR - 10 * 60_000 + 60_000 - (clock.now() % HOUR));
  const p0 = performance.now();
  await get(MIX[0]!);
  const preparing = directory.search.prepareNextHour();
  const lastParts = await windowParts(preparing.then(() => (prepareSec = Math.round((performance.now() - p0) / 100) / 10)));
  const lastMinutes = { ...summary(lastParts.latencies), whilePreparing: lastParts.during, after: lastParts.after, fullCollections: lastParts.fullCollections };
  clock.advance(5 * 60_000);
  for (const listing of listings.slice(hour * writes, hour * writes + Math.ceil(writes / 10))) await directory.store.listings.upsert({ ...listing, name: `${listing.name} ${mode} late`, updatedAt: clock.now() });
  clock.advance(HOUR - (clock.now() % HOUR) + 30_000);
  // The first search meets the change; then --seconds more of searches after it.
  const first = await get(MIX[0]!);
  // Until the change's work off the search path is done too (the statement, a snapshot where one is written), and --seconds after.
  const throughParts = await windowParts(directory.search.settled());
  const through = [first, ...throughParts.latencies];
  const change = Math.round(first * 10) / 10;
  const after = { ...summary(through), whileChangeWork: throughParts.during, after: throughParts.after, fullCollections: throughParts.fullCollections };
  const state = directory.search.peek();
  const result = { mode, size, writes, readySec, writeSec, followMs, before, lastMinutes, prepareSec: mode === 'ahead' ? prepareSec : null, preparedAhead: state?.preparedAhead ?? null, changeSteps: state?.changeSteps ?? null, changeMs: change, through: after, changedInSmallIndex: state?.index.changedCount ?? null, rssMb: Math.round(process.memoryUsage().rss / 1e6), loadBefore, loadAfter: load() };
  console.log(JSON.stringify(result));
  results.push(result);
  await directory.close();
  hour += 2;
}
const at = new Date().toISOString();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const out = new URL(`./results/directory-hour-${at.replace(/[:.]/g, '-')}.json`, import.meta.url);
writeFileSync(out, `${JSON.stringify({ at, node: process.version, engine: url ? 'postgres' : 'sqlite', externalInHeapLimit, heapGrowingPercent, releaseHeapPages, malloc: glibcMallocSettings(), size, seconds, writes, hourOffset: Number(args.get('hour-offset') ?? 0), results }, null, 2)}\n`);
console.log(`written ${out.pathname}`);
