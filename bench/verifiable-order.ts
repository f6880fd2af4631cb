/**
 * The cost of the verifiable order (docs/verifiable-order.md), in one run, each figure beside its
 * baseline:
 *
 * 1. Appending to the evidence log: one entry per transaction (as a receipt's intake appends it),
 *    against a bare insert of the same row into a table of the same shape (no turn, no time floor).
 * 2. The log's size per million receipts (SQLite file growth, receipt entries of a real JWS's size);
 *    and per million check entries (`checksize`: a found listing of two doors, as a check logs it).
 * 3. Proof reads over HTTP (the compiled server `npm start` runs): the signed head, an inclusion and a
 *    consistency proof, a hash and a data tile, a place's proof in the hour's order, against a bare
 *    Fastify route serving a body of the same size (bench/baseline-server.ts), alternating.
 * 4. The hour's statement for `--listings` listings (default 1,000,000): leaves, tree, signature and
 *    storage, timed on the process's CPU (one core).
 *
 * npx tsx bench/verifiable-order.ts [--receipts 100000] [--checks 100000] [--listings 1000000] [--duration 5] [--parts append,size,checksize,reads,statement]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { newId, openSqliteFile } from '@svc/shared';
import { appendEvidence, evidenceTurn, writeCheck } from '../packages/directory/src/domain/evidence/evidence-log.js';
import { networkKeyFromSeed } from '../packages/directory/src/domain/evidence/network-key.js';
import { VerifiableOrder } from '../packages/directory/src/domain/evidence/verifiable-order.js';
import { NO_STANDING } from '../packages/directory/src/domain/ranking/hourly-order.js';
import { FactTable, sortedTable } from '../packages/directory/src/domain/ranking/fact-table.js';
import { rulesInForce } from '../packages/directory/src/domain/ranking/rules.js';
import { generateListings } from '../packages/directory/src/demo/listing-generator.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';
import type { DirectoryContext } from '../packages/directory/src/domain/context.js';

const { values } = parseArgs({
  options: {
    receipts: { type: 'string', default: '100000' },
    checks: { type: 'string', default: '100000' },
    listings: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '5' },
    parts: { type: 'string', default: 'append,size,checksize,reads,statement' },
  },
});
const parts = new Set(String(values.parts).split(','));
const RECEIPTS = Number(values.receipts);
const LISTINGS = Number(values.listings);
const DURATION = Number(values.duration);
const NOW = Date.parse('2026-11-28T13:20:00Z');
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const say = (line: string) => process.stdout.write(`${line}\n`);
const results: Record<string, unknown> = { startedAt: new Date().toISOString(), loadAtStart: load(), node: process.version };

/** A receipt JWS of the size ours have (~700 characters). */
const fakeJws = () => `eyJhbGciOiJFZERTQSJ9.${randomBytes(480).toString('base64url')}.${randomBytes(64).toString('base64url')}`;

function ctxOf(store: Awaited<ReturnType<typeof openDirectoryStore>>): DirectoryContext {
  return { store, clock: { now: () => NOW }, settings: { baseUrl: 'http://127.0.0.1', allowLocalInboxes: false, manifestTimeoutMs: 5_000, manifestMaxBytes: 262_144 } } as unknown as DirectoryContext;
}

