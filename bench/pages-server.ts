/**
 * Benchmark server for the web pages (bench/pages.ts): the directory and an inbox as `npm start`
 * runs them (demo listings, demo business, the local web of sample sites checked), from the compiled
 * code, on fresh data folders and free ports, burst limits off. Reports one JSON line on file
 * descriptor 3 when ready (addresses, the owner key printed at first start).
 */
import { writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SAMPLE_SITES, startLocalWeb } from '../packages/directory/dist/index.js';
import { startDirectoryFromEnvironment } from '../packages/directory/dist/main.js';
import { startInboxFromEnvironment } from '../packages/inbox/dist/main.js';

const report = (value: Record<string, unknown>): void => void writeSync(3, `${JSON.stringify(value)}\n`);
// The sample sites, checked as npm start checks them, so result pages and boards are real results.
const localWeb = await startLocalWeb();
const { directory } = await startDirectoryFromEnvironment({ ...process.env, DATA_DIR: process.env.DIRECTORY_DATA_DIR, DIRECTORY_PORT: '0', DIRECTORY_CHECK_LOCAL_WEB: localWeb.address });
await directory.pagesReady;
for (const site of SAMPLE_SITES.filter((s) => !s.slow)) await directory.checks.schedule(site.host);
await directory.checkWorker.drain(120_000);
await directory.search.hour();
const { inbox, keyLines } = await startInboxFromEnvironment({ ...process.env, DATA_DIR: process.env.INBOX_DATA_DIR, INBOX_PORT: '0' });
const ownerKey = /svc_own_[A-Za-z0-9_-]+/.exec(keyLines.join('\n'))?.[0];
report({
  ready: true,
  directory: `http://127.0.0.1:${(directory.http.server.address() as AddressInfo).port}`,
  inbox: `http://127.0.0.1:${(inbox.http.server.address() as AddressInfo).port}`,
  ownerKey,
});
// BENCH_PROFILE_DIR: a case's name on the IPC channel starts a CPU profile; the next writes it to <dir>/<name>.cpuprofile.
const profileDir = process.env.BENCH_PROFILE_DIR;
if (profileDir) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  let profiling = false;
  process.on('message', (name: string) => {
    profiling = !profiling;
    if (profiling) void session.post('Profiler.start').then(() => process.send?.('started'));
    else
      void session.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
        process.send?.('written');
      });
  });
}
process.on('SIGTERM', () => void Promise.allSettled([inbox.close(), directory.close(), localWeb.close()]).then(() => process.exit(0)));
