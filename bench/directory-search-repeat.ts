/**
 * Searches of the query mix one after another in one process (no HTTP, no answer worker, every
 * answer cache off) on the 100 k data set of bench/directory.ts: each query 400 times, its p50 and
 * p90 in ms. Runs the compiled code of a checkout (default this one), so a checkout of the code
 * before a change can be measured beside it on the same data:
 *
 *   npx tsx bench/directory-search-repeat.ts [checkout folder] [size]
 *
 * (build the checkout first: npm run build; its bench/.data/directory-<size> must hold the data set.)
 */
import type * as app from '../packages/directory/dist/app.js';

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const size = process.argv[3] ?? '100000';
process.env.DIRECTORY_ANSWER_CACHE = 'off';
const { buildDirectory } = (await import(`${root}/packages/directory/dist/app.js`)) as typeof app;
const offset = Date.parse('2026-12-08T12:00:00Z') - Date.now();
const directory = await buildDirectory({
  dataDir: `${root}/bench/.data/directory-${size}`,
  baseUrl: 'http://127.0.0.1',
  rateLimit: 0,
  clock: { now: () => Date.now() + offset },
  logLevel: 'silent',
  runJobs: false,
  hourlyTimer: false,
  answerWorkers: 0,
});
await directory.search.hour();
const MIX: [string, Record<string, string>][] = [
  ['plain page', {}],
  ['q', { q: 'coffee' }],
  ['near', { near: '40.7128,-74.0060', radius_km: '10' }],
  ['category', { category: 'restaurant' }],
  ['open_now', { open_now: 'true' }],
  ['three filters', { category: 'hair-beauty', language: 'en', open_now: 'true' }],
  ['nearest', { near: '38.7223,-9.1393', radius_km: '50', order: 'nearest' }],
];
for (const [name, raw] of MIX) {
  const times: number[] = [];
  for (let i = 0; i < 400; i++) {
    const started = performance.now();
    await directory.search.search(raw as never, { limit: 20 });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(14)} p50 ${times[200]!.toFixed(2)} ms  p90 ${times[360]!.toFixed(2)} ms`);
}
await directory.close();
process.exit(0);
