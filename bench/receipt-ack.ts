/**
 * Acknowledgement benchmark (issue 13): acknowledge_receipt at the inbox (POST /v1/items/{id}/receipt-ack,
 * each request a fresh acknowledgement of a different receipt: verified, stored, its event recorded)
 * beside a bare Fastify route that verifies one Ed25519 signature and inserts one row
 * (bench/inbox-baseline-server.ts POST /verify-insert), in the same run, both sent the same JWS bytes.
 * Goal: at least 50% of the baseline's throughput, p99 under 25 ms.
 *
 *   npx tsx bench/receipt-ack.ts [--receipts 8000] [--warmup 1000] [--connections 16] [--profile true]
 *
 * The inbox runs as `npm start` runs it (bench/inbox-server.ts, compiled code, fresh data folder,
 * INBOX_RATE_LIMIT=0, no network configured) in its own process; the baseline in another; autocannon
 * drives both from this one, on 127.0.0.1. Receipts are made first over HTTP (an order created, then
 * accepted by the owner: one receipt each); each acknowledgement is used once, so a run is a fixed
 * number of requests (`amount`), not a duration. Also measured, without a goal: the same
 * acknowledgement sent again (answered as the first time, nothing stored). The baseline runs before
 * and after the inbox; the goal is judged against their mean. Results go to bench/results/receipt-ack-<time>.json.
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
const receiptCount = Number(args.get('receipts') ?? 8000);
const warmupCount = Number(args.get('warmup') ?? 1000);
const connections = Number(args.get('connections') ?? 16);
const root = new URL('.', import.meta.url).pathname;
const resultsDir = join(root, 'results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');

if (args.get('build') !== 'false') execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
const { generateEd25519Key, receiptSha256, signCompactJws, ed25519PrivateKey } = await import('../packages/shared/dist/index.js');

interface Started {
  child: ChildProcess;
  info: Record<string, unknown>;
}

/** Starts a bench server; it reports JSON lines on fd 3 (its stdout carries the inbox's request log, discarded). */
async function startProcess(script: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  const reader = createInterface({ input: child.stdio[3] as Readable });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    reader.on('line', (line) => {
      const info = JSON.parse(line) as Record<string, unknown>;
      if (info.ready) resolve({ child, info });
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

/** One request of a run: path, headers and body, chosen by its index. */
interface Shot {
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  load: number;
}

async function run(name: string, base: string, shots: Shot[], expect: number): Promise<Measured> {
  let n = 0;
  // autocannon ends a fixed number of requests on its next one-second tick, so its own duration is
  // rounded up to whole seconds (a 2.2 s run counted as 3 s): req/s is taken from the last answer instead.
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: base,
      connections,
      amount: shots.length,
      requests: [
        {
          method: 'POST',
          setupRequest: (request: autocannon.Request) => {
            const shot = shots[n++ % shots.length]!;
            return { ...request, path: shot.path, headers: { 'content-type': 'application/json', ...shot.headers }, body: shot.body };
          },
        },
      ],
    }, (error, finished) => (error ? reject(error) : resolve(finished)));
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  const statuses: Record<string, number> = {};
  let wrong = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statuses[status] = count ?? 0;
    if (Number(status) !== expect) wrong += count ?? 0;
  }
  return {
    name,
    rps: Math.round(result.requests.total / ((lastAnswer - started) / 1000 || 1)),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + wrong,
    statuses,
    load: Math.round(loadavg()[0]! * 100) / 100,
  };
}

const line = (m: Measured): string =>
  `${m.name.padEnd(44)} ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(3)} ms  p99 ${String(m.p99).padStart(3)} ms  ${m.requests} requests  errors ${m.errors}`;

// ---- servers ------------------------------------------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), 'bench-receipt-ack-'));
delete process.env.VALIDATE_OUTPUT; // set in tests only; the bench measures what `npm start` serves
delete process.env.INBOX_DIRECTORY_URL; // no network: publication would add its own traffic
// --profile true: a CPU profile of the inbox during the measured acknowledgements, written to bench/results/.
const profiling = args.get('profile') === 'true';
const inbox = await startProcess('inbox-server.ts', {
  DATA_DIR: dataDir,
  INBOX_PORT: '0',
  INBOX_RATE_LIMIT: '0',
  ...(profiling ? { BENCH_PROFILE: join(resultsDir, `receipt-ack-${stamp}`) } : {}),
});
const base = String(inbox.info.address);
const owner = { authorization: `Bearer ${String(inbox.info.ownerKey)}`, 'content-type': 'application/json' };
const baseline = await startProcess('inbox-baseline-server.ts', {});
const baselineBase = String(baseline.info.address);
console.log(`inbox ready on ${process.version} (data ${dataDir}); making ${receiptCount + warmupCount} receipts…`);

