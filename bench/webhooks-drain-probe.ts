/** Probe: dispatcher throughput alone (events committed first, then one drain). Not part of the bench table. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildInbox } from '../packages/inbox/src/app.js';
import { insertItem } from '../packages/inbox/src/domain/items/item-writer.js';
import { createEndpoint } from '../packages/inbox/src/domain/webhooks/endpoints.js';

const root = new URL('.', import.meta.url).pathname;
const receiver = spawn(process.execPath, ['--import', 'tsx', join(root, 'webhooks-receiver.ts'), '10'], { stdio: ['ignore', 'pipe', 'inherit'] });
const { urls } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: receiver.stdout }).once('line', resolve))) as { urls: string[] };
const inbox = await buildInbox({ dataDir: mkdtempSync(join(tmpdir(), 'probe-')), publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runWebhooks: false, allowLocalWebhooks: true });
for (const url of urls) await inbox.store.transaction((store) => createEndpoint({ store, clock: inbox.clock }, { secrets: inbox.secrets, urls: { allowLocal: true } }, { url }));
const mover = { actor: { kind: 'system' as const, id: null, name: 'bench' }, channel: 'system' };
let t = performance.now();
await inbox.store.transaction(async (store) => {
  for (let n = 0; n < 1000; n += 1) await insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: {}, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'x' });
});
console.log('commit 1000 events', (performance.now() - t).toFixed(0), 'ms');
t = performance.now();
await inbox.webhooks.drain();
console.log('drain 10000 deliveries', (performance.now() - t).toFixed(0), 'ms');
await inbox.close();
receiver.kill();
