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
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Inbox } from '../packages/inbox/src/app.js';
import { CONCURRENCY, baselineSender, commitEvent, openBenchInbox, pool, queueBacklog, startReceivers, type ReceiverSummary } from './webhooks-harness.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const EVENTS = Number(args.get('events') ?? 1000);
const ENDPOINTS = Number(args.get('endpoints') ?? 10);
const RATE = Number(args.get('rate') ?? 50);
const SECONDS = Number(args.get('seconds') ?? 10);
/** Backlog and baseline floods alternate this many times; the machine's load drifts between runs. */
const ROUNDS = Number(args.get('rounds') ?? 5);
const root = new URL('.', import.meta.url).pathname;

type Stats = ReceiverSummary & { latencies: number[] };

const receivers = await startReceivers(ENDPOINTS);
const { urls } = receivers;
/** One long-poll until `expected` deliveries arrived, then the latencies. */
async function waitForDeliveries(expected: number): Promise<Stats> {
  await receivers.wait(expected);
  return receivers.stats();
}
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
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

async function inboxBacklog(inbox: Inbox, round: number): Promise<Row> {
  await queueBacklog(inbox, EVENTS, `backlog ${round}`);
  await receivers.reset();
  const startedAt = Date.now();
  await inbox.webhooks.start();
  return row('inbox: backlog', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt);
}

async function inboxFlood(inbox: Inbox): Promise<Row> {
  await receivers.reset();
  const started = performance.now();
  const startedAt = Date.now();
  for (let n = 0; n < EVENTS; n += 1) await commitEvent(inbox, `flood ${n}`);
  const commitsPerSec = EVENTS / ((performance.now() - started) / 1000);
  return row('inbox: flood while committing', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt, commitsPerSec);
}

async function inboxPaced(inbox: Inbox): Promise<Row> {
  await receivers.reset();
  const paced = await pacedRun((n) => commitEvent(inbox, `paced ${n}`));
  const s = await waitForDeliveries(paced.count * urls.length);
  return row(`inbox: ${RATE} events/s`, s, paced.count * urls.length, s.firstAt, paced.count / paced.seconds);
}

const baseline = baselineSender(urls);

async function baselineFlood(): Promise<Row> {
  await receivers.reset();
  const startedAt = Date.now();
  const bodies = Array.from({ length: EVENTS }, () => baseline.body(startedAt));
  await pool(bodies.flatMap(({ id, body }) => urls.map((_, index) => () => baseline.send(body, id, index))));
  return row('baseline: flood', await waitForDeliveries(EVENTS * urls.length), EVENTS * urls.length, startedAt);
}

async function baselinePaced(): Promise<Row> {
  await receivers.reset();
  const inFlight = new Set<Promise<unknown>>();
  const paced = await pacedRun(async () => {
    const { id, body } = baseline.body(Date.now());
    for (const [index] of urls.entries()) {
      const sending = baseline.send(body, id, index).finally(() => inFlight.delete(sending));
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
  const { inbox, dataDir } = await openBenchInbox(urls);
  // Warm-up, not counted: one whole round of each side (connections, statements, JIT). The first
  // drain of a process is its slowest, and it would also warm the HTTP code the baseline then uses.
  await inboxBacklog(inbox, -1);
  await baselineFlood();
  const rounds: { backlog: Row; baseline: Row }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const backlog = await inboxBacklog(inbox, round);
    const bare = await baselineFlood();
    rounds.push({ backlog, baseline: bare });
    console.log(`round ${round + 1}: inbox backlog ${fmt(backlog.deliveriesPerSec)}/s, baseline ${fmt(bare.deliveriesPerSec)}/s (${fmt((100 * backlog.deliveriesPerSec) / bare.deliveriesPerSec)}%)`);
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
  receivers.stop();
}
