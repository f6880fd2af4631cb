/**
 * Web pages benchmark (issue 16, docs/web.md "Budgets"): each server-rendered page beside a bare
 * Fastify route serving the very same bytes, in the same run. Goal: at least 50% of the baseline's
 * requests a second, and p99 under 25 ms.
 *
 *   npx tsx bench/pages.ts [--duration 5] [--warmup 1] [--connections 8] [--build false] [--only directory-check,directory-leaderboard] [--rounds 1] [--profile <dir>] [--items 40] [--renders 0]
 *
 * The services run from the compiled code in one process (bench/pages-server.ts, as `npm start`
 * runs them: 3000 demo listings, the demo business, burst limits off), the baseline in another
 * (bench/pages-baseline-server.ts); autocannon drives both from this one, all on 127.0.0.1. Pages of
 * the owner app are read with a session made by signing in; the inbox holds 40 bookings first. The
 * check's pages read real results: the local web of sample sites is checked before the run.
 * `--only` names the cases to run (prefixes of their names); all by default. `--rounds` runs every
 * case that many times (a shared machine's figures vary from run to run).
 * Every request must answer 200. Results go to bench/results/pages-<time>.json.
 * Beside req/s, each side's CPU time per request (its server process, all threads, from /proc on
 * Linux): steadier than req/s when other work shares the cores, and its ratio (bare ÷ page) is the
 * share the page would have on a machine of its own.
 * `--items N` fills the inbox to N items (bookings over the coming weeks, one in five a conversation) before the run: the
 * owner's Today and week are measured with 10,000 (docs/web.md "Today and the week, measured"). `--renders N` renders
 * each owner page of the day N times afresh (a new address each time, so never a kept page), one at a time, and
 * reports each render's time (the client on the same host: the server's time plus the loopback).
 * `--profile <dir>` writes a CPU profile of the services' process while each page is loaded (the page
 * alone: not the bare route, not its JSON) to <dir>/<case>.cpuprofile (bench/cpuprofile-summary.ts reads it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';
import { DateTime } from 'luxon';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const durationSec = Number(args.get('duration') ?? 5);
const warmupSec = Number(args.get('warmup') ?? 1);
const connections = Number(args.get('connections') ?? 8);
const only = (args.get('only') ?? '').split(',').filter(Boolean);
const rounds = Number(args.get('rounds') ?? 1);
const profileDir = args.get('profile');
const itemCount = Number(args.get('items') ?? 40);
const renders = Number(args.get('renders') ?? 0);
if (profileDir) mkdirSync(profileDir, { recursive: true });
const root = new URL('.', import.meta.url).pathname;
const resultsDir = join(root, 'results');
mkdirSync(resultsDir, { recursive: true });

if (args.get('build') !== 'false') execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

async function startProcess(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'pipe', 'ipc'] });
  const reader = createInterface({ input: child.stdio[3] as Readable });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    reader.on('line', (line) => {
      const info = JSON.parse(line) as Record<string, string>;
      if (info.ready) resolve({ child, info });
    });
  });
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time of the serving process per request, µs (null where /proc cannot be read). */
  cpuUsPerRequest: number | null;
}

const TICK_US = 1_000_000 / 100;
/** User and system CPU ticks of a process so far (all its threads); null off Linux. */
function cpuTicks(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

async function load(url: string, headers: Record<string, string>, seconds: number, server?: ChildProcess): Promise<Measured> {
  const before = cpuTicks(server?.pid);
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const after = cpuTicks(server?.pid);
  const cpuUsPerRequest = before === null || after === null || result.requests.total === 0 ? null : Math.round(((after - before) * TICK_US) / result.requests.total);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx, cpuUsPerRequest };
}

const dirs = [mkdtempSync(join(tmpdir(), 'bench-pages-directory-')), mkdtempSync(join(tmpdir(), 'bench-pages-inbox-'))] as const;
const services = await startProcess('pages-server.ts', {
  DIRECTORY_DATA_DIR: dirs[0],
  INBOX_DATA_DIR: dirs[1],
  DIRECTORY_RATE_LIMIT: '0',
  INBOX_RATE_LIMIT: '0',
  INBOX_DIRECTORY_URL: '',
  LOG_LEVEL: 'warn',
  DIRECTORY_DEMO_LISTINGS: '3000',
  ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}),
});
const { directory, inbox, ownerKey } = services.info as { directory: string; inbox: string; ownerKey: string };

