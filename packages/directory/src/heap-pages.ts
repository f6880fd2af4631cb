/**
 * Handing back to the system the V8 heap pages a node's heavy work freed. V8 13 (Node 24) keeps the
 * pages a full collection frees in a pool, for the heap to grow into again, and empties that pool
 * only in a collection made to reduce memory (memory pressure, or the heap's last resort), which a
 * busy server seldom meets. A node's start (reading the index snapshot, or building the index) and a
 * rebuild in the background pass hundreds of MB through the heap: at 1 M listings on PostgreSQL
 * 125–250 MB of freed pages stayed resident for the node's life, a third of its memory
 * (docs/directory.md, "Freed heap pages handed back"). So after such work the node asks for the
 * collections that empty the pool: 100–160 ms on the node's thread at 1 M.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collection function with the options it takes (the `gc` of --expose-gc). */
export type HeapCollector = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

let collector: HeapCollector | null = null;

/**
 * V8's `gc`: the global one when the process runs with --expose-gc; otherwise taken from a fresh
 * context made while the flag is on, and the flag set off again at once, so that no other context
 * (a worker's, a later vm context) sees a `gc` it did not ask for.
 */
export function heapCollector(): HeapCollector {
  if (collector) return collector;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (collector = exposed as HeapCollector);
  setFlagsFromString('--expose-gc');
  try {
    collector = runInNewContext('gc') as HeapCollector;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collector;
}

export interface HeapPagesReleased {
  /** How long the node's thread was held (ms). */
  ms: number;
  /** The process's resident memory before and after (MB). */
  rssBeforeMb: number;
  rssAfterMb: number;
}

const MB = 2 ** 20;

/**
 * A full collection of the memory-reducing kind ("last resort": V8 also shrinks its young
 * generation and empties the page pool). On V8 older than 12, which has no such flavor, it is a
 * plain full collection.
 */
export function releaseFreedHeapPages(): HeapPagesReleased {
  const collect = heapCollector();
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  // Twice: the first also shrinks the young generation, whose pages it frees into the pool after
  // emptying it; the second hands those back.
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const ms = performance.now() - started;
  const rssAfter = process.memoryUsage.rss();
  return { ms: Math.round(ms), rssBeforeMb: Math.round(rssBefore / MB), rssAfterMb: Math.round(rssAfter / MB) };
}
