/**
 * Receipt intake at the directory (issue 13: at least 50% of a bare route that verifies one Ed25519
 * signature and inserts one row, same run, p99 under 25 ms). Two servers in their own processes:
 * the directory (receipt-intake-server.ts, compiled code, burst budgets off: DIRECTORY_RATE_LIMIT=0)
 * with a verified inbox, and the bare route (receipt-intake-baseline-server.ts). autocannon drives
 * both from this process on 127.0.0.1 with 16 connections, alternating rounds so both see the same
 * machine. Every request is new: signed calls are refused when replayed and receipts are held once,
 * so each round's requests are made before it starts (signed as the inbox signs them, receipts and
 * acknowledgements included) and handed out one by one.
 *
 *   npm run build && npx tsx bench/receipt-intake.ts [--duration 5] [--rounds 3] [--profile <dir>]
 *
 * Besides req/s and latency: each round's share against the bare round beside it, the CPU each request
 * cost the server (all threads, and the event loop alone, from /proc on Linux) and the load average.
 * The contract takes one receipt per call (docs/receipts.md "Publication"), so there is no batch case.
 *
 * Cases: a receipt alone (two signatures to verify: the call's and the receipt's); a receipt with its
 * customer's acknowledgement (three); the bare route (one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { randomBytes, sign } from 'node:crypto';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  RECEIPT_ACK_TYP,
  RECEIPT_TYP,
  ed25519PrivateKey,
  generateEd25519Key,
  receiptSha256,
  signCompactJws,
  signInstanceRequest,
} from '../packages/shared/src/index.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const duration = option('duration', 5);
/** --profile <dir>: the directory writes a CPU profile there when it stops. */
const profileDir = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : undefined;
const rounds = option('rounds', 3);
const connections = 16;
const root = new URL('.', import.meta.url).pathname;

const inboxKey = generateEd25519Key();
const baselineKey = generateEd25519Key();
const agentKey = generateEd25519Key();

interface Server {
  child: ChildProcess;
  address: string;
  inboxOrigin?: string;
}

async function server(file: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const reader = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    reader.once('line', (line) => resolve({ child, ...(JSON.parse(line) as { address: string; inboxOrigin?: string }) }));
  });
}

const [directory, baseline] = await Promise.all([
  server(
    'receipt-intake-server.ts',
    { BENCH_INBOX_KEY: JSON.stringify(inboxKey.privateJwk), DIRECTORY_RATE_LIMIT: '0' },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  ),
  server('receipt-intake-baseline-server.ts', { BENCH_BASELINE_KEY: JSON.stringify(baselineKey.publicJwk) }),
]);
const inboxOrigin = directory.inboxOrigin as string;
const inboxPrivate = ed25519PrivateKey(inboxKey.privateJwk);
const agentPrivate = ed25519PrivateKey(agentKey.privateJwk);
const baselinePrivate = ed25519PrivateKey(baselineKey.privateJwk);

type Prepared = { method: 'POST'; path: string; headers: Record<string, string>; body: string };

/** A receipt publication as the inbox sends it: a new receipt, optionally acknowledged, the call signed. */
function publication(withAck: boolean): Prepared {
  const iat = Math.floor(Date.now() / 1000);
  const nonce = randomBytes(16).toString('hex');
  const claims = { ver: 2, iss: inboxOrigin, sub: randomBytes(8).toString('base64url'), itm: `item-${nonce.slice(0, 8)}`, typ: 'booking', knd: 'confirmed', iat, nonce, due: iat + 86_400, end: iat + 90_000, evt: 'booking.confirmed' };
  const receipt = signCompactJws({ alg: 'EdDSA', typ: RECEIPT_TYP, kid: inboxKey.kid }, claims, inboxPrivate);
  const ack = withAck ? signCompactJws({ alg: 'EdDSA', typ: RECEIPT_ACK_TYP, jwk: agentKey.publicJwk }, { rcp: nonce, sha: receiptSha256(receipt), iat }, agentPrivate) : undefined;
  const body = JSON.stringify(ack ? { receipt, ack } : { receipt });
  const headers = signInstanceRequest({ method: 'POST', url: `${directory.address}/v1/receipts`, body, instance: inboxOrigin, privateJwk: inboxKey.privateJwk, allowHttpInstance: true });
  return { method: 'POST', path: '/v1/receipts', headers: { ...headers, 'content-type': 'application/json' }, body };
}

/** What the bare route takes: a message and its Ed25519 signature. */
function bareMessage(): Prepared {
  const id = randomBytes(16).toString('hex');
  const message = JSON.stringify({ id, at: Date.now(), pad: randomBytes(96).toString('base64url') });
  const signature = sign(null, Buffer.from(message, 'utf8'), baselinePrivate).toString('base64url');
  return { method: 'POST', path: '/bare', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, message, signature }) };
}

interface Case {
  name: string;
  target: Server;
  make: () => Prepared;
}
const cases: Case[] = [
  { name: 'POST /v1/receipts (a receipt)', target: directory, make: () => publication(false) },
  { name: 'POST /v1/receipts (a receipt and its acknowledgement)', target: directory, make: () => publication(true) },
  { name: 'bare route (one Ed25519 verification, one row)', target: baseline, make: bareMessage },
];

