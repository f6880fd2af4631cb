/**
 * Webhook delivery benchmark (issue 4): events committed per second and commit-to-receiver latency
 * with 10 endpoints on 127.0.0.1, against a baseline in the same run: a bare loop that signs and
 * posts the same bodies with the same HTTP client (publicFetch) and the same concurrency.
 *
 *   npx tsx bench/webhooks.ts [--events 1000] [--endpoints 10] [--rate 50] [--seconds 10]
 *
 * Inbox phases. Backlog: `events` events committed with the dispatcher stopped, then started;
 * deliveries per second until the last arrives (the baseline flood has every body ready too, so the
 * two compare directly). Flood: commit `events` events as fast as possible (one transaction each)
 * while delivering: commits per second, deliveries per second, latency. Paced: commit `rate` events
 * a second for `seconds`: latency from the event's timestamp to its arrival. The baseline has the
 * flood and the paced phase with the same bodies.
 * Receivers run in their own process (bench/webhooks-receiver.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const EVENTS = Number(args.get('events') ?? 1000);
const ENDPOINTS = Number(args.get('endpoints') ?? 10);
const RATE = Number(args.get('rate') ?? 50);
const SECONDS = Number(args.get('seconds') ?? 10);
/** The dispatcher's default bound on parallel sends; the baseline uses the same. */
const CONCURRENCY = 64;
const root = new URL('.', import.meta.url).pathname;

interface Stats {
  received: number;
  distinct: number;
  firstAt: number;
  lastAt: number;
  latencies: number[];
}

const receiverProcess = spawn(process.execPath, ['--import', 'tsx', join(root, 'webhooks-receiver.ts'), String(ENDPOINTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
receiverProcess.on('exit', (code, signal) => {
  if (code !== 0 && signal !== 'SIGTERM') console.error(`the receivers exited (${code ?? signal})`);
});
const { urls, control } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: receiverProcess.stdout }).once('line', resolve))) as { urls: string[]; control: string };
/** Control calls on fresh connections, retried once: they must not be what fails a run. */
async function controlCall(path: string, method: 'GET' | 'POST'): Promise<Response> {
  try {
    return await fetch(`${control}${path}`, { method, headers: { connection: 'close' } });
  } catch {
    return fetch(`${control}${path}`, { method, headers: { connection: 'close' } });
  }
}
const stats = async (): Promise<Stats> => (await controlCall('/stats', 'GET')).json() as Promise<Stats>;
const reset = async () => void (await (await controlCall('/reset', 'POST')).text());
async function waitForDeliveries(expected: number, timeoutMs = 120_000): Promise<Stats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await stats();
    if (s.received >= expected || Date.now() > deadline) return s;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const mover = { actor: { kind: 'system' as const, id: null, name: 'bench' }, channel: 'system' };
async function commitEvent(inbox: Inbox, n: number): Promise<void> {
  await inbox.store.transaction((store) =>
    insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject: `bench ${n}` }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' }),
  );
}

interface Row {
  side: string;
  commitsPerSec: number | null;
  deliveriesPerSec: number;
  delivered: string;
  p50: number;
  p99: number;
}

