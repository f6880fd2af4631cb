/**
 * The longest step of the index's work done off the search path (issue 40): the next hour's
 * layout (`relaidInSteps`) is run a step at a time, as `runInSteps` runs it, and each step between
 * two pauses is timed. A search that arrives during a step waits for it to end, so the longest
 * steps are what the hour's change can add to a search's latency, whatever the slice.
 *
 *   npx tsx bench/directory-steps.ts [--size 1000000] [--rounds 2]
 *
 * Uses the data folder bench/directory.ts prepared (bench/.data/directory-<size>); the order laid
 * out is the index's own, shuffled (every listing moves, as at a day's new shuffle), and the laid-out
 * index's map of places is made after it (as after the hour's change); then the preparation's
 * shuffle and rank tables by seq are made from rows in another shuffled order (`shuffles`, `ranks`). Each step's wall time is
 * given with the thread's CPU time in it (other work on the machine shows as the difference). STEPS_LONG=<ms> writes the
 * steps longer than that, as [start, end] in µs of the monotonic clock, to STEPS_OUT-<label>-<round>.json
 * (to find them in a CPU profile). Writes bench/results/directory-steps-<time>.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { storedDirectory } from './support/stored-directory.js';
import { DayShuffles, HourRanks, type FactRows } from '../packages/directory/src/domain/ranking/hourly-order.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(String(process.argv[i]).replace(/^--/, ''), String(process.argv[i + 1]));
const size = Number(args.get('size') ?? 1_000_000);
const rounds = Number(args.get('rounds') ?? 2);

const directory = await storedDirectory(size);
const state = await directory.search.hour();
await directory.search.settled();
const main = state.index.main;
const seqAt = (main as unknown as { seqAt: Int32Array }).seqAt;
console.log(`index of ${main.size} ready; load ${loadavg()[0]!.toFixed(1)}`);

function shuffled(seqs: Int32Array, seed: number): Int32Array {
  const out = seqs.slice();
  let x = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    const t = out[i]!; out[i] = out[j]!; out[j] = t;
  }
  return out;
}

const threadCpu = (process as { threadCpuUsage?: (since?: NodeJS.CpuUsage) => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
const cpuUsage = (since?: NodeJS.CpuUsage): NodeJS.CpuUsage => (threadCpu ? threadCpu(since) : process.cpuUsage(since));

/** The rows of an hour's facts in the order `seqs` (made up: the tables below read only seqs and numbers). */
function factRowsOf(seqs: Int32Array): FactRows {
  return { length: seqs.length, seq: (i) => seqs[i]!, packed: (i) => (seqs[i]! & 0x7f) + 1, shuffleHi: (i) => Math.imul(seqs[i]!, 0x9e3779b1) >>> 0, shuffleLo: (i) => Math.imul(seqs[i]!, 0x85ebca6b) >>> 0 };
}

/** Runs a stepwise computation a step at a time, each step timed; prints the longest. */
function timedSteps<T>(label: string, steps: Generator<void, T>, round: number): T {
  const times: number[] = [];
  // this thread's CPU time in each step (Node 23.9+; the whole process's before, GC helpers included):
  // the wall time less what other work on the machine took from it
  const cpu: number[] = [];
  // each step's start on the monotonic clock in µs, as a CPU profile (--cpu-prof) stamps its samples
  const startsUs: number[] = [];
  const started = performance.now();
  let value: T;
  for (;;) {
    startsUs.push(Number(process.hrtime.bigint() / 1000n));
    const c = cpuUsage();
    const t = performance.now();
    const step = steps.next();
    times.push(performance.now() - t);
    const used = cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    if (step.done) {
      value = step.value;
      break;
    }
  }
  const total = performance.now() - started;
  const sorted = [...times].sort((a, b) => b - a);
  const over = (ms: number) => times.filter((t) => t > ms).length;
  const at = sorted.slice(0, 6).map((ms) => `${ms.toFixed(1)}@${times.indexOf(ms)}`);
  const cpuSorted = [...cpu].sort((a, b) => b - a);
  const cpuOver = (ms: number) => cpu.filter((t) => t > ms).length;
  if (process.env.STEPS_LONG) {
    const long = times.flatMap((ms, i) => (ms > Number(process.env.STEPS_LONG) ? [[startsUs[i], startsUs[i]! + Math.round(ms * 1000)]] : []));
    writeFileSync(`${process.env.STEPS_OUT ?? '/tmp/long-steps'}-${label}-${round}.json`, JSON.stringify(long));
  }
  console.log(`round ${round} ${label}: ${times.length} steps in ${(total / 1000).toFixed(2)} s; longest ${at.join(' ')} ms (step number); over 5 ms: ${over(5)}, over 10 ms: ${over(10)}; by CPU time: longest ${cpuSorted.slice(0, 6).map((ms) => ms.toFixed(1)).join(' ')} ms, over 5 ms: ${cpuOver(5)}, over 10 ms: ${cpuOver(10)}; load ${loadavg()[0]!.toFixed(1)}`);
  results.push({ round, label, steps: times.length, totalMs: Math.round(total), longestMs: sorted.slice(0, 6).map((ms) => Math.round(ms * 10) / 10), over5: over(5), over10: over(10), cpuLongestMs: cpuSorted.slice(0, 6).map((ms) => Math.round(ms * 10) / 10), cpuOver5: cpuOver(5), cpuOver10: cpuOver(10), load: loadavg()[0] });
  return value;
}

const results: Record<string, unknown>[] = [];
for (let r = 1; r <= rounds; r++) {
  const laid = timedSteps('relay', main.relaidInSteps(shuffled(seqAt, 7 + r)), r);
  timedSteps('places', laid.placesInSteps(), r);
  // the preparation's tables by seq, made from the sorted order's rows (written at random places)
  const rows = factRowsOf(shuffled(seqAt, 70 + r));
  timedSteps('shuffles', DayShuffles.fromRowsInSteps('2026-12-08', rows), r);
  timedSteps('ranks', HourRanks.fromRowsInSteps(rows), r);
}
const file = join(new URL('.', import.meta.url).pathname, 'results', `directory-steps-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ size, listed: main.size, node: process.version, results }, null, 2));
console.log(`results: ${file}`);
await directory.close();
