/**
 * Benchmark server: a directory over a prepared data folder, on 127.0.0.1, with its clock set to
 * BENCH_NOW (so the rules in force are known), printing one JSON line when ready. It runs the
 * compiled code `npm start` serves (packages/directory/dist; the benches build it first), not the
 * sources through tsx, whose helpers (__name on every function made) would be measured too.
 */
import { buildDirectory } from '../packages/directory/dist/app.js';
import { tuneCollectorForServing } from '../packages/directory/dist/collector-setting.js';

const dataDir = process.env.DATA_DIR as string;
const port = Number(process.env.PORT ?? 0);
const offset = Date.parse(process.env.BENCH_NOW ?? new Date().toISOString()) - Date.now();
// V8's collector set as a node's start sets it (collector-setting.ts), with DIRECTORY_HEAP_GROWING_PERCENT as an operator would set it.
const { externalInHeapLimit, heapGrowingPercent } = tuneCollectorForServing(process.env.DIRECTORY_HEAP_GROWING_PERCENT ? Number(process.env.DIRECTORY_HEAP_GROWING_PERCENT) : null);
const started = performance.now();
const directory = await buildDirectory({
  dataDir,
  // The public URL the benches render pages for (listingPageRenderer in bench/directory.ts and compression.ts): not the port, so prepared pages stay current.
  baseUrl: 'http://127.0.0.1',
  // Burst limits off: a benchmark is one client sending as fast as it can (docs/security.md).
  rateLimit: 0,
  clock: { now: () => Date.now() + offset },
  logLevel: 'silent',
  runJobs: false,
  hourlyTimer: false,
  // As a node started by main.ts: the heap pages its start freed are handed back (heap-pages.ts).
  releaseHeapPages: true,
});
await directory.search.hour();
// Pages missing or stale (a data set made by older code) are rendered before measuring.
const pagesRendered = await directory.pagesReady;
const readyMs = Math.round(performance.now() - started);
// The start's own work off the search path (a snapshot re-laid and written, the hour's statement, a
// rebuild) is done before measuring: at 5 M it runs for minutes, and searches measured beside it
// said more about it than about search.
await directory.search.settled();
global.gc?.();
const address = await directory.http.listen({ host: '127.0.0.1', port });
const memory = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ ready: true, address, externalInHeapLimit, heapGrowingPercent, prepareMs: readyMs, settledMs: Math.round(performance.now() - started), pagesRendered, rssMb: Math.round(memory.rss / 2 ** 20), heapMb: Math.round(memory.heapUsed / 2 ** 20), stats: directory.search.peek()?.index.stats() })}\n`,
);
// BENCH_PROFILE=<file>: SIGUSR2 starts a CPU profile, the next SIGUSR2 writes it to <file> (the load only, not the start).
const profileFile = process.env.BENCH_PROFILE;
if (profileFile) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  let profiling = false;
  process.on('SIGUSR2', () => {
    profiling = !profiling;
    if (profiling) void session.post('Profiler.start');
    else void session.post('Profiler.stop').then(({ profile }) => writeFileSync(profileFile, JSON.stringify(profile)));
  });
}
process.on('SIGTERM', () => {
  const after = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ stopped: true, rssMb: Math.round(after.rss / 2 ** 20) })}\n`);
  void directory.close().then(() => process.exit(0));
});