async function runInbox(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const inbox = await buildInbox({ dataDir, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runWebhooks: true, allowLocalWebhooks: true });
  try {
    for (const url of urls) {
      await inbox.store.transaction((store) => createEndpoint({ store, clock: inbox.clock }, { secrets: inbox.secrets, urls: { allowLocal: true } }, { url }));
    }
    // Warm up: connections, statements, JIT.
    for (let n = 0; n < 50; n += 1) await commitEvent(inbox, n);
    await waitForDeliveries(50 * urls.length);
    await reset();

    // Backlog: the events are already committed when the dispatcher starts; deliveries per second
    // compare directly with the baseline, which also has every body ready at its start.
    await inbox.webhooks.stop();
    await inbox.store.transaction(async (store) => {
      for (let n = 0; n < EVENTS; n += 1) {
        await insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject: `backlog ${n}` }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' });
      }
    });
    await reset();
    const backlogStartedAt = Date.now();
    await inbox.webhooks.start();
    const backlog = await waitForDeliveries(EVENTS * urls.length);
    const backlogRow: Row = {
      side: 'inbox: backlog',
      commitsPerSec: null,
      deliveriesPerSec: backlog.received / ((backlog.lastAt - backlogStartedAt) / 1000),
      delivered: `${backlog.distinct}/${EVENTS * urls.length}`,
      p50: Number.NaN,
      p99: Number.NaN,
    };

    await reset();
    const started = performance.now();
    const startedAt = Date.now();
    for (let n = 0; n < EVENTS; n += 1) await commitEvent(inbox, n);
    const commitSec = (performance.now() - started) / 1000;
    const flood = await waitForDeliveries(EVENTS * urls.length);
    const floodRow: Row = {
      side: 'inbox: flood',
      commitsPerSec: EVENTS / commitSec,
      deliveriesPerSec: flood.received / ((flood.lastAt - startedAt) / 1000),
      delivered: `${flood.distinct}/${EVENTS * urls.length}`,
      p50: percentile(flood.latencies, 50),
      p99: percentile(flood.latencies, 99),
    };

    await reset();
    const paced = await pacedRun((n) => commitEvent(inbox, n));
    const pacedStats = await waitForDeliveries(paced.count * urls.length);
    return [
      backlogRow,
      floodRow,
      {
        side: `inbox: ${RATE} events/s`,
        commitsPerSec: paced.count / paced.seconds,
        deliveriesPerSec: pacedStats.received / ((pacedStats.lastAt - pacedStats.firstAt) / 1000),
        delivered: `${pacedStats.distinct}/${paced.count * urls.length}`,
        p50: percentile(pacedStats.latencies, 50),
        p99: percentile(pacedStats.latencies, 99),
      },
    ];
  } finally {
    await inbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Calls `commit` RATE times a second for SECONDS, on schedule (no catching up in bursts). */
async function pacedRun(commit: (n: number) => Promise<void>): Promise<{ count: number; seconds: number }> {
  const started = performance.now();
  const total = RATE * SECONDS;
  for (let n = 0; n < total; n += 1) {
    const due = started + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await commit(n);
  }
  return { count: total, seconds: (performance.now() - started) / 1000 };
}

/** The baseline: the same thin bodies, signed and posted by a bare loop with the same client and concurrency. */
async function runBaseline(): Promise<Row[]> {
  const secrets = urls.map(() => [newSigningSecret()]);
  const send = (body: string, id: string, index: number) =>
    sendSigned(
      { url: urls[index] as string, webhookId: id, eventType: 'message.create', attempt: 1, body, secrets: secrets[index] as string[], extraHeaders: {}, timestampSec: Math.floor(Date.now() / 1000) },
      true,
    );
  const bodyAt = (nowMs: number) => {
    const id = newId(nowMs);
    const event = {
      id,
      itemId: newId(nowMs),
      seq: 1,
      type: 'message.create',
      event: 'create',
      fromState: null,
      toState: 'open',
      version: 1,
      actor: mover.actor,
      channel: 'system',
      sandbox: false,
      reason: null,
      data: null,
      createdAt: nowMs,
    };
    return { id, body: JSON.stringify(thinEnvelope(event, 'http://127.0.0.1')) };
  };
  const pool = async (jobs: (() => Promise<unknown>)[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
      }),
    );
  };

  await pool(Array.from({ length: 50 * urls.length }, (_, k) => () => send(bodyAt(Date.now()).body, newId(), k % urls.length)));
  await reset();
  const startedAt = Date.now();
  const bodies = Array.from({ length: EVENTS }, () => bodyAt(startedAt));
  await pool(bodies.flatMap(({ id, body }) => urls.map((_, index) => () => send(body, id, index))));
  const flood = await waitForDeliveries(EVENTS * urls.length);
  const floodRow: Row = {
    side: 'baseline: flood',
    commitsPerSec: null,
    deliveriesPerSec: flood.received / ((flood.lastAt - startedAt) / 1000),
    delivered: `${flood.distinct}/${EVENTS * urls.length}`,
    p50: percentile(flood.latencies, 50),
    p99: percentile(flood.latencies, 99),
  };

  await reset();
  const inFlight = new Set<Promise<unknown>>();
  const paced = await pacedRun(async () => {
    const { id, body } = bodyAt(Date.now());
    for (const [index] of urls.entries()) {
      const sending = send(body, id, index).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
  });
  await Promise.all([...inFlight]);
  const pacedStats = await waitForDeliveries(paced.count * urls.length);
  return [
    floodRow,
    {
      side: `baseline: ${RATE} events/s`,
      commitsPerSec: null,
      deliveriesPerSec: pacedStats.received / ((pacedStats.lastAt - pacedStats.firstAt) / 1000),
      delivered: `${pacedStats.distinct}/${paced.count * urls.length}`,
      p50: percentile(pacedStats.latencies, 50),
      p99: percentile(pacedStats.latencies, 99),
    },
  ];
}

try {
  const inboxRows = await runInbox();
  const baselineRows = await runBaseline();
  const rows = [...inboxRows, ...baselineRows];
  const ratio = (inboxRows[0]?.deliveriesPerSec ?? 0) / (baselineRows[0]?.deliveriesPerSec ?? 1);
  const fmt = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(0));
  console.log(`\nWebhooks: ${ENDPOINTS} endpoints on 127.0.0.1, flood of ${EVENTS} events, then ${RATE} events/s for ${SECONDS} s; concurrency ${CONCURRENCY}\n`);
  console.log('| side | events committed/s | deliveries/s | delivered (distinct) | latency p50 ms | latency p99 ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.side} | ${r.commitsPerSec === null ? '–' : r.commitsPerSec.toFixed(0)} | ${r.deliveriesPerSec.toFixed(0)} | ${r.delivered} | ${fmt(r.p50)} | ${fmt(r.p99)} |`);
  }
  const pacedP99 = inboxRows[2]?.p99 ?? Number.NaN;
  console.log(`\nInbox backlog deliveries/s = ${(ratio * 100).toFixed(0)}% of the baseline flood (goal ≥ 70%); paced p99 ${pacedP99.toFixed(0)} ms (goal < 250 ms).`);
  mkdirSync(join(root, 'results'), { recursive: true });
  const file = join(root, 'results', `webhooks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ endpoints: ENDPOINTS, events: EVENTS, rate: RATE, seconds: SECONDS, concurrency: CONCURRENCY, rows, ratio }, null, 2));
  console.log(`Saved ${file}`);
} finally {
  receiverProcess.kill();
}