// A session of the owner app, as a browser gets one.
const signInPage = await fetch(`${inbox}/app/sign-in`);
const signInCookie = (signInPage.headers.getSetCookie()[0] ?? '').split(';')[0]!;
const signInToken = /name="signin_token" value="([^"]+)"/.exec(await signInPage.text())![1]!;
const signedIn = await fetch(`${inbox}/app/sign-in`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie },
  body: new URLSearchParams({ signin_token: signInToken, owner_key: ownerKey }).toString(),
});
const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('svc_owner='))!.split(';')[0]!;
// Forty bookings over the coming days, so the inbox list is a full page.
let itemId = '';
for (let i = 0; i < 40; i++) {
  const start = new Date(Date.now() + (2 + Math.floor(i / 8)) * 86_400_000);
  start.setUTCHours(10 + (i % 8), 0, 0, 0);
  const r = await fetch(`${inbox}/v1/bookings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `bench-${i}` },
    body: JSON.stringify({ payload: { serviceId: 'consultation', startTime: start.toISOString() }, contact: { name: `Customer ${i}`, email: `c${i}@example.com` } }),
  });
  itemId ||= ((await r.json()) as { id: string }).id;
}
// More items, as many as --items asks: bookings on open afternoons of the weeks ahead (Lisbon), one in five a conversation.
const OPEN_DAYS = new Set([2, 3, 4, 5, 6]);
const firstDay = DateTime.now().setZone('Europe/Lisbon').plus({ days: 1 }).startOf('day');
const openDays: DateTime[] = [];
for (let d = 0; openDays.length < 40; d++) {
  const day = firstDay.plus({ days: d });
  // The demo salon closes 24–26 December.
  if (OPEN_DAYS.has(day.weekday) && !(day.month === 12 && day.day >= 24 && day.day <= 26)) openDays.push(day);
}
/** The day Today and the week are read on: the second open day ahead, one of bookings only (about 250; every fifth day gets the conversations). */
const busyDay = openDays[1]!.toISODate()!;
let made = 40;
const fill = async (n: number): Promise<void> => {
  const i = made + n;
  const conversation = i % 5 === 0;
  const day = openDays[i % openDays.length]!;
  // Every afternoon quarter hour of every open day in turn (about 200 bookings a day, 17 at each start).
  const slot = Math.floor(i / openDays.length) % 12;
  const start = day.set({ hour: 14 + Math.floor(slot / 4), minute: (slot % 4) * 15 });
  const body = conversation
    ? { payload: { subject: `Question ${i}` }, contact: { name: `Customer ${i}` }, message: `Olá, queria saber se têm vaga na próxima semana para um corte e uma madeixa (pedido ${i}).` }
    : { payload: { serviceId: 'consultation', startTime: start.toISO() }, contact: { name: `Customer ${i}`, email: `c${i}@example.com` } };
  const r = await fetch(`${inbox}/v1/${conversation ? 'messages' : 'bookings'}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status !== 201) throw new Error(`filling the inbox: ${r.status} ${await r.text()}`);
};
while (made < itemCount) {
  const batch = Math.min(16, itemCount - made);
  await Promise.all(Array.from({ length: batch }, (_, n) => fill(n)));
  made += batch;
}
const firstListing = ((await (await fetch(`${directory}/v1/businesses?limit=1`)).json()) as { businesses: { domain: string }[] }).businesses[0]!.domain;

