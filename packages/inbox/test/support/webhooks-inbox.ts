/**
 * An inbox for webhook tests: like harness.ts's, with local webhooks allowed (INBOX_ALLOW_LOCAL_WEBHOOKS)
 * and the dispatcher drained by hand (`deliver()`), so the clock alone decides what is due.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonClient } from '../../../../test-support/http-client.js';
import { dropTestDatabase, testDatabaseUrl } from '../../../../test-support/test-database.js';
import { buildInbox, type Inbox } from '../../src/app.js';
import { createOwnerKey } from '../../src/domain/access/api-keys.js';
import { seedDemoBusiness } from '../../src/demo/seed-demo.js';
import { TestClock, type TestInbox } from './harness.js';

export interface WebhookTestInbox extends TestInbox {
  inbox: Inbox;
  /** Sends every delivery due now and waits until each outcome is recorded. */
  deliver(): Promise<void>;
}

export async function startWebhookInbox(
  options: { clock?: TestClock; allowLocalWebhooks?: boolean; webhookTimings?: { timeoutMs?: number; leaseMs?: number; pollIntervalMs?: number } } = {},
): Promise<WebhookTestInbox> {
  const clock = options.clock ?? new TestClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'inbox-webhooks-'));
  const inbox = await buildInbox({
    dataDir,
    databaseUrl: await testDatabaseUrl('inbox', dataDir),
    publicBaseUrl: 'http://127.0.0.1',
    clock,
    logLevel: 'silent',
    runJobs: false,
    runWebhooks: false,
    allowLocalWebhooks: options.allowLocalWebhooks ?? true,
    ...(options.webhookTimings ? { webhookTimings: options.webhookTimings } : {}),
  });
  await seedDemoBusiness({ store: inbox.store, clock });
  const ownerKey = (await createOwnerKey(inbox.store, 'test owner', clock.now())).value;
  const address = await inbox.http.listen({ host: '127.0.0.1', port: 0 });
  const request: TestInbox['request'] = jsonClient(address);
  return {
    inbox,
    baseUrl: address,
    dataDir,
    ownerKey,
    clock,
    request,
    owner: (method, path, opts = {}) => request(method, path, { ...opts, headers: { authorization: `Bearer ${ownerKey}`, ...(opts.headers ?? {}) } }),
    deliver: () => inbox.webhooks.drain(),
    async close(closeOptions = {}) {
      await inbox.close();
      if (closeOptions.removeData ?? true) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase('inbox', dataDir);
      }
    },
  };
}
