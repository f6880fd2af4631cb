/**
 * Two inbox processes on one PostgreSQL database (docs/storage.md "Concurrency"): started together
 * (one migration, one demo business), taking calls side by side. No twin items (one idempotency key
 * sent to both makes one item), no double sends (every event reaches the receiver once, from
 * whichever process claimed it), no lost or twice-run jobs (a rule's reply is written once per
 * item), slot claims decided once across processes, and the event stream read while both write
 * gives every event once, in commit order. Runs on the PostgreSQL test run only (TEST_POSTGRES_URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { storageTarget } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { jsonClient } from '../../../test-support/http-client.js';
import { dropTestDatabase, onPostgres, rawRows, testDatabaseUrl } from '../../../test-support/test-database.js';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { openInboxStore } from '../src/store/kysely/kysely-inbox-store.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const CHILD = fileURLToPath(new URL('./support/multi-process-child.ts', import.meta.url));
const MESSAGES_PER_PROCESS = 30;
const KEYED_REQUESTS = 8;

type Api = ReturnType<typeof jsonClient>;
interface Process {
  child: ChildProcess;
  api: Api;
}

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!onPostgres)('two inbox processes on one PostgreSQL database', () => {
  const folders: string[] = [];
  const processes: Process[] = [];
  let shared = '';
  let receiver: Receiver;
  let owner: Record<string, string>;
  let a: Api;
  let b: Api;

  async function startProcess(url: string, secretKey: string): Promise<Process> {
    const dir = mkdtempSync(join(tmpdir(), 'inbox-multi-'));
    folders.push(dir);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, LOG_LEVEL: 'silent', INBOX_DATABASE_URL: url, INBOX_SECRET_KEY: secretKey },
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`an inbox process exited with ${code}`)));
    });
    const made = { child, api: jsonClient((JSON.parse(line) as { baseUrl: string }).baseUrl) };
    processes.push(made);
    return made;
  }

  beforeAll(async () => {
    shared = mkdtempSync(join(tmpdir(), 'inbox-multi-db-'));
    const url = (await testDatabaseUrl('inbox', shared)) as string;
    const secretKey = randomBytes(32).toString('base64');
    // Started together: both migrate, seed and make their signing key at the same moment.
    [{ api: a }, { api: b }] = await Promise.all([startProcess(url, secretKey), startProcess(url, secretKey)]);
    const store = await openInboxStore(storageTarget(url, '', 'INBOX_DATABASE_URL'));
    owner = { authorization: `Bearer ${(await createOwnerKey(store, 'multi-process test', Date.now())).value}` };
    await store.close();
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    for (const { child } of processes) child.kill('SIGKILL');
    await receiver?.close();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    if (shared) {
      rmSync(shared, { recursive: true, force: true });
      await dropTestDatabase('inbox', shared);
    }
  });

  it('started together, they made one business, one signing key and ran the migrations once', async () => {
    expect(await rawRows('inbox', shared, 'SELECT count(*)::int AS n FROM business')).toEqual([{ n: 1 }]);
    expect(await rawRows('inbox', shared, 'SELECT count(*)::int AS n FROM signing_keys')).toEqual([{ n: 1 }]);
    expect(await rawRows('inbox', shared, 'SELECT count(*)::int AS n FROM services')).toEqual([{ n: 5 }]);
    // Both serve it.
    for (const api of [a, b]) expect((await api('GET', '/v1/business')).body.name).toBe('Salão Aurora');
  });

  it('sends every event once, runs every job once and makes no twin items, whichever process took the call', { timeout: 120_000 }, async () => {
    expect((await a('POST', '/v1/owner/webhooks', { body: { url: receiver.url }, headers: owner })).status).toBe(201);
    const rule = { id: 'thanks', name: 'Say thanks', when: { event: 'message.create' }, then: { do: 'reply', message: 'Thanks, we read every message.' } };
    expect((await b('POST', '/v1/owner/rules', { body: { rule }, headers: owner })).status).toBe(201);

    // A poller follows the event stream from process B while both write.
    const seen: string[] = [];
    let polling = true;
    let cursor: string | null = null;
    const poller = (async () => {
      while (polling) {
        const page: any = await b('GET', `/v1/owner/events?limit=50${cursor ? `&cursor=${cursor}` : ''}`, { headers: owner });
        expect(page.status).toBe(200);
        seen.push(...page.body.events.map((e: { id: string }) => e.id));
        if (page.body.events.length > 0) cursor = page.body.next_cursor ?? page.body.events.at(-1).id;
        if (page.body.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // Stopped however the test ends, before the processes are.
    onTestFinished(async () => {
      polling = false;
      await poller.catch(() => undefined);
    });

    // Messages through both processes at once, and one idempotency key per request sent to both, three times each.
    const plain = Array.from({ length: MESSAGES_PER_PROCESS * 2 }, (_, n) =>
      (n % 2 === 0 ? a : b)('POST', '/v1/messages', { body: { message: `plain message ${n}`, contact: { name: `Writer ${n}` } } }),
    );
    const keyed = Array.from({ length: KEYED_REQUESTS }, (_, k) =>
      Array.from({ length: 6 }, (_, n) =>
        (n % 2 === 0 ? a : b)('POST', '/v1/messages', { body: { message: `keyed message ${k}`, contact: { name: `Keyed ${k}` } }, headers: { 'idempotency-key': `multi-key-${k}` } }),
      ),
    ).flat();
    const answers = await Promise.all([...plain, ...keyed]);
    for (const r of answers) expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    const keyedIds = new Map<string, Set<string>>();
    answers.slice(plain.length).forEach((r, i) => {
      const key = `multi-key-${Math.floor(i / 6)}`;
      keyedIds.set(key, (keyedIds.get(key) ?? new Set()).add(r.body.id));
    });
    for (const [key, ids] of keyedIds) expect(ids.size, key).toBe(1);
    const items = MESSAGES_PER_PROCESS * 2 + KEYED_REQUESTS;
    expect(await rawRows('inbox', shared, "SELECT count(*)::int AS n FROM items WHERE type = 'message'")).toEqual([{ n: items }]);

    // Each item's rule job ran once, in one process or the other: one reply each.
    await until(async () => (await rawRows('inbox', shared, "SELECT count(*)::int AS n FROM jobs WHERE status IN ('pending', 'running')"))[0]!.n === 0, 60_000, 'the jobs');
    const replies = await rawRows('inbox', shared, "SELECT item_id, count(*)::int AS n FROM messages WHERE body = 'Thanks, we read every message.' GROUP BY item_id");
    expect(replies).toHaveLength(items);
    expect(replies.every((r) => r.n === 1)).toBe(true);
    expect(await rawRows('inbox', shared, "SELECT status, count(*)::int AS n, max(attempts)::int AS attempts FROM jobs GROUP BY status")).toEqual([{ status: 'done', n: items, attempts: 1 }]);

    // Every event once at the receiver, under its own webhook-id, whichever process sent it.
    // One event per item (a rule's reply is a message in the conversation, not an event).
    const events = (await rawRows('inbox', shared, 'SELECT id FROM item_events')).map((r) => String(r.id));
    expect(events.length).toBe(items);
    await until(() => receiver.received.length >= events.length, 60_000, 'every delivery');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const delivered = receiver.received.map((d) => String(d.headers['webhook-id']));
    expect(delivered.length).toBe(events.length);
    expect(new Set(delivered)).toEqual(new Set(events));
    expect(await rawRows('inbox', shared, 'SELECT status, count(*)::int AS n, max(attempts)::int AS attempts FROM webhook_deliveries GROUP BY status')).toEqual([
      { status: 'succeeded', n: events.length, attempts: 1 },
    ]);

    // The stream, read while both wrote, gave every event once; its order is the positions' order.
    await until(async () => new Set(seen).size >= events.length, 20_000, 'the poller');
    polling = false;
    await poller;
    expect(seen).toHaveLength(events.length);
    expect(new Set(seen)).toEqual(new Set(events));
    const positions = (await rawRows('inbox', shared, 'SELECT event_id FROM event_stream ORDER BY position')).map((r) => String(r.event_id));
    expect(seen).toEqual(positions);
  });

  it('decides a slot once when both processes confirm bookings for it', { timeout: 60_000 }, async () => {
    // A beard trim (capacity 1) next Tuesday at 10:00 in Lisbon, asked for eight times.
    let tuesday = DateTime.now().setZone('Europe/Lisbon').plus({ days: 3 }).startOf('day');
    while (tuesday.weekday !== 2) tuesday = tuesday.plus({ days: 1 });
    const startTime = tuesday.set({ hour: 10 }).toISO() as string;
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, n) => (n % 2 === 0 ? a : b)('POST', '/v1/bookings', { body: { payload: { serviceId: 'beard-trim', startTime }, contact: { name: `Racer ${n}` } } })),
    );
    for (const r of made) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const confirms = await Promise.all(
      made.map((r, n) => (n % 2 === 0 ? b : a)('POST', `/v1/owner/items/${r.body.id}/transitions`, { body: { event: 'confirm' }, headers: owner })),
    );
    const byStatus = confirms.map((r) => (r.status === 200 ? 'confirmed' : r.body.code)).sort();
    expect(byStatus.filter((s) => s === 'confirmed')).toHaveLength(1);
    expect(byStatus.filter((s) => s !== 'confirmed').every((code) => code === 'slot_taken')).toBe(true);
  });
});
