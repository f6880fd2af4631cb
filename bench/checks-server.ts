/**
 * Benchmark server for bench/checks.ts: a directory over a data folder whose checks are done (the
 * compiled code `npm start` serves), listening on 127.0.0.1, printing one JSON line when ready.
 */
import { buildDirectory } from '../packages/directory/dist/app.js';

const directory = await buildDirectory({
  dataDir: process.env.DATA_DIR as string,
  baseUrl: 'http://127.0.0.1',
  rateLimit: 0,
  logLevel: 'silent',
  runJobs: false,
  runChecks: false,
  hourlyTimer: false,
  checks: { localWeb: process.env.LOCAL_WEB ?? null },
});
const address = await directory.http.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ ready: true, address })}\n`);
process.on('SIGTERM', () => void directory.close().then(() => process.exit(0)));
