/**
 * Webhook delivery benchmark (issue 4): events committed per second and commit-to-receiver latency
 * with 10 endpoints on 127.0.0.1, against a baseline in the same run: a bare loop that signs and
 * posts the same bodies with the same HTTP client (publicFetch) and the same concurrency.
 *
 *   npx tsx bench/webhooks.ts [--events 1000] [--endpoints 10] [--rate 50] [--seconds 10] [--rounds 5]
 *
 * After one uncounted round of each side (warm-up), throughput `rounds` times, alternating: the inbox's backlog (`events` events committed with the
 * dispatcher stopped, then started: deliveries per second until the last arrives) and the
 * baseline's flood (every body ready at its start too, so the two compare directly). Then the
 * inbox's flood (commit `events` events as fast as possible, one transaction each, while
 * delivering) and a paced run of each side (`rate` events a second for `seconds`): latency from the
 * event's timestamp to its arrival.
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
/** Backlog and baseline floods alternate this many times; the machine's load drifts between runs. */
const ROUNDS = Number(args.get('rounds') ?? 5);
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
/** One long-poll until `expected` deliveries arrived (polling would load the side being measured), then the latencies. */
async function waitForDeliveries(expected: number, timeoutMs = 120_000): Promise<Stats> {
  await (await controlCall(`/wait?count=${expected}&timeoutMs=${timeoutMs}`, 'GET')).text();
  return stats();
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

function row(side: string, s: Stats, expected: number, fromMs: number, commitsPerSec: number | null = null): Row {
  return {
    side,
    commitsPerSec,
    deliveriesPerSec: s.received / ((s.lastAt - fromMs) / 1000),
    delivered: `${s.distinct}/${expected}`,
    p50: percentile(s.latencies, 50),
    p99: percentile(s.latencies, 99),
  };
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

/** The inbox: events recorded through the domain, delivered by its dispatcher. */
async function openInbox(): Promise<{ inbox: Inbox; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const inbox = await buildInbox({ dataDir, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runWebhooks: true, allowLocalWebhooks: true });
  for (const url of urls) {
    await inbox.store.transaction((store) => createEndpoint({ store, clock: inbox.clock }, { secrets: inbox.secrets, urls: { allowLocal: true } }, { url }));
  }
  return { inbox, dataDir };
}

async function inboxBacklog(inbox: Inbox, round: number): Promise<Row> {
  await inbox.webhooks.stop();
  await inbox.store.transaction(async (store) => {
    for (let n = 0; n < EVENTS; n += 1) {
      await insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject: `backlog ${round} ${n}` }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' });
    }
  });
  await reset();
  const startedAt = Date.now();
  await inbox.webhooks.start();
  return row('inbox: backlog', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt);
}

async function inboxFlood(inbox: Inbox): Promise<Row> {
  await reset();
  const started = performance.now();
  const startedAt = Date.now();
  for (let n = 0; n < EVENTS; n += 1) await commitEvent(inbox, n);
  const commitsPerSec = EVENTS / ((performance.now() - started) / 1000);
  return row('inbox: flood while committing', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt, commitsPerSec);
}

async function inboxPaced(inbox: Inbox): Promise<Row> {
  await reset();
  const paced = await pacedRun((n) => commitEvent(inbox, n));
  const s = await waitForDeliveries(paced.count * urls.length);
  return row(`inbox: ${RATE} events/s`, s, paced.count * urls.length, s.firstAt, paced.count / paced.seconds);
}

/** The baseline: the same thin bodies, signed and posted by a bare loop with the same client and concurrency. */
const baselineSecrets = urls.map(() => [newSigningSecret()]);
function baselineSend(body: string, id: string, index: number) {
  return sendSigned(
    { url: urls[index] as string, webhookId: id, eventType: 'message.create', attempt: 1, body, secrets: baselineSecrets[index] as string[], extraHeaders: {}, timestampSec: Math.floor(Date.now() / 1000) },
    true,
  );
}
function baselineBody(nowMs: number) {
  const id = newId(nowMs);
  const event = { id, itemId: newId(nowMs), seq: 1, type: 'message.create', event: 'create', fromState: null, toState: 'open', version: 1, actor: mover.actor, channel: 'system', sandbox: false, reason: null, data: null, createdAt: nowMs };
  return { id, body: JSON.stringify(thinEnvelope(event, 'http://127.0.0.1')) };
}
async function pool(jobs: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
    }),
  );
}

