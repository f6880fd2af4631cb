/**
 * Inbox benchmark (issue 11): public creates of each type, owner moves, the owner's list and
 * public reads, each beside its baseline in the same run:
 *
 * - writes beside a bare Fastify route that parses the same JSON and inserts one row with a unique
 *   key into SQLite (WAL, synchronous NORMAL) in a transaction (bench/inbox-baseline-server.ts);
 * - reads beside a bare Fastify route serving the same bytes.
 *
 *   npx tsx bench/inbox.ts [--duration 5] [--warmup 1] [--connections 16] [--rounds 1] [--cases messages,bookings,...] [--profile <case>]
 *
 * The inbox runs as `npm start` runs it (bench/inbox-server.ts: demo business, LOG_LEVEL info unless
 * the environment says otherwise, jobs and webhook dispatcher on) from the compiled code, on a fresh
 * data folder, in its own process; the baselines in another; autocannon drives both from this one,
 * all on 127.0.0.1. Each case runs right beside its baseline (writes after a bare insert run, reads
 * before the same bytes), so both see the machine alike; `--rounds N` repeats everything N times on
 * the same servers and reports each figure as median (min–max). Every write carries a fresh
 * idempotency key, and every request must get the expected status (201 for creates, 200 otherwise):
 * anything else is counted as an error. `--profile messages` writes a CPU profile of that case's load
 * to bench/results/ (summarise it with bench/cpuprofile-summary.ts).
 * Results go to bench/results/inbox-<time>.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const durationSec = Number(args.get('duration') ?? 5);
const warmupSec = Number(args.get('warmup') ?? 1);
const connections = Number(args.get('connections') ?? 16);
const profileCase = args.get('profile');
const rounds = Number(args.get('rounds') ?? 1);
const root = new URL('.', import.meta.url).pathname;
const resultsDir = join(root, 'results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');

if (args.get('build') !== 'false') execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

interface Started {
  child: ChildProcess;
  info: Record<string, unknown>;
  lines: Record<string, unknown>[];
}

/** Starts a bench server; it reports JSON lines on fd 3 (its stdout carries the inbox's request log, discarded). */
async function startProcess(script: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const reader = createInterface({ input: child.stdio[3] as Readable });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    reader.on('line', (line) => {
      const info = JSON.parse(line) as Record<string, unknown>;
      lines.push(info);
      if (info.ready) resolve({ child, info, lines });
    });
  });
}

async function stop(started: Started): Promise<void> {
  started.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    started.child.once('close', () => resolve());
    started.child.kill('SIGTERM');
  });
}

interface Measured {
  name: string;
  method: string;
  path: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  load: number;
  /** Requests sent by the case, warm-up included (its request counter at the end). */
  sent: number;
  /** The server's CPU time per request of the measured run (µs): steadier than req/s on a busy machine. */
  cpuPerRequest: number;
}

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A fresh body per request (n counts from 0 for the case, warm-up included). */
  body?: (n: number) => unknown;
  /** A fresh path per request. */
  pathOf?: (n: number) => string;
  expect: number;
  /** Where the case's request counter starts (a case run again goes on from where it stopped). */
  startAt?: number;
}

async function run(base: string, c: Case, seconds: number, counter: { n: number }): Promise<autocannon.Result> {
  const headers = { ...(c.body ? { 'content-type': 'application/json' } : {}), ...c.headers };
  return autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: c.method,
        path: c.path,
        headers,
        ...(c.body || c.pathOf
          ? {
              setupRequest: (request: autocannon.Request) => {
                const n = counter.n++;
                return { ...request, ...(c.pathOf ? { path: c.pathOf(n) } : {}), ...(c.body ? { body: JSON.stringify(c.body(n)) } : {}) };
              },
            }
          : {}),
      },
    ],
  });
}

async function measure(server: Started, c: Case, signal?: () => void): Promise<Measured> {
  const base = String(server.info.address);
  const counter = { n: c.startAt ?? 0 };
  if (warmupSec > 0) await run(base, c, warmupSec, counter);
  signal?.();
  const cpuBefore = await cpuOf(server);
  const result = await run(base, c, durationSec, counter);
  const cpuAfter = await cpuOf(server);
  signal?.();
  const statuses: Record<string, number> = {};
  let wrong = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statuses[status] = count ?? 0;
    if (Number(status) !== c.expect) wrong += count ?? 0;
  }
  return {
    name: c.name,
    method: c.method,
    path: c.path,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + wrong,
    statuses,
    load: Math.round(loadavg()[0]! * 100) / 100,
    sent: counter.n,
    cpuPerRequest: Math.round(((cpuAfter - cpuBefore) / Math.max(1, result.requests.total)) * 10) / 10,
  };
}

