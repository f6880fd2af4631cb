/**
 * Directory search benchmark (issue 3): realistic listings at 100k and 1M, a query mix, and a
 * baseline in the same run (a bare Fastify route serving a precomputed page of the same size).
 *
 *   npx tsx bench/directory.ts [--sizes 100000,1000000] [--duration 10] [--connections 10] [--prepare-only true]
 *                              [--modes on,off] [--workers default] [--semi-space 64] [--node-flags "--flag=value …"]
 *                              [--engines sqlite,postgres] [--database-url postgres://…]
 *
 * Each size is measured with answers cached (`on`, the production default) and with every cache off
 * (`off`: each request computed), beside the baseline. `--workers 0,1` measures each mode with
 * that many answer worker threads (DIRECTORY_ANSWER_WORKERS; `default`: the server's own default,
 * one fewer than the cores; 0: answers assembled on the server's thread). `--semi-space` sets the server's young
 * generation in MB (node --max-semi-space-size; 0 leaves Node's default): a page of results makes
 * short-lived strings, and a larger young generation collects them less often. `--node-flags` adds
 * flags to the server's command line (V8's, such as --heap-growing-percent=20).
 *
 * `--engines` measures the directory on SQLite (its file under bench/.data, the default) and/or on
 * PostgreSQL (issue 17): a database `bench_directory_<size>` on the server of `--database-url`
 * (default BENCH_POSTGRES_URL or TEST_POSTGRES_URL; `node scripts/postgres.mjs run -- npx tsx
 * bench/directory.ts --engines sqlite,postgres` starts a throwaway one), made and filled once and
 * reused while the server runs. Each engine's server is measured in turn beside one baseline.
 *
 * Data folders are kept under bench/.data and reused. The server runs in its own process (with the
 * clock at BENCH_NOW, default 2026-12-08T12:00Z, when ranking rules 7 are in force so order=nearest
 * is available); autocannon drives it from this process, all on 127.0.0.1.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { storageTarget, type StorageTarget } from '@svc/shared';
import { generateListings } from '../packages/directory/src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../packages/directory/src/demo/seed-directory.js';
import { listingPageRenderer } from '../packages/directory/src/app.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const sizes = (args.get('sizes') ?? '100000,1000000').split(',').map(Number);
const durationSec = Number(args.get('duration') ?? 10);
const connections = Number(args.get('connections') ?? 10);
const benchNow = args.get('now') ?? '2026-12-08T12:00:00Z';
const cacheModes = (args.get('modes') ?? 'on,off').split(',');
const workerCounts = (args.get('workers') ?? 'default').split(',');
const semiSpaceMb = Number(args.get('semi-space') ?? 64);
const serverFlags = [...(semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : []), ...(args.get('node-flags') ?? '').split(' ').filter((flag) => flag !== '')];
const engines = (args.get('engines') ?? 'sqlite').split(',') as ('sqlite' | 'postgres')[];
const postgresUrl = args.get('database-url') ?? process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? null;
if (engines.includes('postgres') && !postgresUrl) throw new Error('--engines postgres needs --database-url (or BENCH_POSTGRES_URL / TEST_POSTGRES_URL)');
const root = new URL('.', import.meta.url).pathname;
// The server runs the compiled code (bench/directory-server.ts): brought up to date first.
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

/** The PostgreSQL database of a size, made when missing. */
async function postgresDatabase(size: number): Promise<string> {
  const name = `bench_directory_${size}`;
  const admin = new pg.Client({ connectionString: postgresUrl as string });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl as string);
  url.pathname = `/${name}`;
  return url.href;
}

