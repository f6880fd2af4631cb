/** Messages between an hour's statement and the worker hashing its order's tree (order-tree-workers.ts, order-tree-worker.ts). */
import type { StorageTarget } from '@svc/shared';
import type { LeafSources } from '../domain/evidence/statement-leaves.js';

export interface OrderTreeWorkerData {
  /** Places in the order: leaves to come. */
  size: number;
  /**
   * The directory's database, when the worker reads the listings' keys itself: the SQLite file
   * (opened read-only) or PostgreSQL (one connection of the worker's own, `connections` ignored).
   */
  keysFrom: StorageTarget | null;
}

/**
 * Leaves and their places (0-based), the sources to make every leaf from (with `keysFrom`), or the
 * end of them. The leaves come as bytes, each its text's UTF-8 after a 0x00 (the leaf hash's own
 * input), leaf i from `ends[i - 1]` (0 for the first) to `ends[i]`: the three arrays' memory is
 * handed over, not copied, and the worker makes no string.
 */
export type OrderTreeRequest = { bytes: Uint8Array; ends: Int32Array; places: Int32Array } | { read: LeafSources } | { finish: true };

/**
 * Leaves hashed so far (after each part of leaves), the leaves made from the keys (after `read`:
 * how many, and each place's leaf facts), the tree (after `finish`), or why it failed.
 */
export type OrderTreeResponse = { hashed: number } | { given: number; leafFacts: Uint32Array } | { root: Uint8Array; tileRoots: Uint8Array } | { error: string };
