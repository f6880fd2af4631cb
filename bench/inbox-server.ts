/**
 * Benchmark server: an inbox as `npm start` runs it (startInboxFromEnvironment with the
 * environment's defaults: demo business seeded, LOG_LEVEL info, jobs and the webhook dispatcher
 * running) on a fresh DATA_DIR and a free port. It runs the compiled code (packages/inbox/dist; the
 * bench builds it first). Pino writes its request log to stdout as under `npm start`; the bench
 * discards it, so this process reports on file descriptor 3: one JSON line when ready (with the
 * owner key printed at first start) and one when stopped.
 */
import { writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { startInboxFromEnvironment } from '../packages/inbox/dist/main.js';

const report = (value: Record<string, unknown>): void => void writeSync(3, `${JSON.stringify(value)}\n`);
const started = performance.now();
const { inbox, keyLines } = await startInboxFromEnvironment(process.env);
const ownerKey = /svc_own_[A-Za-z0-9_-]+/.exec(keyLines.join('\n'))?.[0];
const port = (inbox.http.server.address() as AddressInfo).port;
global.gc?.();
report({ ready: true, address: `http://127.0.0.1:${port}`, ownerKey, prepareMs: Math.round(performance.now() - started), rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) });

// BENCH_PROFILE=<file>: SIGUSR2 starts a CPU profile, the next SIGUSR2 writes it to <file> (the load only, not the start).
const profileFile = process.env.BENCH_PROFILE;
if (profileFile) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  let profiling = false;
  let part = 0;
  process.on('SIGUSR2', () => {
    profiling = !profiling;
    if (profiling) void session.post('Profiler.start');
    else {
      const file = profileFile.replace(/(\.cpuprofile)?$/, `-${++part}.cpuprofile`);
      void session.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(file, JSON.stringify(profile));
        report({ profile: file });
      });
    }
  });
}
// SIGHUP: report the process's CPU time so far (µs), so the bench can tell the CPU a request costs whatever else runs on the machine.
process.on('SIGHUP', () => {
  const { user, system } = process.cpuUsage();
  report({ cpuMicros: user + system });
});
process.on('SIGTERM', () => {
  report({ stopped: true, rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) });
  void inbox.close().then(() => process.exit(0));
});
