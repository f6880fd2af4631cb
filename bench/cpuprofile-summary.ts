/**
 * Summarises a V8 CPU profile (.cpuprofile, as bench/inbox.ts --profile writes): the functions with
 * the most self time, and the most inclusive time (a function counted once per sample however deep
 * it recurses), as shares of the samples that were not idle.
 *
 *   npx tsx bench/cpuprofile-summary.ts <file.cpuprofile> [--top 40] [--match <text>]
 *
 * --match keeps inclusive rows whose function or file holds the text (e.g. --match kysely).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/cpuprofile-summary.ts <file.cpuprofile> [--top 40] [--match <text>]');
  process.exit(2);
}
const options = new Map<string, string>();
for (let i = 0; i < rest.length; i += 2) options.set(String(rest[i]).replace(/^--/, ''), String(rest[i + 1]));
const top = Number(options.get('top') ?? 40);
const match = options.get('match');

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode): string => {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, '~/').replace(/.*\/packages\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
};
const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
let gc = 0;
for (const id of profile.samples) {
  const node = byId.get(id)!;
  const name = node.callFrame.functionName;
  if (name === '(garbage collector)') gc++;
  if (IDLE.has(name)) continue;
  busy++;
  const own = label(node);
  self.set(own, (self.get(own) ?? 0) + 1);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
  }
}
const pct = (n: number): string => `${((n / busy) * 100).toFixed(1).padStart(5)}%`;
const total = profile.samples.length;
console.log(`${total} samples, ${busy} busy (${((busy / total) * 100).toFixed(0)}%), GC ${((gc / total) * 100).toFixed(1)}% of all`);
console.log('\nself:');
for (const [l, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(n)}  ${l}`);
console.log('\ninclusive:');
const rows = [...inclusive].filter(([l]) => !match || l.includes(match)).sort((a, b) => b[1] - a[1]);
for (const [l, n] of rows.slice(0, top)) console.log(`${pct(n)}  ${l}`);