/** What Chromium sends. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** A page's bytes as sent (fetch would decode them), with their coding. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: Buffer; encoding: string | null }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes: Buffer.concat(chunks), encoding: response.headers['content-encoding'] ?? null }));
    })
      .on('error', reject)
      .end();
  });
}

/** Each page, and the JSON it is built from (served by the same service: what the service's own frame costs, for comparison). */
/** `json`: the JSON the page is built from (null: a page built from nothing but the software, such as the check form). */
const cases: { name: string; url: string; headers: Record<string, string>; json: string | null; jsonHeaders: Record<string, string> }[] = [
  { name: 'directory-home', url: `${directory}/`, headers: {}, json: `${directory}/v1/businesses`, jsonHeaders: {} },
  { name: 'directory-search', url: `${directory}/?q=cafe&open_now=true`, headers: {}, json: `${directory}/v1/businesses?q=cafe&open_now=true`, jsonHeaders: {} },
  { name: 'directory-business', url: `${directory}/businesses/${firstListing}`, headers: {}, json: `${directory}/v1/businesses/${firstListing}`, jsonHeaders: {} },
  { name: 'directory-ranking', url: `${directory}/ranking`, headers: {}, json: `${directory}/v1/ranking`, jsonHeaders: {} },
  { name: 'directory-check-result', url: `${directory}/b/padaria-aurora.test`, headers: {}, json: `${directory}/b/padaria-aurora.test.json`, jsonHeaders: {} },
  { name: 'directory-check-badge', url: `${directory}/b/padaria-aurora.test/badge.svg`, headers: {}, json: `${directory}/b/padaria-aurora.test.json`, jsonHeaders: {} },
  { name: 'directory-leaderboard', url: `${directory}/leaderboard`, headers: {}, json: `${directory}/leaderboard.json`, jsonHeaders: {} },
  { name: 'directory-leaderboard-scoped', url: `${directory}/leaderboard?country=PT&place=lisboa`, headers: {}, json: `${directory}/leaderboard.json?country=PT&place=lisboa`, jsonHeaders: {} },
  { name: 'directory-categories', url: `${directory}/categories/bakery`, headers: {}, json: `${directory}/v1/categories?group=bakery`, jsonHeaders: {} },
  { name: 'directory-check-form', url: `${directory}/check`, headers: {}, json: null, jsonHeaders: {} },
  { name: 'directory-stats', url: `${directory}/stats`, headers: {}, json: `${directory}/v1/stats`, jsonHeaders: {} },
  { name: 'directory-score-rules', url: `${directory}/score-rules`, headers: {}, json: `${directory}/v1/score-rules`, jsonHeaders: {} },
  { name: 'owner-inbox', url: `${inbox}/app/inbox`, headers: { cookie: session }, json: `${inbox}/v1/owner/items`, jsonHeaders: { authorization: `Bearer ${ownerKey}` } },
  { name: 'owner-item', url: `${inbox}/app/items/${itemId}`, headers: { cookie: session }, json: `${inbox}/v1/owner/items/${itemId}`, jsonHeaders: { authorization: `Bearer ${ownerKey}` } },
  // As a browser asks for it (Chromium's Accept-Encoding); the bare route serves the very bytes it got, compressed as they came.
  {
    name: 'owner-item-browser',
    url: `${inbox}/app/items/${itemId}`,
    headers: { cookie: session, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
    json: `${inbox}/v1/owner/items/${itemId}`,
    jsonHeaders: { authorization: `Bearer ${ownerKey}`, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
  },
  // Setup screens as a browser asks: the week's hours (kept), and the API keys (drawn at each request).
  { name: 'owner-today', url: `${inbox}/app/today?date=${busyDay}`, headers: { cookie: session }, json: `${inbox}/v1/owner/items?type=booking`, jsonHeaders: { authorization: `Bearer ${ownerKey}` } },
  { name: 'owner-week', url: `${inbox}/app/calendar?view=week&date=${busyDay}`, headers: { cookie: session }, json: `${inbox}/v1/owner/items?type=booking`, jsonHeaders: { authorization: `Bearer ${ownerKey}` } },
  { name: 'owner-day', url: `${inbox}/app/calendar?view=day&date=${busyDay}`, headers: { cookie: session }, json: `${inbox}/v1/owner/items?type=booking`, jsonHeaders: { authorization: `Bearer ${ownerKey}` } },
  {
    name: 'owner-setup-hours',
    url: `${inbox}/app/setup/hours`,
    headers: { cookie: session, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
    json: `${inbox}/v1/owner/availability`,
    jsonHeaders: { authorization: `Bearer ${ownerKey}`, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
  },
  {
    name: 'owner-setup-keys',
    url: `${inbox}/app/setup/keys`,
    headers: { cookie: session, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
    json: `${inbox}/v1/owner/api-keys`,
    jsonHeaders: { authorization: `Bearer ${ownerKey}`, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
  },
];

const chosen = only.length === 0 ? cases : cases.filter((c) => only.some((prefix) => c.name.startsWith(prefix)));

// The baseline serves exactly the bytes each page answered, in the coding they came in.
const bodies: Record<string, { body: string; encoding: string | null }> = {};
const sizes: Record<string, number> = {};
for (const c of chosen) {
  const r = await rawGet(c.url, c.headers);
  if (r.status !== 200) throw new Error(`${c.name} answered ${r.status}`);
  bodies[c.name] = { body: r.bytes.toString('base64'), encoding: r.encoding };
  sizes[c.name] = r.bytes.length;
}
const pagesFile = join(dirs[0], 'pages.json');
writeFileSync(pagesFile, JSON.stringify(bodies));
const baseline = await startProcess('pages-baseline-server.ts', { PAGES_FILE: pagesFile });

/** Starts the services' CPU profile of a case, or (the second time) stops it and waits until it is written. */
async function profiling(name: string): Promise<void> {
  services.child.send?.(name);
  await new Promise<void>((resolve) => services.child.once('message', () => resolve()));
}

const results: Record<string, unknown>[] = [];
console.log(`pages benchmark: ${durationSec} s per case, ${connections} connections, ${rounds} round(s), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`${'page'.padEnd(20)} ${'bytes'.padStart(7)} ${'req/s'.padStart(7)} ${'p50'.padStart(4)} ${'p99'.padStart(4)}  ${'bare req/s'.padStart(10)} ${'p99'.padStart(4)}  share  goal        ${'its JSON req/s'.padStart(14)}  ${'CPU µs/req page'.padStart(15)} ${'bare'.padStart(5)} ${'ratio'.padStart(5)}`);
for (let round = 0; round < rounds; round++) for (const c of chosen) {
  await load(c.url, c.headers, warmupSec);
  if (profileDir) await profiling(c.name);
  const page = await load(c.url, c.headers, durationSec, services.child);
  if (profileDir) await profiling(c.name);
  await load(`${baseline.info.address}/${c.name}`, {}, warmupSec);
  const bare = await load(`${baseline.info.address}/${c.name}`, {}, durationSec, baseline.child);
  if (c.json) await load(c.json, c.jsonHeaders, warmupSec);
  const json = c.json ? await load(c.json, c.jsonHeaders, durationSec) : null;
  const share = page.rps / bare.rps;
  const cpuShare = page.cpuUsPerRequest && bare.cpuUsPerRequest ? bare.cpuUsPerRequest / page.cpuUsPerRequest : null;
  const met = page.errors === 0 && page.non2xx === 0 && share >= 0.5 && page.p99 < 25;
  results.push({ case: c.name, round, load: loadavg()[0], bytes: sizes[c.name], encoding: bodies[c.name]!.encoding, page, bare, json, share, cpuShare, met });
  console.log(
    `${c.name.padEnd(20)} ${String(sizes[c.name]).padStart(7)} ${String(page.rps).padStart(7)} ${String(page.p50).padStart(4)} ${String(page.p99).padStart(4)}  ${String(bare.rps).padStart(10)} ${String(bare.p99).padStart(4)}  ${(share * 100).toFixed(0).padStart(4)}%  ${(met ? 'met' : 'NOT met').padEnd(10)} ${String(json?.rps ?? '-').padStart(14)}  ${String(page.cpuUsPerRequest ?? '-').padStart(15)} ${String(bare.cpuUsPerRequest ?? '-').padStart(5)} ${cpuShare === null ? '    -' : `${(cpuShare * 100).toFixed(0).padStart(4)}%`}  load ${loadavg()[0]!.toFixed(2)}${page.non2xx || page.errors ? ` (${page.non2xx} non-2xx, ${page.errors} errors)` : ''}`,
  );
}
// Each owner page of the day rendered afresh, one at a time: a new address each time is never a kept page.
const renderTimes: Record<string, { renders: number; p50: number; p95: number; max: number; bytes: number }> = {};
if (renders > 0) {
  console.log(`fresh renders, ${itemCount} items in the inbox, the day ${busyDay}:`);
  for (const c of chosen.filter((x) => ['owner-today', 'owner-week', 'owner-day'].includes(x.name))) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < renders; i++) {
      const began = performance.now();
      const r = await rawGet(`${c.url}&fresh=${i}-${Date.now()}`, c.headers);
      times.push(performance.now() - began);
      if (r.status !== 200) throw new Error(`${c.name} answered ${r.status}`);
      bytes = r.bytes.length;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
    renderTimes[c.name] = { renders, p50: at(0.5), p95: at(0.95), max: at(1), bytes };
    console.log(`${c.name.padEnd(20)} ${renders} renders: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms, ${bytes} bytes  ${at(0.95) < 50 ? 'met (< 50 ms)' : 'NOT met (50 ms)'}`);
  }
}
writeFileSync(join(resultsDir, `pages-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ durationSec, connections, items: itemCount, renderTimes, results }, null, 2));
const servicesExited = new Promise((resolve) => services.child.once('exit', resolve));
services.child.kill('SIGTERM');
baseline.child.kill('SIGTERM');
// The profile is written as the services' process exits.
await Promise.race([servicesExited, new Promise((resolve) => setTimeout(resolve, profileDir ? 10_000 : 500))]);
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
