/**
 * An answer worker's page read on PostgreSQL (issue 40), alone: the pages of the same eight result
 * pages (seven of 20 listings, one of 100, as the query mix asks) read one after the other, in a
 * worker thread per form, every form in turn, `--runs` times:
 *
 *   npx tsx bench/directory-page-read.ts --database-url postgres://… [--size 1000000] [--rounds 800]
 *                                        [--forms text,base64,promise,callback,socket] [--runs 2]
 *
 * `text`: the reader as answer workers use it (`fixed` read as its text, sql-dialect.ts
 * `utf8Bytes`, through the store's dialect); `base64`: the form it replaced (converted and encoded by
 * the server); `promise` and `callback`: the same statement on node-postgres's own client, in its
 * promise form (what the dialect called before) and its callback form (what it calls now);
 * `socket`: a control without node-postgres, the same bytes from a local socket made into the same
 * strings.
 * The database is bench/directory.ts's `bench_directory_<size>`, its pages rendered (a node started
 * on it once, e.g. bench/directory-memory.ts). Prints each form's time and reads a second, and the
 * worker's heap and young generation as the reads left them; writes
 * bench/results/directory-page-read-<time>.json.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import type { PageReadForm, PageReadJob, PageReadResult } from './support/page-read-worker.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const serverUrl = args.get('database-url');
if (!serverUrl) throw new Error('--database-url postgres://… is needed (the server holding bench_directory_<size>)');
const size = Number(args.get('size') ?? 1_000_000);
const rounds = Number(args.get('rounds') ?? 800);
const runs = Number(args.get('runs') ?? 2);
const forms = (args.get('forms') ?? 'text,base64,promise,callback,socket').split(',') as PageReadForm[];
const url = new URL(serverUrl);
url.pathname = `/bench_directory_${size}`;

/** The pages' current renderer version, and eight sets of listings that have pages (seeded: the same in every run). */
async function pageSets(): Promise<{ version: string; sets: number[][] }> {
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    const found = await client.query<{ version: string }>('SELECT version FROM listing_pages GROUP BY version ORDER BY count(*) DESC LIMIT 1');
    const version = found.rows[0]?.version;
    if (!version) throw new Error(`no pages in ${url.pathname.slice(1)}: start a node on it once (bench/directory-memory.ts) so that it renders them`);
    const sets: number[][] = [];
    for (let i = 0; i < 8; i++) {
      const { rows } = await client.query<{ seq: number }>('SELECT seq FROM listing_pages WHERE version = $1 AND seq % 997 = $2 ORDER BY seq LIMIT $3', [version, i * 101, i === 6 ? 100 : 20]);
      sets.push(rows.map((row) => row.seq));
    }
    return { version, sets };
  } finally {
    await client.end();
  }
}

async function measure(form: PageReadForm, version: string, sets: number[][]): Promise<PageReadResult & { load: number }> {
  const worker = new Worker(new URL('./support/page-read-worker.ts', import.meta.url), { workerData: { url: url.href, form, version, sets, rounds } satisfies PageReadJob });
  const [result] = (await once(worker, 'message')) as [PageReadResult];
  return { ...result, load: Math.round(loadavg()[0]! * 100) / 100 };
}

const { version, sets } = await pageSets();
const results: (PageReadResult & { load: number })[] = [];
console.log(`\n${rounds} rounds of ${sets.length} page reads (${sets.reduce((n, s) => n + s.length, 0)} pages a round), ${size.toLocaleString('en')} listings, one worker thread a form\n`);
console.log('form      ms      reads/s   worker heap   young generation   load');
for (let run = 0; run < runs; run++) {
  for (const form of forms) {
    const r = await measure(form, version, sets);
    results.push(r);
    console.log(`${form.padEnd(8)}${String(r.ms).padStart(6)}${String(Math.round((r.reads / r.ms) * 1000)).padStart(11)}${`${r.heapTotalMb} MB`.padStart(14)}${`${r.youngGenerationMb} MB`.padStart(19)}${String(r.load).padStart(7)}`);
  }
}
const dir = join(new URL('.', import.meta.url).pathname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `directory-page-read-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ size, rounds, node: process.version, results }, null, 2));
console.log(`\nwrote ${file}`);
