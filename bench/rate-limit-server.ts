/**
 * Benchmark server for bench/rate-limit.ts: an inbox with the demo business on a fresh data folder,
 * its burst budgets scaled by INBOX_RATE_LIMIT (0: off), on 127.0.0.1, printing one JSON line when
 * ready, and one with its CPU time so far on each SIGHUP. Compiled code, as `npm start` serves it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildInbox } from '../packages/inbox/dist/app.js';
import { seedDemoBusiness } from '../packages/inbox/dist/demo/seed-demo.js';
import { createOwnerKey } from '../packages/inbox/dist/domain/access/api-keys.js';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-rate-limit-'));
const inbox = await buildInbox({
  dataDir,
  publicBaseUrl: 'http://127.0.0.1',
  logLevel: 'silent',
  runJobs: false,
  rateLimit: Number(process.env.INBOX_RATE_LIMIT ?? '1'),
});
await seedDemoBusiness({ store: inbox.store, clock: inbox.clock });
const ownerKey = (await createOwnerKey(inbox.store, 'bench', inbox.clock.now())).value;
const address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ ready: true, address, ownerKey })}\n`);
// The bench asks for the CPU time spent so far (user + system, µs) before and after each run.
process.on('SIGHUP', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuMicros: user + system })}\n`);
});
process.on('SIGTERM', () =>
  void inbox.close().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }),
);
