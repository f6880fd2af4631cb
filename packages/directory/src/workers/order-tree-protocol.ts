/** Messages between an hour's statement and the worker hashing its order's tree (order-tree-workers.ts, order-tree-worker.ts). */

export interface OrderTreeWorkerData {
  /** Places in the order: leaves to come. */
  size: number;
}

/**
 * Leaves and their places (0-based), or the end of them. The leaves come as bytes, each its text's
 * UTF-8 after a 0x00 (the leaf hash's own input), leaf i from `ends[i - 1]` (0 for the first) to
 * `ends[i]`: the three arrays' memory is handed over, not copied, and the worker makes no string.
 */
export type OrderTreeRequest = { bytes: Uint8Array; ends: Int32Array; places: Int32Array } | { finish: true };

/** Leaves hashed so far (after each part of leaves), the tree (after `finish`), or why it failed. */
export type OrderTreeResponse = { hashed: number } | { root: Uint8Array; tileRoots: Uint8Array } | { error: string };