/** Where a size's listings are kept on an engine: the data folder (its SQLite file, or empty) and the database URL for PostgreSQL. */
async function prepareData(size: number, engine: 'sqlite' | 'postgres' = 'sqlite'): Promise<{ dir: string; databaseUrl: string | null }> {
  const dir = join(root, '.data', engine === 'sqlite' ? `directory-${size}` : `directory-${size}-postgres`);
  mkdirSync(dir, { recursive: true });
  const databaseUrl = engine === 'postgres' ? await postgresDatabase(size) : null;
  const target: StorageTarget = storageTarget(databaseUrl, join(dir, 'directory.sqlite'), '--database-url');
  const store = await openDirectoryStore(target, { pages: listingPageRenderer('http://127.0.0.1') });
  const have = await store.listings.countAll();
  if (have !== size) {
    if (have > 0) throw new Error(`${dir} holds ${have} listings, not ${size}; remove it`);
    const started = performance.now();
    const listings = generateListings({ count: size, seed: 42, nowMs: Date.parse(benchNow), placeCategoryOf: taxonomyCategoryPicker() });
    // The bulk load (bench/directory-load.ts measures it beside insertMany): the same rows and pages.
    const written = await store.listings.load(listings);
    process.stdout.write(`\r  generated and stored ${written} listings on ${engine} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  await store.close();
  return { dir, databaseUrl };
}

interface Started {
  child: ChildProcess;
  info: Record<string, unknown>;
  lines: string[];
}

async function startProcess(script: string, env: Record<string, string>, heapMb: number, flags: string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, ...flags, '--expose-gc', '--import', 'tsx', join(root, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    reader.on('line', (line) => {
      lines.push(line);
      const info = JSON.parse(line) as Record<string, unknown>;
      if (info.ready) resolve({ child, info, lines });
    });
  });
}

/** Stops a server; gives what it printed on the way out (the directory server says its RSS). */
async function stop(started: Started): Promise<{ rssMb?: number }> {
  started.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    // 'close' comes after the last output line was read.
    started.child.once('close', () => resolve());
    started.child.kill('SIGTERM');
  });
  const last = started.lines.map((line) => JSON.parse(line) as { stopped?: boolean; rssMb?: number }).find((info) => info.stopped);
  return last ?? {};
}

interface Measured {
  name: string;
  path: string;
  status: number;
  hits: number;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  /** The machine's 1-minute load average after the run (other work on it shows here). */
  load: number;
}

async function measure(name: string, base: string, path: string): Promise<Measured> {
  const probe = await fetch(`${base}${path}`);
  const body = (await probe.json()) as { businesses?: unknown[] };
  const result = await autocannon({ url: `${base}${path}`, connections, duration: durationSec });
  return {
    name,
    path,
    status: probe.status,
    hits: body.businesses?.length ?? 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: Math.round(result.requests.average),
    errors: result.errors + result.non2xx,
    load: Math.round(loadavg()[0]! * 100) / 100,
  };
}

async function deepCursor(base: string, targetOffset: number): Promise<string> {
  let cursor: string | null = null;
  for (let offset = 0; offset < targetOffset; offset += 100) {
    const response = await fetch(`${base}/v1/businesses?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    const page = (await response.json()) as { next_cursor: string | null };
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  if (!cursor) throw new Error('could not page deep');
  return cursor;
}

const report: Record<string, unknown>[] = [];
if (args.get('prepare-only') === 'true') {
  for (const size of sizes) for (const engine of engines) await prepareData(size, engine);
  process.exit(0);
}
for (const size of sizes) {
  console.log(`\n== ${size.toLocaleString('en')} listings`);
  const byMode: Record<string, Measured[]> = {};
  const serverInfos: Record<string, unknown> = {};
  let page = '';
  let serverInfo: Record<string, unknown> = {};
  for (const engine of engines) {
  const { dir: dataDir, databaseUrl } = await prepareData(size, engine);
  const modes: { name: string; cache: string; workers: string }[] = [
    { name: 'answers cached as the contract allows (production default)', cache: 'on' },
    { name: 'every cache off: each request computed', cache: 'off' },
  ]
    .filter((mode) => cacheModes.includes(mode.cache))
    .flatMap((mode) =>
      workerCounts.map((workers) => ({ ...mode, workers, name: workers === 'default' ? mode.name : `${mode.name}, ${workers} answer worker${workers === '1' ? '' : 's'}` })),
    );
  for (const mode of modes) {
  const server = await startProcess(
    'directory-server.ts',
    { DATA_DIR: dataDir, PORT: '0', BENCH_NOW: benchNow, DIRECTORY_ANSWER_CACHE: mode.cache, ...(databaseUrl ? { DIRECTORY_DATABASE_URL: databaseUrl } : {}), ...(mode.workers === 'default' ? {} : { DIRECTORY_ANSWER_WORKERS: mode.workers }) },
    20_000,
    serverFlags,
  );
  serverInfo = server.info;
  const base = String(server.info.address);
  console.log(`  [${engine}: ${mode.name}] server ready in ${server.info.prepareMs} ms, its start's work off the search path done at ${server.info.settledMs} ms; RSS ${server.info.rssMb} MB, heap ${server.info.heapMb} MB`);
  const cursor = await deepCursor(base, 5_000);
  const mix: [string, string][] = [
    ['plain page', '/v1/businesses'],
    ['q', '/v1/businesses?q=coffee'],
    ['near', '/v1/businesses?near=40.7128,-74.0060&radius_km=10'],
    ['category', '/v1/businesses?category=restaurant'],
    ['open_now', '/v1/businesses?open_now=true'],
    ['three filters', '/v1/businesses?category=hair-beauty&language=en&open_now=true'],
    ['deep cursor (offset 5000)', `/v1/businesses?cursor=${cursor}`],
    ['nearest', '/v1/businesses?near=38.7223,-9.1393&radius_km=50&order=nearest'],
  ];
  const results: Measured[] = [];
  for (const [name, path] of mix) {
    const m = await measure(name, base, path);
    results.push(m);
    console.log(`  ${name.padEnd(26)} ${String(m.status).padEnd(4)} hits ${String(m.hits).padStart(3)}  p50 ${String(m.p50).padStart(4)} ms  p99 ${String(m.p99).padStart(4)} ms  ${String(m.rps).padStart(6)} req/s  errors ${m.errors}  load ${m.load}`);
  }
  page = await (await fetch(`${base}/v1/businesses`)).text();
  const after = await stop(server);
  console.log(`  RSS after the runs: ${after.rssMb ?? '?'} MB`);
  serverInfo = { ...serverInfo, rssAfterMb: after.rssMb };
  byMode[`${engine}: ${mode.name}`] = results;
  serverInfos[`${engine}/${mode.cache}/${mode.workers}`] = serverInfo;
  }
  }
  const pageFile = join(root, '.data', `page-${size}.json`);
  writeFileSync(pageFile, page);
  const baseline = await startProcess('baseline-server.ts', { PAGE_FILE: pageFile }, 1_024);
  const b = await measure('baseline (bare Fastify, same page)', String(baseline.info.address), '/page');
  await stop(baseline);
  console.log(`  ${b.name.padEnd(26)} p50 ${b.p50} ms  p99 ${b.p99} ms  ${b.rps} req/s  (page ${page.length} bytes)`);
  for (const [mode, results] of Object.entries(byMode)) {
    console.log(`  ${mode}:`);
    for (const m of results) {
      console.log(`    ${m.name.padEnd(26)} ${((m.rps / b.rps) * 100).toFixed(0)}% of baseline throughput; p99 ${m.p99 < 50 ? 'under' : 'OVER'} 50 ms`);
    }
  }
  report.push({ size, server: serverInfo, servers: serverInfos, modes: byMode, baseline: b, pageBytes: page.length });
}
mkdirSync(join(root, 'results'), { recursive: true });
const file = join(root, 'results', `directory-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ benchNow, durationSec, connections, serverFlags, report }, null, 2));
console.log(`\nwrote ${file}`);
if (!existsSync(file)) process.exit(1);
