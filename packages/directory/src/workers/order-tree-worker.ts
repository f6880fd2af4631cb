/**
 * The worker thread hashing an hour's order's tree: each place's leaf as its text comes (or, given
 * a connection of its own, made here from the listings' keys it reads), then the whole tiles' roots
 * and the root (domain/evidence/order-tree.ts, as the node's own thread does).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LeafHashes, treeOfHashes } from '../domain/evidence/order-tree.js';
import { keysInSeqOrder, leavesOfKeys, type LeafSources } from '../domain/evidence/statement-leaves.js';
import { releaseFreedHeapPages } from '../heap-pages.js';
import { pauseAfterQuery, runPaced } from '../domain/stepwise.js';
import type { OrderTreeRequest, OrderTreeResponse, OrderTreeWorkerData } from './order-tree-protocol.js';

const port = parentPort;
if (!port) throw new Error('order-tree-worker runs on a worker thread');
const { size, keysFrom } = workerData as OrderTreeWorkerData;
const leaves = new LeafHashes(size);

port.on('message', async (request: OrderTreeRequest) => {
  let response: OrderTreeResponse;
  const handedOver: ArrayBuffer[] = [];
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
    } else if ('read' in request) {
      const leafFacts = await leavesFromKeys(request.read);
      response = { given: leaves.count, leafFacts };
      handedOver.push(leafFacts.buffer as ArrayBuffer);
    } else {
      // The tiles and the root, millions of nodes at 5 M: paced, or this thread holds a core for seconds.
      const tree = await runPaced(treeOfHashes(leaves.whole(), size));
      response = { root: tree.root, tileRoots: tree.tileRoots };
      // This worker ends with the tree. Node 24's V8 leaves the heap pages a worker's collections
      // pooled resident in the process after the worker ends (250 MB at 1 M listings, every hour
      // the statement is made): handed back here, while the worker can still do it.
      releaseFreedHeapPages();
    }
  } catch (error) {
    response = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(response, handedOver);
});

/**
 * Every listing's key read in seq order from this worker's own connection, and each leaf made and
 * hashed at its place; after each part a rest as long as its read and its work took, so that this
 * thread and the database server each hold at most about half of a core beside the searches.
 */
async function leavesFromKeys(sources: LeafSources): Promise<Uint32Array> {
  if (!keysFrom) throw new Error('this worker was started without a connection to read the listings from');
  const { ListingKeysReader } = await import('../store/kysely/listing-keys-reader.js');
  const reader = new ListingKeysReader(keysFrom);
  const leafFacts = new Uint32Array(size);
  try {
    let started = performance.now();
    for await (const keys of keysInSeqOrder((after, limit) => reader.after(after, limit))) {
      const { texts, places } = leavesOfKeys(keys, sources, leafFacts);
      for (let i = 0; i < texts.length; i++) leaves.set(places[i] as number, texts[i] as string);
      await pauseAfterQuery(performance.now() - started);
      if (leaves.count >= size) break;
      started = performance.now();
    }
  } finally {
    await reader.close();
  }
  return leafFacts;
}
