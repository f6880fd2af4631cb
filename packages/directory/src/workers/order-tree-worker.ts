/**
 * The worker thread hashing an hour's order's tree: each place's leaf as its text comes, then the
 * whole tiles' roots and the root (domain/evidence/order-tree.ts, as the node's own thread does).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LeafHashes, treeOfHashes } from '../domain/evidence/order-tree.js';
import { runPaced } from '../domain/stepwise.js';
import type { OrderTreeRequest, OrderTreeResponse, OrderTreeWorkerData } from './order-tree-protocol.js';

const port = parentPort;
if (!port) throw new Error('order-tree-worker runs on a worker thread');
const { size } = workerData as OrderTreeWorkerData;
const leaves = new LeafHashes(size);

port.on('message', async (request: OrderTreeRequest) => {
  let response: OrderTreeResponse;
  try {
    if ('bytes' in request) {
      const { bytes, ends, places } = request;
      if (ends.length !== places.length) throw new Error(`${ends.length} leaves were given with ${places.length} places`);
      for (let i = 0, from = 0; i < ends.length; i++) {
        const to = ends[i] as number;
        leaves.setPrefixed(places[i] as number, bytes.subarray(from, to));
        from = to;
      }
      response = { hashed: leaves.count };
    } else {
      // The tiles and the root, millions of nodes at 5 M: paced, or this thread holds a core for seconds.
      const tree = await runPaced(treeOfHashes(leaves.whole(), size));
      response = { root: tree.root, tileRoots: tree.tileRoots };
    }
  } catch (error) {
    response = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(response);
});
