/**
 * A node's start (issue 40, docs/directory.md "A node ready in seconds"): ready from the database
 * (its index built from every listing, as before) beside ready from the snapshot of the index
 * another node wrote, in the same run, on the same stored listings.
 *
 *   npx tsx bench/directory-start.ts [--size 100000] [--dir bench/.data/directory-<size>] [--database-url postgres://…] [--write false] [--database false]
 *
 * Uses the listings bench/directory.ts stored (`--prepare-only true`): its SQLite file under
 * bench/.data/directory-<size>, or with --database-url its database `bench_directory_<size>`.
 * Three directories in turn, in this process, at the same clock (BENCH_NOW, 2026-12-08T12:00Z), every
 * cache off, answers on the server's thread:
 *   1. `write`: the snapshots kept are removed first, so it builds its index from the database (and
 *      computes the hour's order when no run stored it yet), then writes its snapshot after its first
 *      search; searches of the query mix run one after another while it is written (`duringWrite`);
 *   2. `snapshot`: a node started from that snapshot, following the change feed;
 *   3. `database`: a node with snapshots off (DIRECTORY_INDEX_SNAPSHOTS=off), reading the order the
 *      first stored: the start every node had before (left out with --database false, the
 *      snapshot node's answers then compared with those of the first node, built from the database).
 * `readySec` is from buildDirectory called to the first search answered. The answers of the query
 * mix of 2 and 3 are compared byte for byte. Writes bench/results/directory-start-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setImmediate as turn } from 'node:timers/promises';
import { join } from 'node:path';
import { storageTarget } from '@svc/shared';
import { buildDirectory, listingPageRenderer, type Directory } from '../packages/directory/src/app.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';
import { TestClock } from '../test-support/http-client.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 100_000);
const root = new URL('.', import.meta.url).pathname;
const dir = args.get('dir') ?? join(root, '.data', `directory-${size}`);
const postgresUrl = args.get('database-url') ?? null;
const BASE = 'http://127.0.0.1';
const NOW = Date.parse(args.get('now') ?? '2026-12-08T12:00:00Z');
// --write false: the newest snapshot kept (an earlier run's) is started from; no node builds and writes one first.
const writeFirst = args.get('write') !== 'false';
// --database false: no third node built from the database (at 5 M it takes a quarter of an hour): the
// snapshot node's answers are compared with the first node's.
const databaseNode = args.get('database') !== 'false';
const MIX = [
  '/v1/businesses',
  '/v1/businesses?q=coffee',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=10',
  '/v1/businesses?category=restaurant',
  '/v1/businesses?open_now=true',
  '/v1/businesses?category=hair-beauty&language=en&open_now=true',
  '/v1/businesses?near=38.7223,-9.1393&radius_km=50&order=nearest',
  '/v1/businesses?source=member',
];
const load = () => Math.round(loadavg()[0]! * 100) / 100;
const secs = (ms: number) => Math.round(ms / 100) / 10;

function databaseUrl(): string | null {
  if (!postgresUrl) return null;
  const url = new URL(postgresUrl);
  url.pathname = `/bench_directory_${size}`;
  return url.href;
}
const url = databaseUrl();

{
  const store = await openDirectoryStore(storageTarget(url, join(dir, 'directory.sqlite'), '--database-url'), { pages: listingPageRenderer(BASE) });
  const have = await store.listings.countAll();
  await store.close();
  if (have !== size) throw new Error(`${url ?? dir} holds ${have} listings, not ${size}: store them with npx tsx bench/directory.ts --sizes ${size} --prepare-only true`);
}

/** Removes the snapshots kept, so the first node builds from the database. */
async function dropSnapshots(): Promise<void> {
  const store = await openDirectoryStore(storageTarget(url, join(dir, 'directory.sqlite'), '--database-url'));
  await store.indexSnapshots.removeAll();
  await store.close();
}