/**
 * CPU time a server process has used so far (user + system, ms, every thread: the event loop and
 * libuv's pool), from /proc (Linux); null elsewhere. Per request, it is the cost the machine's load
 * changes least, where req/s and tails on a shared machine say as much about the neighbours as about us.
 */
function cpuMs(target: Server, thread?: 'main'): number | null {
  try {
    const pid = target.child.pid as number;
    // The main thread's own counters are its task's (its id is the process's).
    const stat = readFileSync(thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** Requests per second a target takes, roughly: how many to prepare for a round. */
const estimate = new Map<string, number>();

async function run(c: Case, seconds: number): Promise<autocannon.Result & { rps: number; unexpected: number; cpuPerRequest: number | null; mainPerRequest: number | null }> {
  const count = Math.ceil((estimate.get(c.name) ?? 2_000) * seconds * 1.3) + connections;
  const pool: Prepared[] = [];
  for (let i = 0; i < count; i++) pool.push(c.make());
  let next = 0;
  const cpuBefore = cpuMs(c.target);
  const mainBefore = cpuMs(c.target, 'main');
  // autocannon's per-second average counts a round's last, partial second as a whole one, and a run of
  // a fixed number of requests ends on its next one-second tick: req/s is taken from the last answer.
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: c.target.address,
        connections,
        amount: count,
        requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, ...(pool[next++] as Prepared) }) }],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  const rps = result.requests.total / ((lastAnswer - started) / 1000 || 1);
  const cpuAfter = cpuMs(c.target);
  const mainAfter = cpuMs(c.target, 'main');
  const answered = result.requests.total;
  const perRequest = (before: number | null, after: number | null) => (before === null || after === null || answered === 0 ? null : (after - before) / answered);
  return Object.assign(result, { rps, unexpected: result.non2xx, cpuPerRequest: perRequest(cpuBefore, cpuAfter), mainPerRequest: perRequest(mainBefore, mainAfter) });
}

const loadAtStart = loadavg().slice(0, 2);
// Warm both (JIT, caches) and learn roughly how fast each is.
for (const c of cases) {
  const warm = await run(c, 1);
  estimate.set(c.name, warm.rps || 500);
}
const results = new Map<string, { rps: number[]; p99: number[]; p50: number[]; cpu: number[]; main: number[]; unexpected: number }>();
for (const c of cases) results.set(c.name, { rps: [], p99: [], p50: [], cpu: [], main: [], unexpected: 0 });
for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const c of order) {
    const r = await run(c, duration);
    estimate.set(c.name, r.rps);
    const entry = results.get(c.name)!;
    entry.rps.push(r.rps);
    entry.p99.push(r.latency.p99);
    entry.p50.push(r.latency.p50);
    if (r.cpuPerRequest !== null) entry.cpu.push(r.cpuPerRequest);
    if (r.mainPerRequest !== null) entry.main.push(r.mainPerRequest);
    entry.unexpected += r.unexpected;
  }
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const bareCase = results.get(cases[2]!.name)!;
const bare = mean(bareCase.rps);
const bareCpu = bareCase.cpu.length > 0 ? mean(bareCase.cpu) : null;
const [load1, load5] = loadavg();
console.log(`\nReceipt intake beside a bare route, ${connections} connections, ${rounds} rounds of about ${duration} s each, Node ${process.version}`);
console.log(`${new Date().toISOString()}, load average ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} at the start, ${load1!.toFixed(1)} / ${load5!.toFixed(1)} at the end (1 / 5 min), ${cpus().length} cores\n`);
console.log('| route | req/s | of the bare route (mean; rounds: median, range) | p50 | p99 | CPU per request (all threads / event loop) | requests per CPU second, of the bare route | non-2xx |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of cases) {
  const r = results.get(c.name)!;
  const rps = mean(r.rps);
  // Each round's share against the bare route's round next to it: the machine changes less between neighbours.
  const shares = r.rps.map((v, i) => (100 * v) / (bareCase.rps[i] as number));
  const cpu = r.cpu.length > 0 ? mean(r.cpu) : null;
  const main = r.main.length > 0 ? mean(r.main) : null;
  const cpuText = cpu === null ? 'n/a' : `${cpu.toFixed(2)} / ${main === null ? 'n/a' : main.toFixed(2)} ms`;
  const cpuShare = cpu === null || bareCpu === null ? 'n/a' : `${((100 * bareCpu) / cpu).toFixed(1)}%`;
  console.log(
    `| ${c.name} | ${Math.round(rps)} | ${((100 * rps) / bare).toFixed(1)}% (${median(shares).toFixed(1)}%, ${Math.min(...shares).toFixed(1)}–${Math.max(...shares).toFixed(1)}%) | ${mean(r.p50).toFixed(1)} ms | ${mean(r.p99).toFixed(1)} ms | ${cpuText} | ${cpuShare} | ${r.unexpected} |`,
  );
}
for (const s of [directory, baseline]) s.child.kill('SIGTERM');
