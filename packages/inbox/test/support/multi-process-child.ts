/**
 * One of several inbox processes on one PostgreSQL database, for the multi-process test: its own
 * data folder, the database in INBOX_DATABASE_URL, the sealing key in INBOX_SECRET_KEY (shared by
 * every process, as an operator must), jobs and webhooks running, local webhooks allowed, the system
 * clock. Prints one JSON line {baseUrl} once it listens. Argument: data folder.
 */
import { buildInbox } from '../../src/app.js';
import { seedDemoBusiness } from '../../src/demo/seed-demo.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: multi-process-child.ts <data folder>');
if (!process.env.INBOX_DATABASE_URL) throw new Error('INBOX_DATABASE_URL must name the shared database');
const inbox = await buildInbox({
  dataDir,
  publicBaseUrl: 'http://127.0.0.1',
  logLevel: 'silent',
  allowLocalWebhooks: true,
  runJobs: true,
  runWebhooks: true,
  jobPollIntervalMs: 50,
});
// Every process seeds when it finds no business, as `npm start` does: processes starting together race here too.
await seedDemoBusiness({ store: inbox.store, clock: inbox.clock });
const baseUrl = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ baseUrl })}\n`);
process.on('SIGTERM', () => void inbox.close().then(() => process.exit(0)));
