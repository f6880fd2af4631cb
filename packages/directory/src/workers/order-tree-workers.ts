/**
 * An hour's order's tree hashed on a worker thread (issue 40): at 5 M places the leaves and the tiles
 * are tens of seconds of hashing, which on the node's own thread ran in slices between searches for
 * minutes after the hour's change. The statement's thread still reads the listings' keys and writes
 * the leaves' texts; a worker started for the one statement hashes them and is ended with it.
 */
import { hashedHere, type OrderTree, type OrderTreeHasher, type OrderTreeHashing } from '../domain/evidence/order-tree.js';
import type { OrderTreeRequest, OrderTreeResponse, OrderTreeWorkerData } from './order-tree-protocol.js';
import { siblingModule, startModuleWorker } from './module-worker.js';

const WORKER_URL = siblingModule('order-tree-worker', import.meta.url);

/** Orders of fewer places are hashed on the node's thread (a worker's start costs more than their hashing). */
export const ORDER_TREE_WORKER_FROM = 50_000;

/** Hashed on a worker thread. */
export const hashedInWorker: OrderTreeHasher = (size) => new WorkerHashing(size);

/** On a worker from `from` places (ORDER_TREE_WORKER_FROM unless given), on the node's thread below. */
export function orderTreeHasher(from = ORDER_TREE_WORKER_FROM): OrderTreeHasher {
  return (size) => (size >= from ? hashedInWorker(size) : hashedHere(size));
}

class WorkerHashing implements OrderTreeHashing {
  readonly #worker;
  /** One waiter per message sent, answered in order. */
  readonly #waiting: { resolve: (response: OrderTreeResponse) => void; reject: (error: Error) => void }[] = [];
  #failure: Error | null = null;
  #ended = false;

  constructor(size: number) {
    this.#worker = startModuleWorker(WORKER_URL, { size } satisfies OrderTreeWorkerData);
    this.#worker.on('message', (response: OrderTreeResponse) => {
      const waiter = this.#waiting.shift();
      if (!('error' in response)) return waiter?.resolve(response);
      const error = new Error(`hashing the order's tree: ${response.error}`);
      waiter?.reject(error);
      this.#fail(error);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      if (!this.#ended) this.#fail(new Error(`the order's tree worker stopped (exit code ${code})`));
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    this.abandon();
  }

  #send(request: OrderTreeRequest, handedOver: ArrayBuffer[] = []): Promise<OrderTreeResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    const answered = new Promise<OrderTreeResponse>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#worker.postMessage(request, handedOver);
    return answered;
  }

  async add(texts: readonly string[], places: Int32Array): Promise<void> {
    if (places.length !== texts.length) throw new Error(`${texts.length} leaf texts were given with ${places.length} places`);
    // Texts posted as strings were copied on this thread and made again on the worker, millions of
    // them an hour at 5 M; their bytes are handed over instead.
    const { bytes, ends } = prefixedLeaves(texts);
    const own = Int32Array.from(places);
    await this.#send({ bytes, ends, places: own }, [bytes.buffer as ArrayBuffer, ends.buffer as ArrayBuffer, own.buffer as ArrayBuffer]);
  }

  async finish(): Promise<OrderTree> {
    try {
      const response = await this.#send({ finish: true });
      if (!('root' in response)) throw new Error('the order tree worker answered the end of the leaves with no tree');
      return { root: bufferOf(response.root), tileRoots: bufferOf(response.tileRoots) };
    } finally {
      this.abandon();
    }
  }

  abandon(): void {
    if (this.#ended) return;
    this.#ended = true;
    void this.#worker.terminate();
  }
}

/** The texts' UTF-8, each after a 0x00, in memory of their own (never Node's shared pool, which cannot be handed over). */
export function prefixedLeaves(texts: readonly string[]): { bytes: Uint8Array; ends: Int32Array } {
  let size = 0;
  for (const text of texts) size += 1 + Buffer.byteLength(text, 'utf8');
  const bytes = Buffer.allocUnsafeSlow(size);
  const ends = new Int32Array(texts.length);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    bytes[at++] = 0x00;
    at += bytes.write(texts[i] as string, at, 'utf8');
    ends[i] = at;
  }
  return { bytes, ends };
}

/** A Buffer over a typed array's bytes (a Buffer posted between threads arrives as a Uint8Array). */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
