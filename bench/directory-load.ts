/**
 * Storing listings with their rendered pages (issue 40): the bulk load (`listings.load`) beside
 * the path it replaces in the benchmarks and the seed (`insertMany` in transactions of 20,000
 * listings, multi-row INSERTs of 500), in the same run, on the same generated listings, each into
 * a fresh database: a SQLite file under --dir, and/or a fresh PostgreSQL database on --database-url.
 *
 *   npx tsx bench/directory-load.ts [--size 100000] [--engines sqlite,postgres] [--paths old,new]
 *                                   [--render-workers 0,2] [--rows-per-transaction 10000,50000]
 *                                   [--dir /tmp/directory-load] [--database-url postgres://…]
 *
 * --render-workers: the load's page-rendering worker threads (pages rendered there while the
 * load's thread writes), one run of the new path for each number given; 0 (the load's default)
 * renders on the load's thread. --rows-per-transaction: listings per transaction of the new path,
 * one run for each number given (the load's default when absent).
 *
 * Generating the listings is timed apart (it is the demo's generator, not storage) and done once:
 * both paths store the same objects. Each figure is the wall time of the store call alone, with the
 * 1-minute load average beside it (other work on the machine shows there), and the database's size.
 * Writes bench/results/directory-load-<time>.json.
 */
import { mkdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { storageTarget } from '@svc/shared';
import { generateListings } from '../packages/directory/src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../packages/directory/src/demo/seed-directory.js';
import { listingPageRenderer } from '../packages/directory/src/app.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 100_000);
const engines = (args.get('engines') ?? 'sqlite').split(',') as ('sqlite' | 'postgres')[];
const paths = (args.get('paths') ?? 'old,new').split(',') as ('old' | 'new')[];
const dir = args.get('dir') ?? '/tmp/directory-load';
const workerCounts: (number | undefined)[] = args.has('render-workers') ? String(args.get('render-workers')).split(',').map(Number) : [undefined];
const transactionSizes: (number | undefined)[] = args.has('rows-per-transaction') ? String(args.get('rows-per-transaction')).split(',').map(Number) : [undefined];
const postgresUrl = args.get('database-url') ?? process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? null;
if (engines.includes('postgres') && !postgresUrl) throw new Error('--engines postgres needs --database-url (or TEST_POSTGRES_URL)');
const benchNow = '2026-12-08T12:00:00Z';
const load = () => Math.round(loadavg()[0]! * 100) / 100;

let started = performance.now();
const listings = [...generateListings({ count: size, seed: 42, nowMs: Date.parse(benchNow), placeCategoryOf: taxonomyCategoryPicker() })];
const generateSec = (performance.now() - started) / 1000;
console.log(`generated ${size} listings in ${generateSec.toFixed(1)} s (not counted below)`);

async function freshPostgres(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: postgresUrl as string });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl as string);
  url.pathname = `/${name}`;
  return url.href;
}

async function sizeOf(engine: 'sqlite' | 'postgres', file: string, url: string | null): Promise<number> {
  if (engine === 'sqlite') return ['', '-wal'].reduce((sum, end) => sum + (existsSync(file + end) ? statSync(file + end).size : 0), 0);
  const client = new pg.Client({ connectionString: url as string });
  await client.connect();
  try {
    return Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
  } finally {
    await client.end();
  }
}

const results: Record<string, unknown>[] = [];
for (const engine of engines) {
  const runs: ['old' | 'new', number | undefined, number | undefined][] = [];
  for (const p of paths) {
    if (p === 'old') runs.push([p, undefined, undefined]);
    else for (const n of workerCounts) for (const rows of transactionSizes) runs.push([p, n, rows]);
  }
  for (const [path, renderWorkers, rowsPerTransaction] of runs) {
    const folder = join(dir, `${engine}-${path}-${size}`);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'directory.sqlite');
    const url = engine === 'postgres' ? await freshPostgres(`bench_load_${path}_${size}`) : null;
    const target = storageTarget(url, file, '--database-url');
    const store = await openDirectoryStore(target, { pages: listingPageRenderer('http://127.0.0.1') });
    const loadBefore = load();
    const cpuBefore = process.cpuUsage();
    started = performance.now();
    let written = 0;
    if (path === 'old') {
      // What bench/directory.ts and the seed did: insertMany in transactions of 20,000.
      for (let i = 0; i < listings.length; i += 20_000) {
        written += await store.transaction((tx) => tx.listings.insertMany(listings.slice(i, i + 20_000)));
      }
    } else {
      written = await store.listings.load(listings, { ...(renderWorkers === undefined ? {} : { renderWorkers }), ...(rowsPerTransaction === undefined ? {} : { rowsPerTransaction }) });
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    // This process's CPU (generating excluded; JSON, rendering, the driver; on SQLite the writes too).
    const cpuSeconds = Math.round(((cpu.user + cpu.system) / 1e6) * 10) / 10;
    const stored = await store.listings.countAll();
    await store.close();
    const bytes = await sizeOf(engine, file, url);
    const result = { engine, path, ...(path === 'new' ? { renderWorkers: renderWorkers ?? 'default', rowsPerTransaction: rowsPerTransaction ?? 'default' } : {}), size, written, stored, seconds: Math.round(seconds * 10) / 10, cpuSeconds, perSecond: Math.round(size / seconds), per100k: Math.round((seconds / size) * 100_000 * 10) / 10, databaseMb: Math.round(bytes / 1e6), loadBefore, loadAfter: load() };
    console.log(JSON.stringify(result));
    results.push(result);
    rmSync(folder, { recursive: true, force: true });
  }
}
const at = new Date().toISOString();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const out = new URL(`./results/directory-load-${at.replace(/[:.]/g, '-')}.json`, import.meta.url);
writeFileSync(out, `${JSON.stringify({ at, node: process.version, size, generateSec, results }, null, 2)}\n`);
console.log(`written ${out.pathname}`);
