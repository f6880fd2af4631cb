/**
 * Compression benchmark (docs/http.md): for a few typical answers (directory search pages of a few
 * shapes, both services' /openapi.json, the inbox's /v1/services), the bytes sent in identity, gzip
 * and br, and autocannon's req/s and latency when every request asks `accept-encoding: br`, `gzip` or
 * `identity`, all in the same run.
 *
 *   npx tsx bench/compression.ts [--duration 3] [--warmup 1] [--connections 16] [--listings 3000] [--modes on,off] [--build false]
 *
 * The directory runs as `npm start` runs it: the demo data set (DIRECTORY_DEMO_LISTINGS, 3000, the
 * same seed) in a fresh data folder, served by the compiled code (bench/directory-server.ts) with its
 * default answer workers. `--modes on,off`: the search pages are measured with the answer cache on
 * (the default: a repeated search is the same Buffer, compressed once per coding and kept) and off
 * (DIRECTORY_ANSWER_CACHE=off: every answer is assembled and compressed anew). The inbox runs as
 * `npm start` runs it (bench/inbox-server.ts: demo business, LOG_LEVEL info unless the environment
 * says otherwise). Each runs in its own process; autocannon drives them from this one, on 127.0.0.1.
 * Every request must get 200: anything else is counted as an error. Before the load, each answer is
 * fetched once per coding: the bytes are counted, the Content-Encoding and Vary checked, and the
 * decoded bytes compared with the identity answer.
 * Results go to bench/results/compression-<time>.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { listingPageRenderer } from '../packages/directory/src/app.js';
import { seedDemoDirectory } from '../packages/directory/src/demo/seed-directory.js';
import { openDirectoryStore } from '../packages/directory/src/store/kysely/kysely-directory-store.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const durationSec = Number(args.get('duration') ?? 3);
const warmupSec = Number(args.get('warmup') ?? 1);
const connections = Number(args.get('connections') ?? 16);
const listingCount = Number(args.get('listings') ?? 3000);
const cacheModes = (args.get('modes') ?? 'on,off').split(',');
const root = new URL('.', import.meta.url).pathname;
const resultsDir = join(root, 'results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');

if (args.get('build') !== 'false') execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
delete process.env.VALIDATE_OUTPUT; // set in tests only; the bench measures what `npm start` serves

interface Started {
  child: ChildProcess;
  info: Record<string, unknown>;
}

/**
 * Starts a bench server that reports JSON lines on `reportFd`: the directory's on its standard
 * output, the inbox's on fd 3 (its standard output carries the request log, discarded).
 */
async function startProcess(script: string, env: Record<string, string>, reportFd: 1 | 3): Promise<Started> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, script)], {
    env: { ...process.env, ...env },
    stdio: reportFd === 1 ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const reader = createInterface({ input: child.stdio[reportFd] as Readable });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    reader.on('line', (line) => {
      if (!line.startsWith('{')) return;
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

type Coding = 'identity' | 'gzip' | 'br';
const CODINGS: Coding[] = ['identity', 'gzip', 'br'];

/** One GET with the raw bytes as sent (node:http does not decode). */
function rawGet(base: string, path: string, coding: Coding): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers: { 'accept-encoding': coding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The bytes of each coding, checked: the coding asked for is the one sent, Vary names Accept-Encoding, the decoded text is the identity text. */
async function bytesOf(base: string, path: string): Promise<Record<Coding, number>> {
  const identity = await rawGet(base, path, 'identity');
  if (identity.status !== 200) throw new Error(`${path}: ${identity.status} ${identity.bytes.toString()}`);
  if (identity.headers['content-encoding'] !== undefined) throw new Error(`${path}: identity asked, ${identity.headers['content-encoding']} sent`);
  const sizes = { identity: identity.bytes.length, gzip: 0, br: 0 };
  for (const coding of ['gzip', 'br'] as const) {
    const answer = await rawGet(base, path, coding);
    if (answer.status !== 200) throw new Error(`${path} (${coding}): ${answer.status}`);
    if (answer.headers['content-encoding'] !== coding) throw new Error(`${path}: ${coding} asked, ${answer.headers['content-encoding'] ?? 'identity'} sent`);
    if (!/accept-encoding/i.test(String(answer.headers.vary ?? ''))) throw new Error(`${path} (${coding}): no Vary: Accept-Encoding`);
    const decoded = coding === 'br' ? brotliDecompressSync(answer.bytes) : gunzipSync(answer.bytes);
    // Search answers carry times of the moment; the rest must decode to exactly the identity bytes.
    if (!path.startsWith('/v1/businesses') && !decoded.equals(identity.bytes)) throw new Error(`${path} (${coding}): decoded bytes differ from identity`);
    if (decoded.length === 0 || JSON.parse(decoded.toString('utf8')) === undefined) throw new Error(`${path} (${coding}): not JSON`);
    sizes[coding] = answer.bytes.length;
  }
  return sizes;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  mbPerSec: number;
  requests: number;
  errors: number;
  load: number;
}

async function run(base: string, path: string, coding: Coding, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url: `${base}${path}`, connections, duration: seconds, headers: { 'accept-encoding': coding } });
}

async function measure(base: string, path: string, coding: Coding): Promise<Measured> {
  if (warmupSec > 0) await run(base, path, coding, warmupSec);
  const result = await run(base, path, coding, durationSec);
  let wrong = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) if (Number(status) !== 200) wrong += count ?? 0;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    mbPerSec: Math.round((result.throughput.average / 2 ** 20) * 10) / 10,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + wrong,
    load: Math.round(loadavg()[0]! * 100) / 100,
  };
}

