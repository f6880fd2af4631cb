/**
 * Where a search node's memory goes (issue 40, "half the memory"): a directory node started on a
 * prepared data set, the way bench/directory.ts starts one (its own process, compiled code, every
 * answer cache off), measured when ready and after answering the query mix a few times.
 *
 *   npx tsx bench/directory-memory.ts [--sizes 100000,1000000] [--workers 1] [--rounds 3]
 *                                     [--hour-change false] [--semi-space 64] [--database-url postgres://…]
 *                                     [--release-heap-pages true,false] [--node-flags "--flag=value …"]
 *                                     [--heap-mb 20000]
 *
 * The data sets are those of bench/directory.ts (bench/.data/directory-<size>, made by
 * `npx tsx bench/directory.ts --sizes <size> --prepare-only true`; with --database-url, its
 * database bench_directory_<size> on that server). `--workers 0,1` starts the node with that many
 * answer worker threads (each has its own heap and SQLite page cache: the difference is their
 * cost). `--hour-change true` then moves the clock an hour on: the node changes its hour in place
 * (the order computed, the index re-laid), and its memory is read again (VmHWM: the peak so far).
 * `--semi-space` is the node's young generation in MB (--max-semi-space-size, 64 as bench/directory.ts
 * runs it; 0: Node's default, as `npm start` runs it). `--release-heap-pages true,false` runs the node
 * with and without handing back the heap pages its start freed (heap-pages.ts; on, as main.ts runs a
 * node, by default), one after the other in the same run. `--node-flags` adds flags to the node's
 * command line (V8's, such as --heap-growing-percent=20). `--heap-mb` is the node's
 * --max-old-space-size (20000 by default; 0: Node's own, as `npm start` runs it, which also sizes a
 * smaller young generation).
 *
 * Prints per size: RSS, heap, external (typed arrays), the kernel's RssAnon / RssFile and peak
 * (VmHWM), per listed listing, and on Linux RSS by kind of mapping (mappingsNow in
 * directory-memory-server.ts); the index's typed arrays by field; the hour's tables. Writes
 * bench/results/directory-memory-<time>.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { glibcMallocSettings } from './support/malloc-settings.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const sizes = (args.get('sizes') ?? '100000,1000000').split(',').map(Number);
const workerCounts = (args.get('workers') ?? '1').split(',');
const rounds = args.get('rounds') ?? '3';
const hourChange = args.get('hour-change') === 'true';
const postgresUrl = args.get('database-url') ?? null;
const benchNow = args.get('now') ?? '2026-12-08T12:00:00Z';
const semiSpaceMb = Number(args.get('semi-space') ?? 64);
const heapMb = Number(args.get('heap-mb') ?? 20000);
const nodeFlags = (args.get('node-flags') ?? '').split(' ').filter((flag) => flag !== '');
const releaseChoices = (args.get('release-heap-pages') ?? 'true').split(',').map((choice) => choice === 'true');
const root = new URL('.', import.meta.url).pathname;
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
const load = () => Math.round(loadavg()[0]! * 100) / 100;

function databaseUrl(size: number): string | null {
  if (!postgresUrl) return null;
  const url = new URL(postgresUrl);
  url.pathname = `/bench_directory_${size}`;
  return url.href;
}

async function run(size: number, workers: string, releaseHeapPages: boolean): Promise<Record<string, unknown>> {
  const dir = join(root, '.data', postgresUrl ? `directory-${size}-postgres` : `directory-${size}`);
  if (!postgresUrl && !existsSync(join(dir, 'directory.sqlite'))) throw new Error(`${dir} has no data set: npx tsx bench/directory.ts --sizes ${size} --prepare-only true`);
  mkdirSync(dir, { recursive: true });
  const url = databaseUrl(size);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, BENCH_NOW: benchNow, DIRECTORY_ANSWER_CACHE: 'off', DIRECTORY_ANSWER_WORKERS: workers, ROUNDS: rounds, HOUR_CHANGE: hourChange ? '1' : '0', RELEASE_HEAP_PAGES: releaseHeapPages ? '1' : '0' };
  if (url) env.DIRECTORY_DATABASE_URL = url;
  const child = spawn(process.execPath, [...nodeFlags, ...(heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : []), ...(semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : []), '--expose-gc', '--import', 'tsx', join(root, 'directory-memory-server.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const reader = createInterface({ input: child.stdout });
  const loadBefore = load();
  const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the node exited with ${code}`)));
    reader.on('line', (line) => {
      const info = JSON.parse(line) as Record<string, unknown>;
      if (info.done) resolve(info);
    });
  });
  await new Promise((resolve) => child.once('close', resolve));
  return { size, engine: url ? 'postgres' : 'sqlite', workers: Number(workers), semiSpaceMb, heapMb, nodeFlags, releaseHeapPages, loadBefore, loadAfter: load(), ...result };
}

const fmt = (mb: number) => `${mb.toFixed(0)} MB`;
const report: Record<string, unknown>[] = [];
for (const size of sizes) {
  for (const workers of workerCounts) for (const releaseHeapPages of releaseChoices) {
    const r = await run(size, workers, releaseHeapPages);
    report.push(r);
    const stats = r.stats as { listings: number; postings: number; terms: number; withHours: number; withGeo: number };
    const listed = stats.listings;
    const perListing = (mb: number) => `${((mb * 2 ** 20) / listed).toFixed(0)} B`;
    const ready = r.ready as Record<string, number>;
    const atEnd = r.atSearchesEnd as Record<string, number>;
    const after = r.afterSearches as Record<string, number>;
    console.log(`\n== ${size.toLocaleString('en')} listings (${listed.toLocaleString('en')} listed), ${r.engine}, ${workers} answer worker(s); semi-space ${semiSpaceMb || 'default'}${nodeFlags.length > 0 ? ` ${nodeFlags.join(' ')}` : ''}; freed heap pages ${releaseHeapPages ? 'handed back' : 'kept'}; ready in ${r.prepareMs} ms; load ${r.loadBefore}–${r.loadAfter}`);
    console.log(`  postings ${stats.postings.toLocaleString('en')}, terms ${stats.terms.toLocaleString('en')}, with hours ${stats.withHours.toLocaleString('en')}, with a point ${stats.withGeo.toLocaleString('en')}`);
    for (const [name, m] of [['ready', ready], ['at the searches\' end', atEnd], ['once they paused', after], ...(r.change ? [['after the hour changed', (r.change as { after: Record<string, number> }).after]] : [])] as [string, Record<string, number>][]) {
      console.log(
        `  ${name.padEnd(22)} RSS ${fmt(m.rss!)} (${perListing(m.rss!)} a listing; anon ${fmt(m.RssAnon!)}, file ${fmt(m.RssFile!)}), peak ${fmt(m.VmHWM!)}; heap ${fmt(m.heapUsed!)} of ${fmt(m.heapTotal!)}; external ${fmt(m.external!)} (array buffers ${fmt(m.arrayBuffers!)})` +
          (m.mallocHeap === undefined ? '' : `; mappings: malloc's main heap ${fmt(m.mallocHeap)}, anonymous ≥ 1 MB ${fmt(m.anonLarge!)}, < 1 MB ${fmt(m.anonSmall!)}`),
      );
    }
    if (r.change) console.log(`  hour change: ${(r.change as { ms: number }).ms} ms`);
    const index = r.index as Record<string, number>;
    let total = 0;
    for (const bytes of Object.values(index)) total += bytes;
    console.log(`  index typed arrays ${(total / 2 ** 20).toFixed(1)} MB (${(total / listed).toFixed(1)} B a listing):`);
    for (const [name, bytes] of Object.entries(index).sort((a, b) => b[1] - a[1])) {
      if (bytes > 0) console.log(`    ${name.padEnd(28)} ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MB  ${(bytes / listed).toFixed(1).padStart(7)} B a listing`);
    }
    for (const [name, bytes] of Object.entries(r.tables as Record<string, number>)) console.log(`    ${name.padEnd(28)} ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MB  ${(bytes / listed).toFixed(1).padStart(7)} B a listing`);
  }
}
mkdirSync(join(root, 'results'), { recursive: true });
const file = join(root, 'results', `directory-memory-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ benchNow, rounds: Number(rounds), hourChange, malloc: glibcMallocSettings(), report }, null, 2));
console.log(`\nwrote ${file}`);
