/**
 * Durability of the outbox: an inbox process killed with SIGKILL while deliveries are in flight
 * loses none. After a restart on the same data folder every event reaches the receiver at least
 * once, under its one webhook-id (inbox spec §6: "stable across retries; deduplicate on it").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { jsonClient } from '../../../test-support/http-client.js';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const CHILD = fileURLToPath(new URL('./support/webhooks-child.ts', import.meta.url));
const EVENTS = 40;
const children: ChildProcess[] = [];
let receiver: Receiver | null = null;
let dataDir: string | null = null;

afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  if (dataDir) {
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestDatabase('inbox', dataDir);
  }
});

async function startChild(dir: string): Promise<{ child: ChildProcess; baseUrl: string; ownerKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'silent' } });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { baseUrl: string; ownerKey: string }) };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('delivers every event at least once under one webhook-id after a SIGKILL mid-delivery', { timeout: 60_000 }, async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'inbox-crash-'));
  receiver = await startReceiver();
  // The first process never gets an answer in time: everything it sent is still in flight when it dies.
  receiver.delayMs = 30_000;

  const first = await startChild(dataDir);
  const api = jsonClient(first.baseUrl);
  const auth = { authorization: `Bearer ${first.ownerKey}` };
  const made = await api('POST', '/v1/owner/webhooks', { body: { url: receiver.url }, headers: auth });
  expect(made.status).toBe(201);
  for (let n = 0; n < EVENTS; n += 1) {
    expect((await api('POST', '/v1/messages', { body: { message: `message ${n}` } })).status).toBe(201);
  }
  await until(() => (receiver?.received.length ?? 0) >= 5, 10_000, 'the first deliveries');
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const beforeRestart = new Set(receiver.received.map((d) => String(d.headers['webhook-id'])));

  receiver.delayMs = 0;
  const second = await startChild(dataDir);
  const api2 = jsonClient(second.baseUrl);
  const auth2 = { authorization: `Bearer ${second.ownerKey}` };
  const events: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await api2('GET', `/v1/owner/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth2 });
    events.push(...page.body.events.map((e: { id: string }) => e.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  expect(events).toHaveLength(EVENTS);

  await until(() => events.every((id) => receiver?.received.some((d) => d.headers['webhook-id'] === id && d.receivedAt > 0)), 20_000, 'every event');
  const received = new Set(receiver.received.map((d) => String(d.headers['webhook-id'])));
  // Nothing lost, and no id that is not an event's: a resend keeps the webhook-id.
  expect([...received].sort()).toEqual([...events].sort());
  expect(beforeRestart.size).toBeGreaterThan(0);
  for (const delivery of receiver.received) expect(receiver.verify(delivery, made.body.secret)).toEqual(delivery.json);

  const deliveries: any = await api2('GET', '/v1/owner/deliveries?limit=100', { headers: auth2 });
  expect(deliveries.body.items).toHaveLength(EVENTS);
  expect(deliveries.body.items.map((d: { webhook_id: string }) => d.webhook_id).sort()).toEqual([...events].sort());
  second.child.kill('SIGKILL');
});
