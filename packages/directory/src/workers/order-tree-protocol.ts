/** Messages between an hour's statement and the worker hashing its order's tree (order-tree-workers.ts, order-tree-worker.ts). */

export interface OrderTreeWorkerData {
  /** Places in the order: leaves to come. */
  size: number;
}

/** Leaf texts and their places (0-based), or the end of them. */
export type OrderTreeRequest = { texts: readonly string[]; places: Int32Array } | { finish: true };

/** Leaves hashed so far (after each `texts`), the tree (after `finish`), or why it failed. */
export type OrderTreeResponse = { hashed: number } | { root: Uint8Array; tileRoots: Uint8Array } | { error: string };