/** The server's CPU time so far (µs), asked for with SIGHUP (bench servers answer on fd 3). */
async function cpuOf(server: Started): Promise<number> {
  const seen = server.lines.length;
  server.child.kill('SIGHUP');
  for (;;) {
    const line = server.lines.slice(seen).find((l) => typeof l.cpuMicros === 'number');
    if (line) return Number(line.cpuMicros);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function line(m: Measured): string {
  return `${m.name.padEnd(34)} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(3)} ms  p99 ${String(m.p99).padStart(3)} ms  cpu ${String(m.cpuPerRequest).padStart(6)} µs/req  errors ${m.errors}`;
}

// ---- servers ------------------------------------------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), 'bench-inbox-'));
// INBOX_RATE_LIMIT=0: burst limits off, the bench is one client sending as fast as it can (docs/security.md).
const inboxEnv: Record<string, string> = { DATA_DIR: dataDir, INBOX_PORT: '0', INBOX_RATE_LIMIT: '0', ...(profileCase ? { BENCH_PROFILE: join(resultsDir, `inbox-${stamp}-${profileCase}`) } : {}) };
delete process.env.VALIDATE_OUTPUT; // set in tests only; the bench measures what `npm start` serves
const inbox = await startProcess('inbox-server.ts', inboxEnv);
const base = String(inbox.info.address);
const ownerKey = String(inbox.info.ownerKey);
const owner = { authorization: `Bearer ${ownerKey}` };
console.log(`inbox ready in ${inbox.info.prepareMs} ms on ${process.version} (data ${dataDir}, LOG_LEVEL ${process.env.LOG_LEVEL ?? 'info (default)'})`);

// Public read bytes, for the baseline to serve the same. Availability: a week of the haircut, from tomorrow.
const isoDay = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const reads: [string, string, string][] = [
  ['GET /v1/services', '/v1/services', 'services'],
  ['GET /v1/business', '/v1/business', 'business'],
  ['GET /v1/products', '/v1/products', 'products'],
  ['GET /v1/availability (7 days)', `/v1/availability?service=haircut&from=${isoDay(1)}&to=${isoDay(7)}`, 'availability'],
];
const bytesDir = mkdtempSync(join(tmpdir(), 'bench-inbox-bytes-'));
const readBytes: Record<string, number> = {};
for (const [, path, file] of reads) {
  const response = await fetch(`${base}${path}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  readBytes[path] = Buffer.byteLength(text);
  writeFileSync(join(bytesDir, `${file}.json`), text);
}
const baseline = await startProcess('inbox-baseline-server.ts', { BYTES_DIR: bytesDir });

// Free start times for bookings, from the inbox's own availability (from tomorrow, a week).
const slots: { serviceId: string; startTime: string }[] = [];
for (const serviceId of ['haircut', 'beard-trim']) {
  const response = await fetch(`${base}/v1/availability?service=${serviceId}&from=${isoDay(1)}&to=${isoDay(8)}`);
  const answer = (await response.json()) as { slots: { start: string }[] };
  for (const slot of answer.slots) slots.push({ serviceId, startTime: slot.start });
}
if (slots.length === 0) throw new Error('no free slots');

const run32 = Math.random().toString(36).slice(2, 8);
const key = (kind: string, n: number): string => `bench-${run32}-${kind}-${n}`;
const contact = (n: number) => ({ name: `Customer ${n}`, email: `customer${n}@example.com` });

const createCases: Case[] = [
  {
    name: 'POST /v1/messages',
    method: 'POST',
    path: '/v1/messages',
    expect: 201,
    body: (n) => ({ message: `Hello, do you have time on Saturday for two people? (${n})`, payload: { subject: 'Saturday' }, contact: contact(n), idempotency_key: key('m', n) }),
  },
  {
    name: 'POST /v1/bookings',
    method: 'POST',
    path: '/v1/bookings',
    expect: 201,
    body: (n) => ({ payload: { ...slots[n % slots.length]!, partySize: 1 }, contact: contact(n), idempotency_key: key('b', n) }),
  },
  {
    name: 'POST /v1/orders',
    method: 'POST',
    path: '/v1/orders',
    expect: 201,
    body: (n) => ({
      payload: { lines: [{ productId: 'argan-shampoo', quantity: 2 }, { sku: 'AUR-CB-01', quantity: 1 }], description: 'Pick up on Friday' },
      contact: contact(n),
      idempotency_key: key('o', n),
    }),
  },
  {
    name: 'POST /v1/quotes',
    method: 'POST',
    path: '/v1/quotes',
    expect: 201,
    body: (n) => ({ payload: { description: `Bridal styling for a wedding party of four (${n})`, serviceId: 'bridal-styling' }, contact: contact(n), idempotency_key: key('q', n) }),
  },
];

const selected = args.get('cases')?.split(',');
const wanted = (name: string): boolean => !selected || selected.some((s) => name.includes(s));

// ---- measure ------------------------------------------------------------------------------------
const insertCase: Case = { name: 'baseline: bare insert', method: 'POST', path: '/insert', expect: 201, body: createCases[0]!.body };
interface Result {
  round: number;
  case: Measured;
  baseline: Measured;
  share: number;
  /** The baseline's CPU per request over the case's, in %: the share the case would have if both had a core to themselves. */
  cpuShare: number;
  goal: string | null;
}
const results: Result[] = [];
const profileSignal = (name: string) => (profileCase && name.includes(profileCase) ? () => inbox.child.kill('SIGUSR2') : undefined);

const writeGoal = (m: Measured, b: Measured): string =>
  m.errors === 0 && m.rps >= b.rps * 0.5 && m.p99 < 25 ? 'met' : `NOT met (${[m.rps < b.rps * 0.5 ? 'under 50%' : '', m.p99 >= 25 ? 'p99 ≥ 25 ms' : '', m.errors ? 'errors' : ''].filter(Boolean).join(', ')})`;
const readGoal = (m: Measured, b: Measured): string => (m.errors === 0 && m.rps >= b.rps * 0.5 ? 'met' : `NOT met (${m.errors ? 'errors' : 'under 50%'})`);

function record(round: number, m: Measured, b: Measured, goal: string | null): void {
  console.log(line(m));
  console.log(line(b));
  results.push({ round, case: m, baseline: b, share: Math.round((m.rps / b.rps) * 1000) / 10, cpuShare: Math.round((b.cpuPerRequest / m.cpuPerRequest) * 1000) / 10, goal });
}

/** Owner moves: open messages answered, then closed, then reopened, one item per request. */
const moveIds: string[] = [];
async function ownerMoves(startAt: number): Promise<Case> {
  // The same messages every round (fetched once), so each gets the next event of its cycle.
  const ids = moveIds;
  if (ids.length > 0) return moveCase(ids, startAt);
  let cursor: string | null = null;
  do {
    const response = await fetch(`${base}/v1/owner/items?type=message&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: owner });
    const page = (await response.json()) as { items: { id: string }[]; next_cursor: string | null };
    ids.push(...page.items.map((item) => item.id));
    cursor = page.next_cursor;
  } while (cursor && ids.length < 20_000);
  if (ids.length < connections * 4) {
    for (let n = 0; ids.length < 2_000; n += 1) {
      const response = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(createCases[0]!.body!(1_000_000 + n)) });
      ids.push(((await response.json()) as { id: string }).id);
    }
  }
  console.log(`(owner moves over ${ids.length} messages)`);
  return moveCase(ids, startAt);
}

