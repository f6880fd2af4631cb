/**
 * Small seeded random helpers for the demo generators: sfc32 (128-bit state, fast, good enough for
 * test data) seeded through splitmix32, plus picking helpers. Nothing here is for security.
 */

export type Rand = () => number;

/** splitmix32 step: a well-mixed 32-bit value from any 32-bit input. */
export function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/** sfc32 seeded from a number; returns floats in [0, 1). */
export function sfc32(seed: number): Rand {
  const s = Math.trunc(seed) | 0;
  let a = mix32(s);
  let b = mix32(a ^ 0x85ebca6b);
  let c = mix32(b ^ 0xc2b2ae35);
  let d = mix32(c ^ (Math.trunc(seed / 0x100000000) | 0));
  const next = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** FNV-1a over the UTF-16 code units of a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

export function int(rand: Rand, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

export function pick<T>(rand: Rand, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

export function chance(rand: Rand, p: number): boolean {
  return rand() < p;
}

/** Up to `n` distinct items, in the list's order (a partial Fisher-Yates over indexes). */
export function sample<T>(rand: Rand, items: readonly T[], n: number): T[] {
  const count = Math.min(n, items.length);
  if (count <= 0) return [];
  const idx: number[] = [];
  for (let i = 0; i < items.length; i++) idx.push(i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rand() * (idx.length - i));
    const tmp = idx[i] as number;
    idx[i] = idx[j] as number;
    idx[j] = tmp;
  }
  const chosen = idx.slice(0, count).sort((x, y) => x - y);
  return chosen.map((i) => items[i] as T);
}

/** Cumulative weights for `weightedIndex`. */
export function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    total += weights[i] as number;
    out[i] = total;
  }
  return out;
}

/** Binary search of a cumulative weight table. */
export function weightedIndex(rand: Rand, cum: Float64Array): number {
  const total = cum[cum.length - 1] as number;
  const r = rand() * total;
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cum[mid] as number) <= r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
