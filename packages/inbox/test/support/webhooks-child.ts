/**
 * An inbox in its own process, for the crash test: local webhooks allowed, the dispatcher running,
 * the system clock (on the PostgreSQL test run, the data folder's database and short delivery leases).
 * Prints one JSON line {baseUrl, ownerKey} once it listens. Argument: data folder.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onPostgres, testDatabaseUrl } from '../../../../test-support/test-database.js';
import { buildInbox } from '../../src/app.js';
import { createOwnerKey } from '../../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../../src/demo/seed-demo.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: webhooks-child.ts <data folder>');
const inbox = await buildInbox({
  dataDir,
  databaseUrl: await testDatabaseUrl('inbox', dataDir),
  publicBaseUrl: 'http://127.0.0.1',
  logLevel: 'silent',
  allowLocalWebhooks: true,
  runJobs: false,
  runWebhooks: true,
  // PostgreSQL: what the killed process had claimed goes again once its lease runs out; a short one here.
  ...(onPostgres ? { webhookTimings: { leaseMs: 5_000, timeoutMs: 2_000 } } : {}),
});
await seedDemoBusiness({ store: inbox.store, clock: inbox.clock });
const keyFile = join(dataDir, 'test-owner-key');
if (!existsSync(keyFile)) writeFileSync(keyFile, (await createOwnerKey(inbox.store, 'crash test', Date.now())).value);
const baseUrl = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ baseUrl, ownerKey: readFileSync(keyFile, 'utf8') })}\n`);