function moveCase(ids: string[], startAt: number): Case {
  const events = ['answer', 'close', 'reopen'];
  return {
    name: 'POST /v1/owner/items/{id}/transitions',
    method: 'POST',
    path: '/v1/owner/items/x/transitions',
    headers: owner,
    expect: 200,
    pathOf: (n) => `/v1/owner/items/${ids[n % ids.length]}/transitions`,
    body: (n) => ({ event: events[Math.floor(n / ids.length) % 3], idempotency_key: key('t', n) }),
    startAt,
  };
}
/** Owner moves go on where the last round stopped, so each item gets the next event of its cycle. */
let movesSent = 0;

// Writes: each case right after a bare insert run, so the two see the machine alike.
for (let round = 1; round <= rounds; round++) {
  if (rounds > 1) console.log(`\n-- round ${round} of ${rounds} (writes), load ${loadavg()[0]!.toFixed(2)}`);
  for (const c of createCases) {
    if (!wanted(c.name)) continue;
    const b = await measure(baseline, insertCase);
    const m = await measure(inbox, { ...c, body: (n) => c.body!(round * 10_000_000 + n) }, profileSignal(c.name));
    record(round, m, b, writeGoal(m, b));
  }
  if (wanted('owner moves')) {
    const move = await ownerMoves(movesSent);
    const b = await measure(baseline, insertCase);
    const m = await measure(inbox, move, profileSignal(move.name));
    movesSent = m.sent;
    record(round, m, b, null);
  }
}