async function appendPart(dir: string): Promise<void> {
  const store = await openDirectoryStore(join(dir, 'append.sqlite'));
  const db = openSqliteFile(join(dir, 'bare.sqlite'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE bare (idx INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL UNIQUE, entry TEXT NOT NULL, leaf_hash BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO bare (idx, at, kind, ref, entry, leaf_hash) VALUES (?, ?, ?, ?, ?, ?)');
  const n = 5_000;
  const rounds: { log: number; bare: number }[] = [];
  for (let round = 0; round < 3; round++) {
    let t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const jws = fakeJws();
      await store.transaction((tx) => appendEvidence(tx, `r bench ${round}-${i}`, NOW, (at) => ({ v: 1, kind: 'receipt', at, jws })));
    }
    const log = n / ((performance.now() - t0) / 1000);
    t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const jws = fakeJws();
      const text = JSON.stringify({ v: 1, kind: 'receipt', at: NOW, jws });
      db.transaction(() => insert.run(round * n + i, NOW, 'receipt', `r bench ${round}-${i}`, text, randomBytes(32)))();
    }
    const bare = n / ((performance.now() - t0) / 1000);
    rounds.push({ log: Math.round(log), bare: Math.round(bare) });
  }
  results.append = { perTransaction: 1, rounds, loadAtEnd: load() };
  say(`append: ${rounds.map((r) => `log ${r.log}/s, bare ${r.bare}/s (${Math.round((100 * r.log) / r.bare)}%)`).join('; ')}  load ${load()}`);
  db.close();
  await store.close();
}

async function sizePart(dir: string): Promise<string> {
  const file = join(dir, 'size.sqlite');
  const store = await openDirectoryStore(file);
  const order = new VerifiableOrder(ctxOf(store), networkKeyFromSeed(randomBytes(32), '127.0.0.1'));
  const sizeOf = () => statSync(file).size + (() => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  })();
  const before = sizeOf();
  const t0 = performance.now();
  for (let i = 0; i < RECEIPTS; i += 1_000) {
    await store.transaction(async (tx) => {
      for (let k = i; k < Math.min(RECEIPTS, i + 1_000); k++) {
        const jws = fakeJws();
        await appendEvidence(tx, `r bench ${k}`, NOW - 86_400_000 + k, (at) => ({ v: 1, kind: 'receipt', at, jws }));
      }
    });
  }
  const appendMs = performance.now() - t0;
  const t1 = performance.now();
  await order.signHead();
  const headMs = performance.now() - t1;
  await store.close();
  // Everything in the main file (the WAL copied back), so the file's growth is what the log takes.
  const raw = openSqliteFile(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const bytes = sizeOf() - before;
  const perMillion = (bytes / RECEIPTS) * 1_000_000;
  results.size = { receipts: RECEIPTS, bytes, bytesPerReceipt: Math.round(bytes / RECEIPTS), perMillionMb: Math.round(perMillion / 2 ** 20), appendSeconds: +(appendMs / 1000).toFixed(1), firstHeadSeconds: +(headMs / 1000).toFixed(2) };
  say(`size: ${RECEIPTS} receipt entries take ${(bytes / 2 ** 20).toFixed(1)} MB (${Math.round(bytes / RECEIPTS)} B each): ${Math.round(perMillion / 2 ** 20)} MB per million; appended in ${(appendMs / 1000).toFixed(1)} s (batches of 1,000), first head signed in ${(headMs / 1000).toFixed(2)} s`);
  return file;
}

/** What check entries take: a found listing of two live doors (an MCP server, an OpenAPI document), as a check logs it. */
async function checkSizePart(dir: string): Promise<void> {
  const count = Number(values.checks);
  const file = join(dir, 'checks.sqlite');
  const store = await openDirectoryStore(file);
  const sizeOf = () => statSync(file).size + (() => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  })();
  const before = sizeOf();
  const doors = [
    { type: 'mcp', level: 'bookable' as const, status: 'live' as const },
    { type: 'openapi', level: 'askable' as const, status: 'live' as const },
  ];
  const t0 = performance.now();
  for (let i = 0; i < count; i += 1_000) {
    await store.transaction(async (tx) => {
      for (let k = i; k < Math.min(count, i + 1_000); k++) {
        const turn = await evidenceTurn(tx, NOW - 86_400_000 + k);
        await writeCheck(tx, turn, `site-${k}.example`, { id: newId(NOW), doors });
      }
    });
  }
  const appendMs = performance.now() - t0;
  await store.close();
  const raw = openSqliteFile(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const bytes = sizeOf() - before;
  const perMillion = (bytes / count) * 1_000_000;
  results.checkSize = { checks: count, bytes, bytesPerCheck: Math.round(bytes / count), perMillionMb: Math.round(perMillion / 2 ** 20), appendSeconds: +(appendMs / 1000).toFixed(1) };
  say(`checksize: ${count} check entries take ${(bytes / 2 ** 20).toFixed(1)} MB (${Math.round(bytes / count)} B each): ${Math.round(perMillion / 2 ** 20)} MB per million; appended in ${(appendMs / 1000).toFixed(1)} s (batches of 1,000)`);
}

function startServer(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.includes('"ready"'));
      if (line) resolve({ child, address: (JSON.parse(line) as { address: string }).address });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

async function hit(url: string, paths: () => string): Promise<{ rps: number; p50: number; p99: number }> {
  const result = await autocannon({ url, connections: 8, duration: DURATION, requests: [{ setupRequest: (req) => ({ ...req, path: paths() }) }] });
  return { rps: Math.round(result.requests.total / DURATION), p50: result.latency.p50, p99: result.latency.p99 };
}

async function readsPart(dir: string, logFile: string | null): Promise<void> {
  // A directory over the log of part 2 (or a fresh one), with a small order whose statement it makes at start.
  const dataDir = join(dir, 'reads');
  const { mkdirSync, copyFileSync } = await import('node:fs');
  mkdirSync(dataDir, { recursive: true });
  if (logFile) copyFileSync(logFile, join(dataDir, 'directory.sqlite'));
  const store = await openDirectoryStore(join(dataDir, 'directory.sqlite'));
  if ((await store.listings.countAll()) === 0) {
    await store.transaction((tx) => tx.listings.insertMany(generateListings({ count: 5_000, seed: 7, nowMs: NOW, placeCategoryOf: () => null })));
  }
  await store.close();
  const server = await startServer('bench/directory-server.ts', { DATA_DIR: dataDir, BENCH_NOW: new Date(NOW).toISOString(), DIRECTORY_ANSWER_WORKERS: '0' });
  const base = `http://${server.address.replace(/^https?:\/\//, '')}`;
  const hour = new Date(Math.floor(NOW / 3_600_000) * 3_600_000).toISOString().slice(0, 13);
  const statement = (await (await fetch(`${base}/v1/orders/${hour}`)).json()) as { order: { size: number } };
  const head = (await (await fetch(`${base}/v1/log/checkpoint`)).text()).split('\n');
  const headSize = Number(head[1]);
  const rand = (n: number) => Math.floor(Math.random() * n);
  const tiles = Math.floor(headSize / 256);
  const { tilePath } = await import('@svc/verify');
  const routes: [string, () => string][] = [
    ['signed head', () => '/v1/log/checkpoint'],
    ['inclusion proof', () => `/v1/log/proof/inclusion?index=${rand(headSize)}&size=${headSize}`],
    ['consistency proof', () => `/v1/log/proof/consistency?from=${1 + rand(headSize - 1)}&to=${headSize}`],
    ['hash tile (level 0)', () => `/v1/log/${tilePath({ level: 0, index: rand(Math.max(1, tiles)), width: tiles > 0 ? 256 : headSize })}`],
    ['data tile', () => `/v1/log/${tilePath({ level: 'entries', index: rand(Math.max(1, tiles)), width: tiles > 0 ? 256 : headSize })}`],
    ['place proof (hour\'s order)', () => `/v1/orders/${hour}/proof?position=${1 + rand(statement.order.size)}`],
  ];
  const rows: Record<string, unknown>[] = [];
  for (const [name, path] of routes) {
    // The bare route serves a body of the size this route answers (one of its answers).
    const sample = Buffer.from(await (await fetch(`${base}${path()}`)).arrayBuffer());
    const pageFile = join(dir, 'body.json');
    writeFileSync(pageFile, sample);
    const baseline = await startServer('bench/baseline-server.ts', { PAGE_FILE: pageFile });
    const bare = `http://${baseline.address.replace(/^https?:\/\//, '')}`;
    const before = await hit(`${bare}/page`, () => '/page');
    const route = await hit(base, path);
    const after = await hit(`${bare}/page`, () => '/page');
    const bareRps = (before.rps + after.rps) / 2;
    baseline.child.kill('SIGTERM');
    rows.push({ name, bytes: sample.length, ...route, bareRps: Math.round(bareRps), share: Math.round((100 * route.rps) / bareRps), bareP99: Math.max(before.p99, after.p99), load: load() });
    say(`reads: ${name} (${sample.length} B): ${route.rps} req/s (p50 ${route.p50} ms, p99 ${route.p99} ms) against the bare route's ${Math.round(bareRps)} req/s: ${Math.round((100 * route.rps) / bareRps)}%  load ${load()}`);
  }
  results.reads = { logSize: headSize, orderSize: statement.order.size, rows };
  server.child.kill('SIGTERM');
}

async function statementPart(dir: string): Promise<void> {
  const file = join(dir, 'statement.sqlite');
  const store = await openDirectoryStore(file);
  let t0 = performance.now();
  const batch: Parameters<typeof store.listings.insertMany>[0] extends Iterable<infer T> ? T[] : never = [];
  for (const listing of generateListings({ count: LISTINGS, seed: 11, nowMs: NOW, placeCategoryOf: () => null })) {
    batch.push(listing);
    if (batch.length >= 20_000) await store.transaction((tx) => tx.listings.insertMany(batch.splice(0)));
  }
  if (batch.length > 0) await store.transaction((tx) => tx.listings.insertMany(batch.splice(0)));
  say(`statement: ${LISTINGS} listings stored in ${((performance.now() - t0) / 1000).toFixed(0)} s (setup, not measured)`);
  const hourStart = Math.floor(NOW / 3_600_000) * 3_600_000;
  const rules = rulesInForce(hourStart);
  t0 = performance.now();
  const read = new FactTable();
  const from = await store.evidence.size();
  for await (const row of store.listings.rankRows()) read.pushInputs(row, hourStart, rules, NO_STANDING);
  const checks = { from, to: await store.evidence.size() };
  const facts = sortedTable(read, rules);
  const orderMs = performance.now() - t0;
  const order = new VerifiableOrder(ctxOf(store), networkKeyFromSeed(randomBytes(32), '127.0.0.1'));
  global.gc?.();
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  const statement = await order.statements.record(hourStart, rules.version, facts, checks);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  results.statement = { listings: facts.length, orderSeconds: +(orderMs / 1000).toFixed(1), statementWallSeconds: +(wallMs / 1000).toFixed(1), statementCpuSeconds: +(cpuMs / 1000).toFixed(1), load: load(), size: statement?.orderSize };
  say(`statement: the order of ${facts.length} listings computed in ${(orderMs / 1000).toFixed(1)} s (the order, as each hour); its statement made in ${(wallMs / 1000).toFixed(1)} s wall, ${(cpuMs / 1000).toFixed(1)} s CPU  load ${load()}`);
  await store.close();
}

const dir = mkdtempSync(join(tmpdir(), 'bench-verifiable-'));
try {
  if (parts.has('append')) await appendPart(dir);
  const logFile = parts.has('size') ? await sizePart(dir) : null;
  if (parts.has('checksize')) await checkSizePart(dir);
  if (parts.has('reads')) await readsPart(dir, logFile);
  if (parts.has('statement')) await statementPart(dir);
  results.loadAtEnd = load();
  const out = join('bench', 'results', `verifiable-order-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join('bench', 'results'), { recursive: true });
  writeFileSync(out, JSON.stringify(results, null, 2));
  say(`written ${out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
