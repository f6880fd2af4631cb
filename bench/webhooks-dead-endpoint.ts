/**
 * A dead receiver beside a healthy one (issue 35): how long the healthy endpoint's deliveries wait
 * when another endpoint accepts connections and never answers (each of its sends holds a slot for
 * the ten-second timeout), against the healthy endpoint alone, in the same run.
 *
 *   npx tsx bench/webhooks-dead-endpoint.ts [--events 300] [--rounds 2]
 *
 * Each round runs both sides, each in a fresh inbox (the dead endpoint's deliveries stay pending):
 * "alone" has the healthy endpoint only (the baseline); "beside a dead one" has the healthy endpoint
 * and a dead one. `events` message creates are committed as fast as possible, one transaction each,
 * with the dispatcher running; the healthy receiver (its own process, bench/webhooks-receiver.ts)
 * answers 204 at once. Measured: how long after the last create the healthy endpoint's last delivery
 * arrived, and each delivery's latency from its event's timestamp to its arrival.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitEvent, openBenchInbox, startReceivers } from './webhooks-harness.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const EVENTS = Number(args.get('events') ?? 300);
const ROUNDS = Number(args.get('rounds') ?? 2);
const root = new URL('.', import.meta.url).pathname;

interface Side {
  side: string;
  createsMs: number;
  /** The healthy endpoint's last delivery, after the last create. */
  lastAfterCreatesMs: number;
  p50: number;
  p99: number;
  delivered: string;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const receivers = await startReceivers(1, 1);
const healthy = receivers.urls[0] as string;
const dead = receivers.deadUrls[0] as string;

async function run(side: string, urls: string[]): Promise<Side> {
  const { inbox, dataDir } = await openBenchInbox(urls);
  try {
    await receivers.reset();
    const started = performance.now();
    for (let n = 0; n < EVENTS; n += 1) await commitEvent(inbox, `${side} ${n}`);
    const createsEndAt = Date.now();
    const createsMs = performance.now() - started;
    await receivers.wait(EVENTS, 120_000);
    const stats = await receivers.stats();
    return {
      side,
      createsMs,
      lastAfterCreatesMs: stats.lastAt - createsEndAt,
      p50: percentile(stats.latencies, 50),
      p99: percentile(stats.latencies, 99),
      delivered: `${stats.distinct}/${EVENTS}`,
    };
  } finally {
    // Waits for the dead endpoint's sends in flight to time out (at most ten seconds).
    await inbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  // Warm-up, not counted: connections, statements, JIT.
  await run('warm-up', [healthy]);
  const rounds: { alone: Side; beside: Side }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const alone = await run('alone', [healthy]);
    const beside = await run('beside a dead one', [healthy, dead]);
    rounds.push({ alone, beside });
    console.log(`round ${round + 1}: last delivery ${alone.lastAfterCreatesMs.toFixed(0)} ms after the creates alone, ${beside.lastAfterCreatesMs.toFixed(0)} ms beside a dead endpoint`);
  }
  console.log(`\nWebhooks: ${EVENTS} message creates, a healthy endpoint on 127.0.0.1 alone and beside one that never answers; median of ${ROUNDS} rounds\n`);
  console.log('| healthy endpoint | creates took ms | its last delivery after the creates, ms | latency p50 ms | latency p99 ms | delivered |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const key of ['alone', 'beside'] as const) {
    const sides = rounds.map((r) => r[key]);
    const fmt = (pick: (s: Side) => number) => median(sides.map(pick)).toFixed(0);
    console.log(`| ${sides[0]?.side} | ${fmt((s) => s.createsMs)} | ${fmt((s) => s.lastAfterCreatesMs)} | ${fmt((s) => s.p50)} | ${fmt((s) => s.p99)} | ${sides.map((s) => s.delivered).join(', ')} |`);
  }
  mkdirSync(join(root, 'results'), { recursive: true });
  const file = join(root, 'results', `webhooks-dead-endpoint-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ events: EVENTS, rounds }, null, 2));
  console.log(`Saved ${file}`);
} finally {
  receivers.stop();
}
