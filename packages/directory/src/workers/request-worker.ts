/**
 * A worker thread that answers requests by number, for the bulk load's SQLite writer and its page
 * renderers. The worker says it is ready once (its modules loaded, its connection or renderer made),
 * then answers each request with the request's id. A request waits both for its answer and for the
 * ready; once the worker fails (an error thrown on its thread, a refused ready, its exit) every
 * request waiting and every later one rejects with that first failure.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';

/** A worker's first message. */
export interface WorkerReady {
  ready: true;
}

/** The answer to the request of the same id. */
export interface WorkerAnswer {
  id: number;
}

export interface RequestWorkerOptions<Answer extends WorkerAnswer, Ready extends WorkerReady> {
  /** What the worker is, for the error its exit gives ("the load's SQLite writer"). */
  name: string;
  /** The error an answer reports, or null when it has none. */
  errorOf: (answer: Answer) => Error | null;
  /** Why the worker's ready is refused (it made pages of another version), or null to take it. */
  refuseReady?: (ready: Ready) => Error | null;
}

interface Waiting<Answer> {
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

export class RequestWorker<Request extends object, Answer extends WorkerAnswer, Ready extends WorkerReady = WorkerReady> {
  readonly #worker: Worker;
  readonly #ready: Promise<void>;
  readonly #waiting = new Map<number, Waiting<Answer>>();
  readonly #exited: Promise<void>;
  #failure: Error | null = null;
  #ids = 0;

  constructor(module: URL, workerData: unknown, options: RequestWorkerOptions<Answer, Ready>) {
    this.#worker = startModuleWorker(module, workerData);
    let readyNow: () => void = () => undefined;
    let failedNow: (error: Error) => void = () => undefined;
    this.#ready = new Promise<void>((resolve, reject) => {
      readyNow = resolve;
      failedNow = reject;
    });
    // A worker that fails before any request is seen by the next request, not as an unhandled rejection.
    this.#ready.catch(() => undefined);
    const fail = (error: Error) => {
      this.#failure ??= error;
      failedNow(error);
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    this.#worker.on('message', (message: Answer | Ready) => {
      if ('ready' in message) {
        const refused = options.refuseReady?.(message) ?? null;
        return refused ? fail(refused) : readyNow();
      }
      const waiting = this.#waiting.get(message.id);
      if (!waiting) return;
      this.#waiting.delete(message.id);
      const error = options.errorOf(message);
      if (error) waiting.reject(error);
      else waiting.resolve(message);
    });
    this.#worker.on('error', (error) => fail(error));
    this.#exited = new Promise<void>((resolve) =>
      this.#worker.once('exit', (code) => {
        fail(new Error(`${options.name} stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  /** Whether the worker has failed (or ended): requests to it reject. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /** Sends `request` under the next id; answers the worker's answer once it is ready and has answered. */
  async request(request: Request): Promise<Answer> {
    if (this.#failure) throw this.#failure;
    const id = this.#ids++;
    const answered = new Promise<Answer>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    this.#worker.postMessage({ ...request, id });
    // Both awaited: a worker that fails rejects both, and neither is left unobserved.
    const [, answer] = await Promise.all([this.#ready, answered]);
    return answer;
  }

  /** Sends a message that gets no answer (the worker's own word to end). */
  post(message: unknown): void {
    this.#worker.postMessage(message);
  }

  /** Waits for the thread to end by itself (after a word to end). */
  async exited(): Promise<void> {
    await this.#exited;
  }

  /** Ends the thread now. */
  async terminate(): Promise<void> {
    await this.#worker.terminate();
    await this.#exited;
  }
}
