/**
 * Where a search's time goes, on one process (so other work on the machine counts less than in a
 * load test): each query of the mix is answered many times with every cache off, through the whole
 * HTTP stack in-process (Fastify's inject), through the search service alone, and in its parts: the
 * index, reading the page's stored pages, assembling them.
 *
 *   npx tsx bench/directory-phases.ts [--size 100000] [--runs 400]
 *
 * Uses the data folder bench/directory.ts prepared (bench/.data/directory-<size>).
 */
import { storedDirectory } from './support/stored-directory.js';
import { JsonBytes, assembleListingBytes } from '../packages/directory/src/domain/listings/listing-page.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 100_000);
const runs = Number(args.get('runs') ?? 400);
const benchNow = Date.parse(args.get('now') ?? '2026-12-08T12:00:00Z');
const offset = benchNow - Date.now();

const directory = await storedDirectory(size, args.get('now'));
const started = performance.now();
await directory.search.hour();
console.log(`index ready in ${Math.round(performance.now() - started)} ms; pages rendered at start: ${await directory.pagesReady}`);

const first = await directory.http.inject({ url: '/v1/businesses?limit=100' });
let cursor = (first.json() as { next_cursor: string }).next_cursor;
for (let i = 0; i < 49; i++) cursor = ((await directory.http.inject({ url: `/v1/businesses?limit=100&cursor=${cursor}` })).json() as { next_cursor: string }).next_cursor;

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

/**
 * Milliseconds per call: the best of several rounds, so that moments when other work had the CPU
 * count as little as possible.
 */
async function best(work: () => unknown): Promise<number> {
  const rounds = 8;
  const per = Math.max(1, Math.floor(runs / rounds));
  let min = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) await work();
    min = Math.min(min, (performance.now() - t0) / per);
  }
  return min;
}

console.log(`${'query'.padEnd(28)} ${'HTTP (inject)'.padStart(13)} ${'search'.padStart(8)} ${'index'.padStart(7)} ${'pages'.padStart(7)} ${'assemble'.padStart(9)}  (ms, best of rounds)`);
for (const [name, url] of mix) {
  const query = Object.fromEntries(new URL(url, 'http://x').searchParams) as Record<string, string>;
  const { cursor: pageCursor, ...rest } = query;
  const raw = {
    ...rest,
    ...(rest.radius_km ? { radius_km: Number(rest.radius_km) } : {}),
    ...(rest.open_now ? { open_now: rest.open_now === 'true' } : {}),
  };
  for (let i = 0; i < 30; i++) await directory.http.inject({ url });
  const http = await best(() => directory.http.inject({ url }));
  const search = await best(() => directory.search.search(raw as never, { cursor: pageCursor, limit: 20 }));
  const answer = await directory.search.search(raw as never, { cursor: pageCursor, limit: 20 });
  const seqs: number[] = [];
  for (const b of answer.businesses) seqs.push((await directory.store.listings.byDomain(String(b.domain)))!.seq);
  const state = await directory.search.hour();
  const index = await best(() =>
    state.index.search({
      // the index's part as search() asks it for most of the mix (category and language left out)
      words: rest.q ? [rest.q] : [],
      softwareNameException: true,
      kinds: ['local_and_retail'],
      order: rest.order === 'nearest' ? 'nearest' : 'rank',
      after: rest.order === 'nearest' ? 0 : -1,
      limit: 20,
      ...(rest.open_now ? { openAt: Date.now() + offset } : {}),
      ...(rest.near ? { near: { lat: Number(rest.near.split(',')[0]), lng: Number(rest.near.split(',')[1]), radiusKm: Number(rest.radius_km) } } : {}),
    }),
  );
  const pages = await best(() => directory.store.listings.pagesBySeqs(seqs));
  const stored = await directory.store.listings.pagesBySeqs(seqs);
  const moment = { nowMs: Date.now() + offset, answeringHours: 24, rulesVersion: 7, rulesUrl: 'http://127.0.0.1:8080/v1/ranking?version=7', openNow: true, placement: { rankPos: 1, shuffle: '0123456789abcdef', facts: { member: false, answering: false, reach: 3 as const, standing: { ranked: false, scoreInt: 0 }, shuffle: '0123456789abcdef' } } };
  const assemble = await best(() => {
    const out = new JsonBytes();
    for (const page of stored.values()) assembleListingBytes(page.fixed, page, moment, out);
    out.toBuffer();
  });
  console.log(`${name.padEnd(28)} ${http.toFixed(3).padStart(13)} ${search.toFixed(3).padStart(8)} ${index.toFixed(3).padStart(7)} ${pages.toFixed(3).padStart(7)} ${assemble.toFixed(3).padStart(9)}`);
}
const memory = process.memoryUsage();
console.log(`RSS ${Math.round(memory.rss / 2 ** 20)} MB, heap ${Math.round(memory.heapUsed / 2 ** 20)} MB`);
await directory.close();
