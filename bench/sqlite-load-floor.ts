/**
 * What SQLite itself takes to store the bulk load's rows on this machine (issue 40): the floor under
 * any SQLite load, whatever the code around it does. Reads N listing rows with their pages from a
 * benchmark's stored directory (`bench/.data/directory-<from>`, made by `bench/directory.ts
 * --prepare-only true`), then writes them into a fresh file with the same tables and indexes, with
 * the bare driver (better-sqlite3: no Kysely, no worker, no JSON, no page rendering: the statements
 * the load runs, prepared once, in transactions of 10,000), in these variants:
 *
 *   as-stored     the service's pragmas (WAL, synchronous NORMAL, a new file's 16 KB pages), every index
 *   4k-pages      the same in SQLite's default 4 KB pages, as directory files made before 2026-12-05 are
 *   no-indexes    the tables without their secondary indexes (what the indexes cost)
 *   no-journal    journal_mode OFF, synchronous OFF (what the log and its copy back cost; not safe
 *                 for a service: a crash loses the file)
 *
 *   npx tsx bench/sqlite-load-floor.ts [--size 100000] [--from 1000000] [--variants as-stored,4k-pages,no-indexes,no-journal]
 *
 * Each figure is the wall time and the process's CPU time of the writes alone, and the file's bytes a
 * listing once its log is copied back. Writes bench/results/sqlite-load-floor-<time>.json.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '@svc/shared/sqlite-driver';
import { DIRECTORY_PAGE_BYTES } from '../packages/directory/src/store/kysely/database.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 100_000);
const from = Number(args.get('from') ?? 1_000_000);
const variants = (args.get('variants') ?? 'as-stored,4k-pages,no-indexes,no-journal').split(',');
const here = new URL('.', import.meta.url).pathname;
const TRANSACTION = 10_000;
const COLUMNS = ['id', 'domain', 'source', 'kind', 'document', 'listed', 'delisted_at', 'dormant_since', 'verified_at', 'last_ping_at', 'level', 'agent_door', 'content_at', 'updated_at', 'revision', 'content_revision'];

const source = openSqliteFile(join(here, '.data', `directory-${from}`, 'directory.sqlite'), { readonly: true, fileMustExist: true });
const rows = source.prepare(`SELECT l.*, p.version, p.inputs, p.fixed FROM listings l JOIN listing_pages p USING (seq) ORDER BY l.seq LIMIT ?`).all(size) as Record<string, unknown>[];
const schema = (source.prepare(`SELECT sql FROM sqlite_master WHERE tbl_name IN ('listings', 'listing_pages') AND sql IS NOT NULL`).all() as { sql: string }[]).map((row) => row.sql);
source.close();
console.log(`${rows.length} rows read from directory-${from}`);

function run(variant: string) {
  const file = `/tmp/sqlite-load-floor-${process.pid}.sqlite`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const db = openSqliteFile(file);
  // A page size holds only before the file's first write, so it comes before the journal mode.
  db.pragma(`page_size = ${variant === '4k-pages' ? 4096 : DIRECTORY_PAGE_BYTES}`);
  const pragmas = variant === 'no-journal' ? ['journal_mode = OFF', 'synchronous = OFF'] : ['journal_mode = WAL', 'synchronous = NORMAL'];
  for (const pragma of [...pragmas, 'temp_store = MEMORY', 'cache_size = -65536']) db.pragma(pragma);
  for (const statement of schema) if (!(variant === 'no-indexes' && /^CREATE INDEX/i.test(statement))) db.exec(statement);
  const listing = db.prepare(`INSERT INTO listings (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (domain) DO NOTHING RETURNING seq`);
  const page = db.prepare('INSERT INTO listing_pages (seq, version, inputs, fixed) VALUES (?, ?, ?, ?) ON CONFLICT (seq) DO UPDATE SET version = excluded.version, inputs = excluded.inputs, fixed = excluded.fixed');
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let at = 0; at < rows.length; at += TRANSACTION) {
    db.exec('BEGIN IMMEDIATE');
    for (const row of rows.slice(at, at + TRANSACTION)) {
      const stored = listing.get(COLUMNS.map((column) => row[column])) as { seq: number };
      page.run(stored.seq, row.version, row.inputs, row.fixed);
    }
    db.exec('COMMIT');
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytesPerListing = Math.round(statSync(file).size / rows.length);
  const pageBytes = db.pragma('page_size', { simple: true }) as number;
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const result = { variant, pageBytes, bytesPerListing, seconds: round(seconds), cpuSeconds: round((used.user + used.system) / 1e6), per100kCpu: round(((used.user + used.system) / 1e6) * (100_000 / rows.length)), load: round(loadavg()[0]!) };
  console.log(JSON.stringify(result));
  return result;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

const results = variants.map(run);
const out = join(here, 'results', `sqlite-load-floor-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify({ size: rows.length, from, node: process.version, results }, null, 2));
console.log(`written ${out}`);
