/**
 * An hour's order's tree hashed on a worker thread (issue 40): at 5 M places the leaves and the tiles
 * are tens of seconds of hashing, which on the node's own thread ran in slices between searches for
 * minutes after the hour's change. Given the database (a file or a server, not an in-memory one),
 * the worker also reads the listings' keys and makes the leaves itself, on a connection of its own:
 * parsing millions of rows and writing their texts took a tenth of the searches' thread for a minute
 * at 5 M. Otherwise the statement's thread makes the texts and hands them over. A worker is started
 * for the one statement and ended with it.
 */
import type { StorageTarget } from '@svc/shared/storage';
import { hashedHere, type OrderTree, type OrderTreeHasher, type OrderTreeHashing } from '../domain/evidence/order-tree.js';
import type { LeafSources } from '../domain/evidence/statement-leaves.js';
import type { OrderTreeRequest, OrderTreeResponse, OrderTreeWorkerData } from './order-tree-protocol.js';
import { siblingModule, startModuleWorker } from './module-worker.js';

const WORKER_URL = siblingModule('order-tree-worker', import.meta.url);

/** Orders of fewer places are hashed on the node's thread (a worker's start costs more than their hashing). */
export const ORDER_TREE_WORKER_FROM = 50_000;

/** Hashed on a worker thread; with `keysFrom`, which also reads the listings' keys and makes the leaves. */
export function hashedInWorker(keysFrom: StorageTarget | null = null): OrderTreeHasher {
  return (size) => new WorkerHashing(size, keysFrom);
}

/**
 * On a worker from `from` places (ORDER_TREE_WORKER_FROM unless given), on the node's thread below.
 * `keysFrom`: the database the worker may read the listings' keys from (null for an in-memory one).
 */
export function orderTreeHasher(from = ORDER_TREE_WORKER_FROM, keysFrom: StorageTarget | null = null): OrderTreeHasher {
  const inWorker = hashedInWorker(keysFrom);
  return (size) => (size >= from ? inWorker(size) : hashedHere(size));
}

class WorkerHashing implements OrderTreeHashing {
  readonly #worker;
  /** One waiter per message sent, answered in order. */
  readonly #waiting: { resolve: (response: OrderTreeResponse) => void; reject: (error: Error) => void }[] = [];
  #failure: Error | null = null;
  #ended = false;

  /** Present when the worker has a connection to read the listings from (OrderTreeHashing.readKeys). */
  readonly readKeys?: (sources: LeafSources) => Promise<{ given: number; leafFacts: Uint32Array }>;

  constructor(size: number, keysFrom: StorageTarget | null) {
    this.#worker = startModuleWorker(WORKER_URL, { size, keysFrom } satisfies OrderTreeWorkerData);
    if (keysFrom) this.readKeys = (sources) => this.#readKeys(sources);
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

  async #readKeys(sources: LeafSources): Promise<{ given: number; leafFacts: Uint32Array }> {
    const { placeOfSeq, rankFacts } = sources;
    const response = await this.#send({ read: sources }, [placeOfSeq.buffer as ArrayBuffer, rankFacts.buffer as ArrayBuffer]);
    if (!('leafFacts' in response)) throw new Error("the order tree worker answered the listings' keys with no leaves");
    return response;
  }

  async finish(): Promise<OrderTree> {
    try {
      const response = await this.#send({ finish: true });
      if (!('root' in response)) throw new Error('the order tree worker answered the end of the leaves with no tree');
      return { root: bufferOf(response.root), tileRoots: bufferOf(response.tileRoots) };
    } finally {
      // The worker and its heap (every key it read) are gone before the statement is said made.
      await this.#end();
    }
  }

  abandon(): void {
    void this.#end();
  }

  #exited: Promise<unknown> | null = null;

  #end(): Promise<unknown> {
    this.#ended = true;
    return (this.#exited ??= this.#worker.terminate());
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
