/**
 * The gazetteer of the pages' "where" (packages/directory/src/domain/places/gazetteer.ts): how long
 * its first look-up takes to read GeoNames' cities500 into memory, how much memory it keeps, and how
 * long a look-up and a suggestion take afterwards (the median and the slowest of a few hundred).
 * The baseline is the process before the first look-up.
 *
 *   node --expose-gc --import tsx bench/gazetteer.ts [--runs 300]
 */
import { gazetteer } from '../packages/directory/src/domain/places/gazetteer.js';

const runsAt = process.argv.indexOf('--runs');
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 300;
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
let at = performance.now();
const g = gazetteer();
const loadMs = performance.now() - at;
const cpu = process.cpuUsage(cpuBefore);
gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
const rssMb = (process.memoryUsage().rss - rssBefore) / 1e6;

function time(label: string, texts: string[], run: (text: string) => unknown) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const text = texts[i % texts.length] as string;
    at = performance.now();
    run(text);
    ms.push(performance.now() - at);
  }
  ms.sort((a, b) => a - b);
  return `${label}: median ${ms[Math.floor(ms.length / 2)]!.toFixed(3)} ms, slowest ${ms[ms.length - 1]!.toFixed(2)} ms`;
}

const names = ['Berlin', 'Lisboa', 'Lisbon', 'Porto, Portugal', 'Alemanha', 'São Paulo', 'Accra', 'New York', 'Munich', 'Qwxzyville'];
const beginnings = ['li', 'lis', 'lisb', 'ber', 'sao p', 'mun', 'por', 'ne'];
console.log(`places ${g.size}; first look-up ${loadMs.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU; heap +${heapMb.toFixed(0)} MB, RSS +${rssMb.toFixed(0)} MB (load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`);
console.log(time('resolve a name', names, (t) => g.resolve(t)));
console.log(time('suggest (beginnings of 2 to 5 letters)', beginnings, (t) => g.suggest(t, 8)));
console.log(time('nearest town to a point', ['x'], () => g.nearest(38.72, -9.14)));