async function start(indexSnapshots: boolean): Promise<{ directory: Directory; get: (path: string) => Promise<{ ms: number; body: string }>; readyMs: number }> {
  const clock = new TestClock(NOW);
  const t0 = performance.now();
  const directory = await buildDirectory({ dataDir: dir, databaseUrl: url, baseUrl: BASE, clock, logLevel: 'silent', runJobs: false, hourlyTimer: false, cacheAnswers: false, answerWorkers: 0, rateLimit: 0, searchDeadlineMs: 900_000, indexSnapshots });
  const get = async (path: string) => {
    const t = performance.now();
    const response = await directory.http.inject({ method: 'GET', url: path });
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return { ms: performance.now() - t, body: response.body };
  };
  await get(MIX[0]!);
  return { directory, get, readyMs: performance.now() - t0 };
}

function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { searches: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

const answers: Record<string, string[]> = {};
const mem = () => ({ rssMb: Math.round(process.memoryUsage().rss / 1e6), heapMb: Math.round(process.memoryUsage().heapUsed / 1e6) });
const results: Record<string, unknown>[] = [];
const startedAt = new Date().toISOString();

// 1. Built from the database, then its snapshot written while searches go on.
if (writeFirst) {
  await dropSnapshots();
  const loadBefore = load();
  const node = await start(true);
  const origin = node.directory.search.origin;
  const w0 = performance.now();
  let written = false;
  const writing = node.directory.search.snapshotWritten.then(() => {
    written = true;
  });
  const during: number[] = [];
  // A turn of the event loop between searches, as between requests arriving from the network.
  for (let i = 0; !written; i++) {
    during.push((await node.get(MIX[i % MIX.length]!)).ms);
    await turn();
  }
  await writing;
  const writeMs = performance.now() - w0;
  const bodies: string[] = [];
  for (const path of MIX) bodies.push((await node.get(path)).body);
  answers.write = bodies;
  const kept = await node.directory.store.indexSnapshots.latest();
  const result = { node: 'write', origin, readySec: secs(node.readyMs), snapshotWriteSec: secs(writeMs), snapshotMb: Math.round((kept?.bytes.length ?? 0) / 1e5) / 10, duringWrite: summary(during), listings: node.directory.search.peek()?.index.size, ...mem(), loadBefore, loadAfter: load() };
  console.log(JSON.stringify(result));
  results.push(result);
  await node.directory.close();
}

// 2. Started from that snapshot.
for (const [name, snapshots] of [
  ['snapshot', true],
  ...(databaseNode ? ([['database', false]] as const) : []),
] as const) {
  (globalThis as { gc?: () => void }).gc?.();
  const loadBefore = load();
  const node = await start(snapshots);
  const origin = node.directory.search.origin;
  const mix: number[] = [];
  const bodies: string[] = [];
  for (const path of MIX) {
    const { ms, body } = await node.get(path);
    mix.push(ms);
    bodies.push(body);
  }
  answers[name] = bodies;
  const result = { node: name, origin, readySec: secs(node.readyMs), changedSinceSnapshot: node.directory.search.peek()?.index.changedCount ?? null, mixMs: mix.map((ms) => Math.round(ms * 10) / 10), ...mem(), loadBefore, loadAfter: load() };
  console.log(JSON.stringify(result));
  results.push(result);
  await node.directory.close();
}
const reference = answers.database ?? answers.write;
if (!reference) throw new Error('nothing to compare the snapshot node with: give --database true or --write true');
const same = MIX.every((_, i) => answers.snapshot![i] === reference[i]);
console.log(JSON.stringify({ sameAnswers: same }));
if (!same) process.exitCode = 1;

const at = new Date().toISOString();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const out = new URL(`./results/directory-start-${at.replace(/[:.]/g, '-')}.json`, import.meta.url);
writeFileSync(out, `${JSON.stringify({ startedAt, at, node: process.version, engine: url ? "postgres" : "sqlite", size, writeFirst, sameAnswers: same, results }, null, 2)}\n`);
console.log(`written ${out.pathname}`);