async function baselineFlood(): Promise<Row> {
  await reset();
  const startedAt = Date.now();
  const bodies = Array.from({ length: EVENTS }, () => baselineBody(startedAt));
  await pool(bodies.flatMap(({ id, body }) => urls.map((_, index) => () => baselineSend(body, id, index))));
  return row('baseline: flood', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt);
}

async function baselinePaced(): Promise<Row> {
  await reset();
  const inFlight = new Set<Promise<unknown>>();
  const paced = await pacedRun(async () => {
    const { id, body } = baselineBody(Date.now());
    for (const [index] of urls.entries()) {
      const sending = baselineSend(body, id, index).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
  });
  await Promise.all([...inFlight]);
  const s = await waitForDeliveries(paced.count * urls.length);
  return row(`baseline: ${RATE} events/s`, s, paced.count * urls.length, s.firstAt);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const fmt = (value: number | null) => (value === null || Number.isNaN(value) ? '–' : value.toFixed(0));

try {
  const { inbox, dataDir } = await openInbox();
  // Warm-up, not counted: one whole round of each side (connections, statements, JIT). The first
  // drain of a process is its slowest, and it would also warm the HTTP code the baseline then uses.
  await inboxBacklog(inbox, -1);
  await baselineFlood();
  const rounds: { backlog: Row; baseline: Row }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const backlog = await inboxBacklog(inbox, round);
    const baseline = await baselineFlood();
    rounds.push({ backlog, baseline });
    console.log(`round ${round + 1}: inbox backlog ${fmt(backlog.deliveriesPerSec)}/s, baseline ${fmt(baseline.deliveriesPerSec)}/s (${fmt((100 * backlog.deliveriesPerSec) / baseline.deliveriesPerSec)}%)`);
  }
  const flood = await inboxFlood(inbox);
  const paced = await inboxPaced(inbox);
  await inbox.close();
  rmSync(dataDir, { recursive: true, force: true });
  const basePaced = await baselinePaced();

  const backlogRate = median(rounds.map((r) => r.backlog.deliveriesPerSec));
  const baselineRate = median(rounds.map((r) => r.baseline.deliveriesPerSec));
  const rows: Row[] = [
    { ...(rounds[0] as { backlog: Row }).backlog, side: `inbox: backlog (median of ${ROUNDS})`, deliveriesPerSec: backlogRate, p50: Number.NaN, p99: Number.NaN },
    flood,
    paced,
    { ...(rounds[0] as { baseline: Row }).baseline, side: `baseline: flood (median of ${ROUNDS})`, deliveriesPerSec: baselineRate, p50: Number.NaN, p99: Number.NaN },
    basePaced,
  ];
  console.log(`\nWebhooks: ${ENDPOINTS} endpoints on 127.0.0.1, ${EVENTS} events per flood, then ${RATE} events/s for ${SECONDS} s; concurrency ${CONCURRENCY}\n`);
  console.log('| side | events committed/s | deliveries/s | delivered (distinct) | latency p50 ms | latency p99 ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.side} | ${fmt(r.commitsPerSec)} | ${fmt(r.deliveriesPerSec)} | ${r.delivered} | ${fmt(r.p50)} | ${fmt(r.p99)} |`);
  // Each round's inbox run is compared with the baseline run right after it: the machine's speed drifts
  // between rounds (on these shared 2-core machines by ±30%) more than between the two runs of a round.
  const ratio = median(rounds.map((r) => r.backlog.deliveriesPerSec / r.baseline.deliveriesPerSec));
  console.log(
    `\nInbox deliveries/s = ${(ratio * 100).toFixed(0)}% of the baseline's (median of ${ROUNDS} rounds' ratios; ` +
      `${((100 * backlogRate) / baselineRate).toFixed(0)}% between the medians; goal ≥ 70%); paced p99 ${fmt(paced.p99)} ms (goal < 250 ms).`,
  );
  mkdirSync(join(root, 'results'), { recursive: true });
  const file = join(root, 'results', `webhooks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ endpoints: ENDPOINTS, events: EVENTS, rate: RATE, seconds: SECONDS, concurrency: CONCURRENCY, rounds, rows, ratio, ratioOfMedians: backlogRate / baselineRate }, null, 2));
  console.log(`Saved ${file}`);
} finally {
  receiverProcess.kill();
}
