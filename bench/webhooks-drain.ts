/**
 * The inbox's backlog drain alone, for profiling the dispatcher (issue 4): `events` events committed
 * with the dispatcher stopped, then started; deliveries per second until the last arrives and the
 * sending process's CPU time per delivery, `rounds` times (after a smaller warm-up round).
 *
 *   npx tsx bench/webhooks-drain.ts [--events 1000] [--endpoints 10] [--rounds 3]
 *   npx tsx bench/webhooks-drain.ts --baseline 1   (also the bare loop's rate and CPU per delivery)
 *   npx tsx bench/webhooks-drain.ts --sql 1        (time per SQL statement during the drains)
 *   npx tsx bench/webhooks-drain.ts --profile /tmp/drain   (/tmp/drain.<round>.cpuprofile, drains only)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { newId } from '@svc/shared';
import { buildInbox } from '../packages/inbox/src/app.js';
import { thinEnvelope } from '../packages/inbox/src/domain/events/event-body.js';
import { insertItem } from '../packages/inbox/src/domain/items/item-writer.js';
import { createEndpoint } from '../packages/inbox/src/domain/webhooks/endpoints.js';
import { newSigningSecret } from '../packages/inbox/src/domain/webhooks/signing.js';
import { sendSigned } from '../packages/inbox/src/webhooks/attempt.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const EVENTS = Number(args.get('events') ?? 1000);
const ENDPOINTS = Number(args.get('endpoints') ?? 10);
const ROUNDS = Number(args.get('rounds') ?? 3);
const root = new URL('.', import.meta.url).pathname;

const receiverProcess = spawn(process.execPath, ['--import', 'tsx', join(root, 'webhooks-receiver.ts'), String(ENDPOINTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
const { urls, control } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: receiverProcess.stdout }).once('line', resolve))) as { urls: string[]; control: string };
const controlCall = (path: string, method: 'GET' | 'POST') => fetch(`${control}${path}`, { method, headers: { connection: 'close' } });
const reset = async () => void (await (await controlCall('/reset', 'POST')).text());
/** One long-poll until `expected` deliveries arrived: polling would load the side being measured. */
async function waitFor(expected: number, timeoutMs = 60_000) {
  return (await (await controlCall(`/wait?count=${expected}&timeoutMs=${timeoutMs}`, 'GET')).json()) as { received: number; distinct: number; lastAt: number };
}

/** --sql 1: time spent in each SQL statement during the drains (better-sqlite3 is synchronous). */
const sqlTimes = new Map<string, { ms: number; calls: number }>();
let timing = false;
if (args.has('sql')) {
  const SQLite = (await import('better-sqlite3')).default as unknown as { prototype: unknown };
  const Statement = Object.getPrototypeOf((new (SQLite as unknown as new (f: string) => { prepare(s: string): object })(':memory:')).prepare('select 1')) as Record<string, unknown>;
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

const mover = { actor: { kind: 'system' as const, id: null, name: 'bench' }, channel: 'system' };

const profiles: unknown[] = [];
const baselineProfiles: unknown[] = [];

/** The bare loop of bench/webhooks.ts (same client, concurrency 64, bodies ready): its CPU per delivery. */
async function baseline(events: number): Promise<string> {
  await reset();
  if (inspector) await inspector.post('Profiler.start');
  const startedAt = Date.now();
  const cpu = process.cpuUsage();
  const secrets = urls.map(() => [newSigningSecret()]);
  const jobs = Array.from({ length: events }, () => {
    const id = newId(startedAt);
    const event = { id, itemId: newId(startedAt), seq: 1, type: 'message.create', event: 'create', fromState: null, toState: 'open', version: 1, actor: mover.actor, channel: 'system', sandbox: false, reason: null, data: null, createdAt: startedAt };
    return { id, body: JSON.stringify(thinEnvelope(event, 'http://127.0.0.1')) };
  }).flatMap(({ id, body }) =>
    urls.map((url, index) => () => sendSigned({ url, webhookId: id, eventType: 'message.create', attempt: 1, body, secrets: secrets[index] as string[], extraHeaders: {}, timestampSec: Math.floor(Date.now() / 1000) }, true)),
  );
  let next = 0;
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<unknown>)();
  }));
  const s = await waitFor(events * urls.length);
  const used = process.cpuUsage(cpu);
  if (inspector) baselineProfiles.push((await inspector.post('Profiler.stop')).profile);
  const seconds = (s.lastAt - startedAt) / 1000;
  return `baseline ${(s.received / seconds).toFixed(0)}/s, CPU ${((used.user + used.system) / 1000 / (events * urls.length)).toFixed(3)} ms per delivery`;
}
const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-drain-'));
try {
  const inbox = await buildInbox({ dataDir, publicBaseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runWebhooks: true, allowLocalWebhooks: true });
  for (const url of urls) await inbox.store.transaction((store) => createEndpoint({ store, clock: inbox.clock }, { secrets: inbox.secrets, urls: { allowLocal: true } }, { url }));
  for (let round = -1; round < ROUNDS; round += 1) {
    // Round -1 warms up (connections, statements, JIT) as a whole round: the first drain is the slowest.
    const events = EVENTS;
    await inbox.webhooks.stop();
    await inbox.store.transaction(async (store) => {
      for (let n = 0; n < events; n += 1) {
        await insertItem({ store, clock: inbox.clock }, mover, { type: 'message', payload: { subject: `drain ${round} ${n}` }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'bench' });
      }
    });
    await reset();
    const startedAt = Date.now();
    const cpu = process.cpuUsage();
    timing = round >= 0;
    if (inspector && round >= 0) await inspector.post('Profiler.start');
    await inbox.webhooks.start();
    const s = await waitFor(events * urls.length);
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
        `round ${round + 1}: ${s.distinct}/${events * urls.length} in ${seconds.toFixed(2)} s = ${(s.received / seconds).toFixed(0)}/s; ` +
          `sender CPU ${((used.user + used.system) / 1000 / (events * urls.length)).toFixed(3)} ms per delivery` +
          (args.has('baseline') ? `; ${await baseline(events)}` : ''),
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
  receiverProcess.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
