/**
 * What bench/webhooks.ts and bench/webhooks-drain.ts share: the receivers in their own process, an
 * inbox with one endpoint per receiver, a backlog committed with the dispatcher stopped, and the
 * baseline's bare signing and posting loop.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { newId } from '@svc/shared';
import { buildInbox, type Inbox } from '../packages/inbox/src/app.js';
import { thinEnvelope } from '../packages/inbox/src/domain/events/event-body.js';
import { insertItem } from '../packages/inbox/src/domain/items/item-writer.js';
import { createEndpoint } from '../packages/inbox/src/domain/webhooks/endpoints.js';
import { newSigningSecret } from '../packages/inbox/src/domain/webhooks/signing.js';
import { sendSigned } from '../packages/inbox/src/webhooks/attempt.js';

/** The dispatcher's default bound on parallel sends; the baseline uses the same. */
export const CONCURRENCY = 64;

export const mover = { actor: { kind: 'system' as const, id: null, name: 'bench' }, channel: 'system' };

/** What the receivers counted since the last reset (GET /wait answers it without the latencies). */
export interface ReceiverSummary {
  received: number;
  distinct: number;
  firstAt: number;
  lastAt: number;
}

export interface Receivers {
  urls: string[];
  /** Receivers that accept the connection and never answer (startReceivers' `dead`). */
  deadUrls: string[];
  reset(): Promise<void>;
  /** One long-poll until `expected` deliveries arrived: polling would load the side being measured. */
  wait(expected: number, timeoutMs?: number): Promise<ReceiverSummary>;
  /** The summary with each arrival's latency (from the body's timestamp). */
  stats(): Promise<ReceiverSummary & { latencies: number[] }>;
  stop(): void;
}

/** `count` receivers on 127.0.0.1 in their own process (bench/webhooks-receiver.ts), and `dead` that never answer. */
export async function startReceivers(count: number, dead = 0): Promise<Receivers> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('webhooks-receiver.ts', import.meta.url).pathname, String(count), String(dead)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`the receivers exited (${code ?? signal})`);
  });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  const { urls, dead: deadUrls, control } = JSON.parse(line) as { urls: string[]; dead: string[]; control: string };
  /** Control calls on fresh connections, retried once: they must not be what fails a run. */
  const call = async (path: string, method: 'GET' | 'POST'): Promise<Response> => {
    try {
      return await fetch(`${control}${path}`, { method, headers: { connection: 'close' } });
    } catch {
      return fetch(`${control}${path}`, { method, headers: { connection: 'close' } });
    }
  };
  return {
    urls,
    deadUrls,
    reset: async () => void (await (await call('/reset', 'POST')).text()),
    wait: async (expected, timeoutMs = 120_000) => (await (await call(`/wait?count=${expected}&timeoutMs=${timeoutMs}`, 'GET')).json()) as ReceiverSummary,
    stats: async () => (await (await call('/stats', 'GET')).json()) as ReceiverSummary & { latencies: number[] },
    stop: () => void child.kill(),
  };
}

/** An inbox in a fresh folder, local webhooks allowed, one endpoint per receiver URL. */
export async function openBenchInbox(urls: readonly string[]): Promise<{ inbox: Inbox; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const inbox = await buildInbox({ dataDir, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runWebhooks: true, allowLocalWebhooks: true, rateLimit: 0 });
  for (const url of urls) {
    await inbox.store.transaction((store) => createEndpoint({ store, clock: inbox.clock }, { secrets: inbox.secrets, urls: { allowLocal: true } }, { url }));
  }
  return { inbox, dataDir };
}

/** One event (a new message item) in its own transaction, delivered by the running dispatcher. */
export async function commitEvent(inbox: Inbox, subject: string): Promise<void> {
  await inbox.store.transaction((store) =>
    insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' }),
  );
}

/** Stops the dispatcher and commits `events` events in one transaction: a backlog for start() to drain. */
export async function queueBacklog(inbox: Inbox, events: number, label: string): Promise<void> {
  await inbox.webhooks.stop();
  await inbox.store.transaction(async (store) => {
    for (let n = 0; n < events; n += 1) {
      await insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject: `${label} ${n}` }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' });
    }
  });
}

/** The baseline: the same thin bodies, signed and posted by a bare loop with the same client (publicFetch). */
export function baselineSender(urls: readonly string[]) {
  const secrets = urls.map(() => [newSigningSecret()]);
  return {
    body(nowMs: number): { id: string; body: string } {
      const id = newId(nowMs);
      const event = { id, itemId: newId(nowMs), seq: 1, type: 'message.create', event: 'create', fromState: null, toState: 'open', version: 1, actor: mover.actor, channel: 'system', sandbox: false, reason: null, data: null, createdAt: nowMs };
      return { id, body: JSON.stringify(thinEnvelope(event, 'http://127.0.0.1')) };
    },
    send(body: string, id: string, index: number) {
      return sendSigned(
        { url: urls[index] as string, webhookId: id, eventType: 'message.create', attempt: 1, body, secrets: secrets[index] as string[], extraHeaders: {}, timestampSec: Math.floor(Date.now() / 1000) },
        true,
      );
    },
  };
}

/** Runs the jobs with CONCURRENCY of them at a time. */
export async function pool(jobs: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
    }),
  );
}
