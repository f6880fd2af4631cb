/**
 * The directory server's CPU time per request (its process, all threads, from /proc) under
 * autocannon, per query of the mix, every cache off: a steadier figure than req/s when other work
 * shares the machine, for optimisation work. PROF=<file> also writes a CPU profile of the load.
 *
 *   npx tsx bench/directory-cpu.ts [size=100000] [seconds=4]
 *
 * Uses the data folder bench/directory.ts prepared (bench/.data/directory-<size>). On PostgreSQL:
 * DIRECTORY_DATABASE_URL=<its database bench_directory_<size>> (the data folder is then
 * bench/.data/directory-<size>-postgres, as bench/directory.ts keeps it), and POSTGRES_PID=<the
 * server's postmaster pid, the first line of its data folder's postmaster.pid> to count the CPU of
 * the server's processes too (every backend and helper, the answer workers' connections among them).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
const size = process.argv[2] ?? '100000';
// The server runs the compiled code (bench/directory-server.ts): brought up to date first.
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
const child = spawn(process.execPath, ['--max-old-space-size=20000', '--max-semi-space-size=64', '--import', 'tsx', 'bench/directory-server.ts'], {
  env: { ...process.env, DATA_DIR: `bench/.data/directory-${size}${process.env.DIRECTORY_DATABASE_URL ? '-postgres' : ''}`, PORT: '0', BENCH_NOW: '2026-12-08T12:00:00Z', DIRECTORY_ANSWER_CACHE: 'off', ...(process.env.PROF ? { BENCH_PROFILE: process.env.PROF } : {}) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = await new Promise<{ address: string }>((resolve) => createInterface({ input: child.stdout! }).on('line', (l) => { const j = JSON.parse(l); if (j.ready) resolve(j); }));
const ticksOf = (stat: string) => { const f = readFileSync(stat, 'utf8').split(') ')[1]!.split(' '); return Number(f[11]) + Number(f[12]); };
const ticks = () => ticksOf(`/proc/${child.pid}/stat`);
/** The server's main thread alone (answer workers and Node's helper threads are the rest). */
const mainTicks = () => ticksOf(`/proc/${child.pid}/task/${child.pid}/stat`);
/** The PostgreSQL server's processes (the postmaster's children, itself included), or 0 without POSTGRES_PID. */
const postmaster = process.env.POSTGRES_PID ? Number(process.env.POSTGRES_PID) : null;
const databaseTicks = () => {
  if (postmaster === null) return 0;
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.split(') ')[1]!.split(' ');
      if (Number(pid) === postmaster || Number(fields[1]) === postmaster) sum += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Ended meanwhile.
    }
  }
  return sum;
};
const mix = ['/v1/businesses', '/v1/businesses?q=coffee', '/v1/businesses?near=40.7128,-74.0060&radius_km=10', '/v1/businesses?category=restaurant', '/v1/businesses?open_now=true', '/v1/businesses?category=hair-beauty&language=en&open_now=true', '/v1/businesses?near=38.7223,-9.1393&radius_km=50&order=nearest'];
let total = 0, mainTotal = 0, dbTotal = 0, reqs = 0;
for (const path of mix) await autocannon({ url: info.address + path, connections: 10, duration: 1 });
if (process.env.PROF) child.kill('SIGUSR2');
for (const path of mix) {
  await autocannon({ url: info.address + path, connections: 10, duration: 1 });
  const t0 = ticks();
  const m0 = mainTicks();
  const d0 = databaseTicks();
  const r = await autocannon({ url: info.address + path, connections: 10, duration: Number(process.argv[3] ?? 4) });
  const cpu = (ticks() - t0) * 10; // ms (100 Hz)
  const mainCpu = (mainTicks() - m0) * 10;
  const dbCpu = (databaseTicks() - d0) * 10;
  total += cpu; mainTotal += mainCpu; dbTotal += dbCpu; reqs += r.requests.total;
  const database = postmaster === null ? '' : ` ${(dbCpu / r.requests.total * 1000).toFixed(0).padStart(6)} us in PostgreSQL`;
  console.log(path.padEnd(70), String(Math.round(r.requests.average)).padStart(6), 'req/s', (cpu / r.requests.total * 1000).toFixed(0).padStart(6), 'us CPU/req', (mainCpu / r.requests.total * 1000).toFixed(0).padStart(6), `us on the main thread${database}`, 'p99', r.latency.p99, 'load', loadavg()[0]!.toFixed(2));
}
if (process.env.PROF) { child.kill('SIGUSR2'); await new Promise((r) => setTimeout(r, 2000)); }
console.log('all', (total / reqs * 1000).toFixed(0), 'us CPU/req', (mainTotal / reqs * 1000).toFixed(0), 'us on the main thread', ...(postmaster === null ? [] : [(dbTotal / reqs * 1000).toFixed(0), 'us in PostgreSQL']));
child.kill();
