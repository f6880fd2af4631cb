/**
 * Agentic check benchmark (issue 14):
 *
 *   npx tsx bench/checks.ts [--rounds 3] [--duration 10] [--connections 10] [--concurrency 4]
 *
 * 1. Checks per minute: the sample sites of the local web (the well-behaved ones; the slow, trickling
 *    and huge sites are left out: they measure the crawler's timeouts, not its speed), checked `rounds`
 *    times over with the crawler's concurrency (DIRECTORY_CHECK_CONCURRENCY's default, 4), in-process.
 * 2. Reads: GET /b/{domain}.json and GET /leaderboard.json on a directory server process, beside a bare
 *    Fastify route serving the same bytes (bench/baseline-server.ts) in the same run; autocannon from
 *    this process, all on 127.0.0.1. Goal: at least 50% of the bare route, p99 under 25 ms.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { buildDirectory } from '../packages/directory/dist/app.js';
import { startLocalWeb } from '../packages/directory/dist/demo/local-web/local-web-server.js';
import { SAMPLE_SITES } from '../packages/directory/dist/demo/local-web/sample-sites.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const rounds = Number(args.get('rounds') ?? 3);
const durationSec = Number(args.get('duration') ?? 10);
const connections = Number(args.get('connections') ?? 10);
const concurrency = Number(args.get('concurrency') ?? 4);
const root = new URL('.', import.meta.url).pathname;
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

const sites = SAMPLE_SITES.filter((s) => !s.slow && s.host !== 'evil-elsewhere.test').map((s) => s.host);

const web = await startLocalWeb();
const dataDir = mkdtempSync(join(tmpdir(), 'bench-checks-'));
const directory = await buildDirectory({ dataDir, baseUrl: 'http://127.0.0.1', logLevel: 'silent', runJobs: false, runChecks: false, hourlyTimer: false, rateLimit: 0, checks: { localWeb: web.address, concurrency } });
let checks = 0;
const started = performance.now();
for (let round = 0; round < rounds; round++) {
  for (const site of sites) await directory.checks.schedule(site);
  await directory.checkWorker.drain(600_000);
  checks += sites.length;
}
const elapsedMs = performance.now() - started;
const perMinute = (checks / elapsedMs) * 60_000;
process.stdout.write(`checks: ${checks} in ${(elapsedMs / 1000).toFixed(1)} s at concurrency ${concurrency}: ${perMinute.toFixed(0)} checks/min (${web.log.length} requests to the local web)\n`);
const resultBytes = JSON.stringify(await directory.checks.document('padaria-aurora.test'));
const boardBytes = JSON.stringify(await directory.checks.leaderboard({}, 1));
await directory.close();

async function startProcess(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const info = JSON.parse(line) as { ready?: boolean; address?: string };
    if (info.ready) return { child, address: info.address as string };
  }
  throw new Error(`${script} did not start`);
}

async function measure(url: string) {
  const result = await autocannon({ url, connections, duration: durationSec });
  return { rps: Math.round(result.requests.average), p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const server = await startProcess('checks-server.ts', { DATA_DIR: dataDir, LOCAL_WEB: web.address });
const rows: Record<string, unknown>[] = [];
for (const [name, path, bytes] of [['check result', '/b/padaria-aurora.test.json', resultBytes], ['leaderboard', '/leaderboard.json', boardBytes]] as const) {
  const pageFile = join(dataDir, `${name.replace(' ', '-')}.json`);
  writeFileSync(pageFile, bytes);
  const baseline = await startProcess('baseline-server.ts', { PAGE_FILE: pageFile });
  await measure(`${server.address}${path}`); // warm-up
  const ours = await measure(`${server.address}${path}`);
  const bare = await measure(`${baseline.address}/page`);
  baseline.child.kill('SIGTERM');
  const row = { name, bytes: Buffer.byteLength(bytes), ours, bare, share: `${Math.round((100 * ours.rps) / bare.rps)}%`, load: loadavg()[0]?.toFixed(1) };
  rows.push(row);
  process.stdout.write(`${name} (${row.bytes} B): ${ours.rps} req/s p99 ${ours.p99} ms (errors ${ours.errors}) beside the bare route ${bare.rps} req/s p99 ${bare.p99} ms: ${row.share}; load ${row.load}\n`);
}
server.child.kill('SIGTERM');
await web.close();
mkdirSync(join(root, 'results'), { recursive: true });
const file = join(root, 'results', `checks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ checks: { checks, elapsedMs: Math.round(elapsedMs), perMinute: Math.round(perMinute), concurrency, sites: sites.length }, reads: rows, durationSec, connections }, null, 2));
process.stdout.write(`${file}\n`);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