interface Row {
  name: string;
  path: string;
  bytes: Record<Coding, number>;
  measured: Record<Coding, Measured>;
}

const rows: Row[] = [];

async function measureTarget(base: string, name: string, path: string): Promise<void> {
  const bytes = await bytesOf(base, path);
  const measured = {} as Record<Coding, Measured>;
  for (const coding of CODINGS) {
    measured[coding] = await measure(base, path, coding);
    const m = measured[coding];
    console.log(
      `${name.padEnd(52)} ${coding.padEnd(8)} ${String(bytes[coding]).padStart(7)} B  ${String(m.rps).padStart(6)} req/s  p50 ${String(m.p50).padStart(3)} ms  p99 ${String(m.p99).padStart(3)} ms  ${String(m.mbPerSec).padStart(6)} MB/s  errors ${m.errors}`,
    );
  }
  rows.push({ name, path, bytes, measured });
}

// ---- directory ----------------------------------------------------------------------------------
const searchPaths = ['/v1/businesses?limit=20', '/v1/businesses?limit=100', '/v1/businesses?q=cafe&limit=50', '/v1/businesses?near=38.72,-9.14&radius_km=50&limit=20'];

const directoryDir = mkdtempSync(join(tmpdir(), 'bench-compression-directory-'));
{
  const started = performance.now();
  const store = await openDirectoryStore(join(directoryDir, 'directory.sqlite'), { pages: listingPageRenderer('http://127.0.0.1') });
  const seeded = await seedDemoDirectory(store, listingCount, Date.now());
  await store.close();
  console.log(`directory: ${seeded} demo listings seeded in ${Math.round(performance.now() - started)} ms (${directoryDir})`);
}

for (const [index, mode] of cacheModes.entries()) {
  const directory = await startProcess('directory-server.ts', { DATA_DIR: directoryDir, DIRECTORY_ANSWER_CACHE: mode === 'off' ? 'off' : 'on' }, 1);
  const base = String(directory.info.address);
  console.log(`directory ready in ${directory.info.prepareMs} ms on ${process.version}, answer cache ${mode}`);
  for (const path of searchPaths) await measureTarget(base, `directory ${path} (cache ${mode})`, path);
  if (index === 0) await measureTarget(base, 'directory /openapi.json', '/openapi.json');
  await stop(directory);
}

// ---- inbox --------------------------------------------------------------------------------------
const inboxDir = mkdtempSync(join(tmpdir(), 'bench-compression-inbox-'));
const inbox = await startProcess('inbox-server.ts', { DATA_DIR: inboxDir, INBOX_PORT: '0' }, 3);
const inboxBase = String(inbox.info.address);
console.log(`inbox ready in ${inbox.info.prepareMs} ms on ${process.version} (LOG_LEVEL ${process.env.LOG_LEVEL ?? 'info (default)'})`);
await measureTarget(inboxBase, 'inbox /openapi.json', '/openapi.json');
await measureTarget(inboxBase, 'inbox /v1/services', '/v1/services');
await stop(inbox);
rmSync(directoryDir, { recursive: true, force: true });
rmSync(inboxDir, { recursive: true, force: true });

// ---- report -------------------------------------------------------------------------------------
const kib = (n: number): string => (n >= 10_240 ? `${(n / 1024).toFixed(0)} KiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
const pct = (n: number, of: number): string => `${Math.round((n / of) * 100)}%`;
const cell = (m: Measured): string => `${m.rps} (${m.p99} ms)${m.errors ? ` ERRORS ${m.errors}` : ''}`;
console.log(`\nNode ${process.version}, ${connections} connections, ${durationSec} s a case (after ${warmupSec} s of warm-up), ${listingCount} demo listings\n`);
console.log('| answer | identity | gzip | br | req/s (p99) identity | req/s (p99) gzip | req/s (p99) br |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const { identity, gzip, br } = r.bytes;
  console.log(
    `| ${r.name} | ${kib(identity)} | ${kib(gzip)} (${pct(gzip, identity)}) | ${kib(br)} (${pct(br, identity)}) | ${cell(r.measured.identity)} | ${cell(r.measured.gzip)} | ${cell(r.measured.br)} |`,
  );
}
const file = join(resultsDir, `compression-${stamp}.json`);
writeFileSync(file, JSON.stringify({ node: process.version, connections, durationSec, warmupSec, listings: listingCount, logLevel: process.env.LOG_LEVEL ?? 'info', rows }, null, 2));
console.log(`\nwrote ${file}`);