// ---- receipts -----------------------------------------------------------------------------------
interface Made {
  id: string;
  token: string;
  receiptId: string;
  jws: string;
}

async function makeOne(n: number): Promise<Made> {
  const created = await fetch(`${base}/v1/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payload: { lines: [{ productId: 'argan-shampoo', quantity: 1 }] }, contact: { name: `Customer ${n}`, email: `c${n}@example.com` } }),
  });
  const order = (await created.json()) as { id: string; accessToken: string };
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(order)}`);
  const accepted = await fetch(`${base}/v1/owner/items/${order.id}/transitions`, { method: 'POST', headers: owner, body: JSON.stringify({ event: 'accept' }) });
  const item = (await accepted.json()) as { receipts: { receipt_id: string; jws: string }[] };
  if (accepted.status !== 200 || item.receipts.length !== 1) throw new Error(`accept: ${accepted.status} ${JSON.stringify(item)}`);
  return { id: order.id, token: order.accessToken, receiptId: item.receipts[0]!.receipt_id, jws: item.receipts[0]!.jws };
}

const made: Made[] = [];
const preparing = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (next < receiptCount + warmupCount) made.push(await makeOne(next++));
  }),
);
console.log(`made ${made.length} receipts in ${Math.round(performance.now() - preparing)} ms`);

// Each customer's agent has its own key; the acknowledgement is signed now (good for an hour).
const iat = Math.floor(Date.now() / 1000);
const shotsOf = (list: Made[]) =>
  list.map((m) => {
    const agent = generateEd25519Key();
    const ack = signCompactJws(
      { alg: 'EdDSA', typ: 'svc-receipt-ack+jws', jwk: { ...agent.publicJwk } },
      { rcp: m.receiptId, sha: receiptSha256(m.jws), iat },
      ed25519PrivateKey(agent.privateJwk),
    );
    return { path: `/v1/items/${m.id}/receipt-ack`, headers: { 'x-access-token': m.token }, body: JSON.stringify({ ack }) };
  });
const warmShots = shotsOf(made.slice(0, warmupCount));
const shots = shotsOf(made.slice(warmupCount));
const baselineShots = (list: Shot[]) => list.map((s) => ({ path: '/verify-insert', headers: {}, body: s.body }));

// ---- measure ------------------------------------------------------------------------------------
await run('warm-up baseline', baselineBase, baselineShots(warmShots), 200);
const before = await run('baseline: verify one signature, insert one row', baselineBase, baselineShots(shots), 200);
console.log(line(before));
await run('warm-up acknowledge_receipt', base, warmShots, 200);
if (profiling) inbox.child.kill('SIGUSR2');
const ack = await run('POST /v1/items/{id}/receipt-ack', base, shots, 200);
if (profiling) inbox.child.kill('SIGUSR2');
console.log(line(ack));
const after = await run('baseline: verify one signature, insert one row', baselineBase, baselineShots(shots), 200);
console.log(line(after));
const replay = await run('the same acknowledgement again (harmless)', base, shots, 200);
console.log(line(replay));
await stop(baseline);
await stop(inbox);
// The inbox's data (its secret key included) is the run's own: not left behind.
rmSync(dataDir, { recursive: true, force: true });

// ---- report -------------------------------------------------------------------------------------
const baselineRps = Math.round((before.rps + after.rps) / 2);
const share = ack.rps / baselineRps;
const goal = ack.errors === 0 && share >= 0.5 && ack.p99 < 25 ? 'met' : `NOT met (${[share < 0.5 ? 'under 50%' : '', ack.p99 >= 25 ? 'p99 ≥ 25 ms' : '', ack.errors ? 'errors' : ''].filter(Boolean).join(', ')})`;
console.log(`\nNode ${process.version}, ${connections} connections, ${shots.length} acknowledgements a run (after ${warmShots.length} to warm up)`);
console.log(`acknowledge_receipt ${ack.rps} req/s (p50 ${ack.p50} ms, p99 ${ack.p99} ms) vs baseline ${baselineRps} req/s (${before.rps} before, ${after.rps} after): ${(share * 100).toFixed(0)}%, goal ${goal}`);
const file = join(resultsDir, `receipt-ack-${stamp}.json`);
writeFileSync(file, JSON.stringify({ node: process.version, connections, receipts: shots.length, warmup: warmShots.length, results: { before, ack, after, replay }, baselineRps, share, goal }, null, 2));
console.log(`wrote ${file}`);