if (wanted('owner list')) {
  const path = '/v1/owner/items';
  const text = await (await fetch(`${base}${path}`, { headers: owner })).text();
  writeFileSync(join(bytesDir, 'owner-items.json'), text);
  readBytes[path] = Buffer.byteLength(text);
}
// The baselines again, now serving the owner list's bytes too.
await stop(baseline);
const baseline2 = await startProcess('inbox-baseline-server.ts', { BYTES_DIR: bytesDir });

const readCases: [Case, string][] = reads.map(([name, path, file]) => [{ name, method: 'GET', path, expect: 200 }, `/bytes/${file}`]);
if (wanted('owner list')) readCases.push([{ name: 'GET /v1/owner/items', method: 'GET', path: '/v1/owner/items', headers: owner, expect: 200 }, '/bytes/owner-items']);
for (let round = 1; round <= rounds; round++) {
  if (rounds > 1) console.log(`\n-- round ${round} of ${rounds} (reads), load ${loadavg()[0]!.toFixed(2)}`);
  for (const [c, bytesPath] of readCases) {
    if (!wanted(c.name)) continue;
    const m = await measure(inbox, c, profileSignal(c.name));
    const b = await measure(baseline2, { name: `baseline: same bytes (${readBytes[c.path]} B)`, method: 'GET', path: bytesPath, expect: 200 });
    record(round, m, b, c.path.startsWith('/v1/owner') ? null : readGoal(m, b));
  }
}
await stop(baseline2);
await stop(inbox);
// The inbox's data (its secret key included) and the captured bytes are the run's own: not left behind.
rmSync(dataDir, { recursive: true, force: true });
rmSync(bytesDir, { recursive: true, force: true });

// ---- report -------------------------------------------------------------------------------------
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 10) / 10;
};
const spread = (values: number[]): string => (values.length > 1 ? `${median(values)} (${Math.min(...values)}–${Math.max(...values)})` : String(values[0]));

console.log(`\nNode ${process.version}, ${connections} connections, ${durationSec} s a case (after ${warmupSec} s of warm-up), ${rounds} round(s); load at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`${'case'.padEnd(40)} ${'req/s'.padStart(18)} ${'p99 ms'.padStart(14)} ${'baseline req/s'.padStart(22)} ${'share %'.padStart(18)} ${'cpu µs/req'.padStart(20)} ${'cpu share %'.padStart(18)}  goal`);
const names = [...new Set(results.map((r) => r.case.name))];
const summary = names.map((name) => {
  const of = results.filter((r) => r.case.name === name);
  const goals = of.map((r) => r.goal);
  const row = {
    name,
    rps: of.map((r) => r.case.rps),
    p99: of.map((r) => r.case.p99),
    baseline: of.map((r) => r.baseline.rps),
    share: of.map((r) => r.share),
    cpu: of.map((r) => r.case.cpuPerRequest),
    baselineCpu: of.map((r) => r.baseline.cpuPerRequest),
    cpuShare: of.map((r) => r.cpuShare),
    goal: goals[0] === null ? null : `${goals.filter((g) => g === 'met').length}/${goals.length} met`,
    errors: of.reduce((sum, r) => sum + r.case.errors, 0),
  };
  console.log(
    `${name.padEnd(40)} ${spread(row.rps).padStart(18)} ${spread(row.p99).padStart(14)} ${spread(row.baseline).padStart(22)} ${spread(row.share).padStart(18)} ${spread(row.cpu).padStart(20)} ${spread(row.cpuShare).padStart(18)}  ${row.goal ?? '(no goal)'}${row.errors ? `  ERRORS ${row.errors}` : ''}`,
  );
  return row;
});
const file = join(resultsDir, `inbox-${stamp}.json`);
writeFileSync(
  file,
  JSON.stringify({ node: process.version, connections, durationSec, warmupSec, rounds, logLevel: process.env.LOG_LEVEL ?? 'info', load: loadavg(), readBytes, summary, results }, null, 2),
);
console.log(`\nwrote ${file}`);
