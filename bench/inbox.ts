/**
 * Inbox benchmark (issue 11): public creates of each type, owner moves, the owner's list and
 * public reads, each beside its baseline in the same run:
 *
 * - writes beside a bare Fastify route that parses the same JSON and inserts one row with a unique
 *   key into SQLite (WAL, synchronous NORMAL) in a transaction (bench/inbox-baseline-server.ts);
 * - reads beside a bare Fastify route serving the same bytes.
 *
 *   npx tsx bench/inbox.ts [--duration 5] [--warmup 1] [--connections 16] [--cases messages,bookings,...] [--profile <case>]
 *
 * The inbox runs as `npm start` runs it (bench/inbox-server.ts: demo business, LOG_LEVEL info unless
 * the environment says otherwise, jobs and webhook dispatcher on) from the compiled code, on a fresh
 * data folder, in its own process; the baselines in another; autocannon drives both from this one,
 * all on 127.0.0.1. Every write carries a fresh idempotency key, and every request must get the
 * expected status (201 for creates, 200 otherwise): anything else is counted as an error.
 * `--profile messages` writes a CPU profile of that case's load to bench/results/.
 * Results go to bench/results/inbox-<time>.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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

async function measure(base: string, c: Case, signal?: () => void): Promise<Measured> {
  const counter = { n: 0 };
  if (warmupSec > 0) await run(base, c, warmupSec, counter);
  signal?.();
  const result = await run(base, c, durationSec, counter);
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
  };
}

function line(m: Measured): string {
  return `${m.name.padEnd(34)} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(3)} ms  p99 ${String(m.p99).padStart(3)} ms  errors ${m.errors}`;
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

// Public read bytes, for the baseline to serve the same.
const reads: [string, string][] = [
  ['GET /v1/services', '/v1/services'],
  ['GET /v1/business', '/v1/business'],
  ['GET /v1/products', '/v1/products'],
];
const bytesDir = mkdtempSync(join(tmpdir(), 'bench-inbox-bytes-'));
const readBytes: Record<string, number> = {};
for (const [, path] of reads) {
  const response = await fetch(`${base}${path}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  readBytes[path] = Buffer.byteLength(text);
  writeFileSync(join(bytesDir, `${path.split('/').pop()}.json`), text);
}
const baseline = await startProcess('inbox-baseline-server.ts', { BYTES_DIR: bytesDir });
const baselineBase = String(baseline.info.address);

// Free start times for bookings, from the inbox's own availability (from tomorrow, a week).
const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const slots: { serviceId: string; startTime: string }[] = [];
for (const serviceId of ['haircut', 'beard-trim']) {
  const response = await fetch(`${base}/v1/availability?service=${serviceId}&from=${day(1)}&to=${day(8)}`);
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
const results: { case: Measured; baseline: Measured; goal: string | null }[] = [];
const profileSignal = (name: string) => (profileCase && name.includes(profileCase) ? () => inbox.child.kill('SIGUSR2') : undefined);
const insertBaselines: Measured[] = [];
async function insertBaseline(): Promise<Measured> {
  const m = await measure(baselineBase, insertCase);
  insertBaselines.push(m);
  console.log(line(m));
  return m;
}

const writeGoal = (m: Measured, b: Measured): string =>
  m.errors === 0 && m.rps >= b.rps * 0.5 && m.p99 < 25 ? 'met' : `NOT met (${[m.rps < b.rps * 0.5 ? 'under 50%' : '', m.p99 >= 25 ? 'p99 ≥ 25 ms' : '', m.errors ? 'errors' : ''].filter(Boolean).join(', ')})`;

let insertB = await insertBaseline();
for (const c of createCases) {
  if (!wanted(c.name)) continue;
  const m = await measure(base, c, profileSignal(c.name));
  console.log(line(m));
  results.push({ case: m, baseline: insertB, goal: writeGoal(m, insertB) });
}

// Owner moves: open messages answered, then closed, then reopened, one item per request.
if (wanted('owner moves')) {
  const ids: string[] = [];
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
  const events = ['answer', 'close', 'reopen'];
  const move: Case = {
    name: 'POST /v1/owner/items/{id}/transitions',
    method: 'POST',
    path: '/v1/owner/items/x/transitions',
    headers: owner,
    expect: 200,
    pathOf: (n) => `/v1/owner/items/${ids[n % ids.length]}/transitions`,
    body: (n) => ({ event: events[Math.floor(n / ids.length) % 3], idempotency_key: key('t', n) }),
  };
  const m = await measure(base, move, profileSignal(move.name));
  console.log(`${line(m)}  (${ids.length} messages)`);
  results.push({ case: m, baseline: insertB, goal: null });
}

insertB = await insertBaseline();

if (wanted('owner list')) {
  const path = '/v1/owner/items';
  const text = await (await fetch(`${base}${path}`, { headers: owner })).text();
  writeFileSync(join(bytesDir, 'owner-items.json'), text);
  readBytes[path] = Buffer.byteLength(text);
}
await stop(baseline);
const baseline2 = await startProcess('inbox-baseline-server.ts', { BYTES_DIR: bytesDir });
const baseline2Base = String(baseline2.info.address);

const readCases: [Case, string][] = reads.map(([name, path]) => [{ name, method: 'GET', path, expect: 200 }, `/bytes/${path.split('/').pop()}`]);
if (wanted('owner list')) readCases.push([{ name: 'GET /v1/owner/items', method: 'GET', path: '/v1/owner/items', headers: owner, expect: 200 }, '/bytes/owner-items']);
for (const [c, bytesPath] of readCases) {
  if (!wanted(c.name)) continue;
  const m = await measure(base, c, profileSignal(c.name));
  const b = await measure(baseline2Base, { name: `baseline: same bytes (${readBytes[c.path]} B)`, method: 'GET', path: bytesPath, expect: 200 });
  console.log(line(m));
  console.log(line(b));
  const isPublic = !c.path.startsWith('/v1/owner');
  results.push({ case: m, baseline: b, goal: isPublic ? (m.errors === 0 && m.rps >= b.rps * 0.5 ? 'met' : 'NOT met (under 50%)') : null });
}
await stop(baseline2);
await stop(inbox);

// ---- report -------------------------------------------------------------------------------------
console.log(`\nNode ${process.version}, ${connections} connections, ${durationSec} s a case (after ${warmupSec} s of warm-up)`);
console.log(`${'case'.padEnd(40)} ${'req/s'.padStart(6)} ${'p50'.padStart(4)} ${'p99'.padStart(4)}  ${'baseline'.padStart(8)}  share  goal`);
for (const r of results) {
  const share = ((r.case.rps / r.baseline.rps) * 100).toFixed(0);
  console.log(
    `${r.case.name.padEnd(40)} ${String(r.case.rps).padStart(6)} ${String(r.case.p50).padStart(4)} ${String(r.case.p99).padStart(4)}  ${String(r.baseline.rps).padStart(8)}  ${share.padStart(4)}%  ${r.goal ?? '(no goal)'}${r.case.errors ? `  ERRORS ${r.case.errors} ${JSON.stringify(r.case.statuses)}` : ''}`,
  );
}
const file = join(resultsDir, `inbox-${stamp}.json`);
writeFileSync(
  file,
  JSON.stringify({ node: process.version, connections, durationSec, warmupSec, logLevel: process.env.LOG_LEVEL ?? 'info', insertBaselines, readBytes, results }, null, 2),
);
console.log(`\nwrote ${file}`);
