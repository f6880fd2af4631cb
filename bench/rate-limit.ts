/**
 * What the burst budgets cost (issue: at least 90% of the requests per second of the same route
 * without them). Two inboxes in their own processes, the same demo business, one with the budgets
 * counting every request (INBOX_RATE_LIMIT=100000: counted, never refused) and one with them off
 * (INBOX_RATE_LIMIT=0). autocannon drives both from this process on 127.0.0.1, alternating rounds
 * so both see the same machine, on a public read (GET /v1/business, per-address budget) and an
 * owner read (GET /v1/owner/items?limit=1, per-credential budget, hashed key). Beside req/s, each
 * server's CPU time per request (asked by SIGHUP before and after each run) and the share it
 * implies, which a machine busy with other work moves much less than req/s.
 *
 *   npx tsx bench/rate-limit.ts [--duration 5] [--rounds 2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const duration = option('duration', 5);
const rounds = option('rounds', 2);
const connections = 16;
const root = new URL('.', import.meta.url).pathname;

interface Server {
  child: ChildProcess;
  address: string;
  ownerKey: string;
  /** Lines the server printed after its first, waiting to be read. */
  lines: AsyncIterator<string>;
}

async function server(scale: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'rate-limit-server.ts')], { env: { ...process.env, INBOX_RATE_LIMIT: scale }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`a bench server exited with ${code}`);
  });
  const first = await lines.next();
  if (first.done) throw new Error('the bench server exited before it was ready');
  return { child, lines, ...(JSON.parse(first.value) as { address: string; ownerKey: string }) };
}

/** The server's CPU time so far (µs), asked by SIGHUP. */
async function cpuMicros(s: Server): Promise<number> {
  s.child.kill('SIGHUP');
  const line = await s.lines.next();
  if (line.done) throw new Error('the bench server exited');
  return (JSON.parse(line.value) as { cpuMicros: number }).cpuMicros;
}

const [limited, unlimited] = await Promise.all([server('100000'), server('0')]);
const cases = [
  { name: 'GET /v1/business (public read, per address)', path: '/v1/business', owner: false },
  { name: 'GET /v1/owner/items?limit=1 (owner, per key)', path: '/v1/owner/items?limit=1', owner: true },
];
const results: Record<string, { on: number[]; off: number[]; p99On: number[]; p99Off: number[]; cpuOn: number[]; cpuOff: number[]; non2xx: number }> = {};
for (const c of cases) results[c.name] = { on: [], off: [], p99On: [], p99Off: [], cpuOn: [], cpuOff: [], non2xx: 0 };

const run = (s: Server, c: (typeof cases)[number]) =>
  autocannon({ url: `${s.address}${c.path}`, connections, duration, headers: c.owner ? { authorization: `Bearer ${s.ownerKey}` } : {} });
// Warm both (JIT, caches) before measuring.
for (const s of [limited, unlimited]) await autocannon({ url: `${s.address}/v1/business`, connections, duration: 1 });
for (let round = 0; round < rounds; round += 1) {
  for (const c of cases) {
    const order = round % 2 === 0 ? [limited, unlimited] : [unlimited, limited];
    for (const s of order) {
      const cpuBefore = await cpuMicros(s);
      const r = await run(s, c);
      const cpuPerRequest = ((await cpuMicros(s)) - cpuBefore) / Math.max(1, r.requests.total);
      const entry = results[c.name]!;
      if (s === limited) {
        entry.on.push(r.requests.average);
        entry.p99On.push(r.latency.p99);
        entry.cpuOn.push(cpuPerRequest);
      } else {
        entry.off.push(r.requests.average);
        entry.p99Off.push(r.latency.p99);
        entry.cpuOff.push(cpuPerRequest);
      }
      entry.non2xx += r.non2xx;
    }
  }
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(`\nBurst budgets on vs off, ${connections} connections, ${rounds} rounds of ${duration} s each, Node ${process.version}\n`);
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log('| route | budgets on req/s | off req/s | on/off | p99 on | p99 off | CPU µs/req on | off | CPU share | non-2xx |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [name, r] of Object.entries(results)) {
  const on = mean(r.on);
  const off = mean(r.off);
  console.log(`| ${name} | ${Math.round(on)} | ${Math.round(off)} | ${((100 * on) / off).toFixed(1)}% | ${mean(r.p99On).toFixed(0)} ms | ${mean(r.p99Off).toFixed(0)} ms | ${mean(r.cpuOn).toFixed(0)} | ${mean(r.cpuOff).toFixed(0)} | ${((100 * mean(r.cpuOff)) / mean(r.cpuOn)).toFixed(1)}% | ${r.non2xx} |`);
}
for (const s of [limited, unlimited]) s.child.kill('SIGTERM');
