/**
 * The inbox's backlog drain alone, for profiling the dispatcher (issue 4): `events` events committed
 * with the dispatcher stopped, then started; deliveries per second until the last arrives and the
 * sending process's CPU time per delivery, `rounds` times (after one uncounted warm-up round).
 *
 *   npx tsx bench/webhooks-drain.ts [--events 1000] [--endpoints 10] [--rounds 3]
 *   npx tsx bench/webhooks-drain.ts --baseline 1   (also the bare loop's rate and CPU per delivery)
 *   npx tsx bench/webhooks-drain.ts --sql 1        (time per SQL statement during the drains)
 *   npx tsx bench/webhooks-drain.ts --profile /tmp/drain   (/tmp/drain.<round>.cpuprofile, drains only)
 */
import { rmSync, writeFileSync } from 'node:fs';
import { baselineSender, openBenchInbox, pool, queueBacklog, startReceivers } from './webhooks-harness.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const EVENTS = Number(args.get('events') ?? 1000);
const ENDPOINTS = Number(args.get('endpoints') ?? 10);
const ROUNDS = Number(args.get('rounds') ?? 3);

const receivers = await startReceivers(ENDPOINTS);
const { urls } = receivers;

/** --sql 1: time spent in each SQL statement during the drains (better-sqlite3 is synchronous). */
const sqlTimes = new Map<string, { ms: number; calls: number }>();
let timing = false;
if (args.has('sql')) {
  const { openSqliteFile } = await import('@svc/shared');
  const Statement = Object.getPrototypeOf(openSqliteFile(':memory:').prepare('select 1')) as Record<string, unknown>;
  for (const method of ['all', 'run', 'get', 'iterate']) {
    const original = Statement[method] as (...a: unknown[]) => unknown;
    Statement[method] = function (this: { source: string }, ...a: unknown[]) {
      if (!timing) return original.apply(this, a);
      const t = performance.now();
      try {
        return original.apply(this, a);
      } finally {
        const key = this.source.slice(0, 90);
        const entry = sqlTimes.get(key) ?? { ms: 0, calls: 0 };
        entry.ms += performance.now() - t;
        entry.calls += 1;
        sqlTimes.set(key, entry);
      }
    };
  }
}

/** --profile <file>: a CPU profile of the drains only (not the commits before them). */
const profileFile = args.get('profile');
const inspector = profileFile ? new (await import('node:inspector/promises')).Session() : null;
if (inspector) {
  inspector.connect();
  await inspector.post('Profiler.enable');
}

const profiles: unknown[] = [];
const baselineProfiles: unknown[] = [];

/** The bare loop of bench/webhooks.ts (same client, concurrency, bodies ready): its CPU per delivery. */
const bare = baselineSender(urls);
async function baseline(): Promise<string> {
  await receivers.reset();
  if (inspector) await inspector.post('Profiler.start');
  const startedAt = Date.now();
  const cpu = process.cpuUsage();
  const bodies = Array.from({ length: EVENTS }, () => bare.body(startedAt));
  await pool(bodies.flatMap(({ id, body }) => urls.map((_, index) => () => bare.send(body, id, index))));
  const s = await receivers.wait(EVENTS * urls.length);
  const used = process.cpuUsage(cpu);
  if (inspector) baselineProfiles.push((await inspector.post('Profiler.stop')).profile);
  const seconds = (s.lastAt - startedAt) / 1000;
  return `baseline ${(s.received / seconds).toFixed(0)}/s, CPU ${((used.user + used.system) / 1000 / (EVENTS * urls.length)).toFixed(3)} ms per delivery`;
}
const { inbox, dataDir } = await openBenchInbox(urls);
try {
  for (let round = -1; round < ROUNDS; round += 1) {
    // Round -1 warms up (connections, statements, JIT) as a whole round: the first drain is the slowest.
    await queueBacklog(inbox, EVENTS, `drain ${round}`);
    await receivers.reset();
    const startedAt = Date.now();
    const cpu = process.cpuUsage();
    timing = round >= 0;
    if (inspector && round >= 0) await inspector.post('Profiler.start');
    await inbox.webhooks.start();
    const s = await receivers.wait(EVENTS * urls.length);
    timing = false;
    if (inspector && round >= 0) profiles.push((await inspector.post('Profiler.stop')).profile);
    const used = process.cpuUsage(cpu);
    const seconds = (s.lastAt - startedAt) / 1000;
    // Every delivery should have succeeded on its first attempt (outcomes are all written once stopped).
    await inbox.webhooks.stop();
    const retried = (await inbox.store.webhooks.listDeliveries({}, { limit: 1_000_000 })).filter((d) => d.attempts !== 1 || d.status !== 'succeeded');
    if (retried.length > 0) {
      const reasons: Record<string, number> = {};
      for (const d of retried) {
        const key = `${d.status}, ${d.attempts} attempts: ${d.lastError ?? ''}`.slice(0, 120);
        reasons[key] = (reasons[key] ?? 0) + 1;
      }
      console.log(`after round ${round + 1}: ${retried.length} deliveries in all not done in one attempt`, reasons);
    }
    if (round >= 0) {
      console.log(
        `round ${round + 1}: ${s.distinct}/${EVENTS * urls.length} in ${seconds.toFixed(2)} s = ${(s.received / seconds).toFixed(0)}/s; ` +
          `sender CPU ${((used.user + used.system) / 1000 / (EVENTS * urls.length)).toFixed(3)} ms per delivery` +
          (args.has('baseline') ? `; ${await baseline()}` : ''),
      );
    }
  }
  await inbox.close();
  profiles.forEach((profile, n) => writeFileSync(`${profileFile}.${n + 1}.cpuprofile`, JSON.stringify(profile)));
  baselineProfiles.forEach((profile, n) => writeFileSync(`${profileFile}.baseline.${n + 1}.cpuprofile`, JSON.stringify(profile)));
  if (sqlTimes.size > 0) {
    for (const [text, { ms, calls }] of [...sqlTimes].sort((a, b) => b[1].ms - a[1].ms)) console.log(`${ms.toFixed(0).padStart(6)} ms ${String(calls).padStart(6)} calls  ${text}`);
  }
} finally {
  receivers.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
