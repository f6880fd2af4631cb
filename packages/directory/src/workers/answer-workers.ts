/**
 * The server's side of its answer workers: sends each answer's plan to the least busy worker and
 * gives back the bytes it assembled, or null (the server's thread then answers itself) when a page
 * was missing, the worker failed, took too long or is gone. A worker that dies or hangs is replaced
 * on the next answer, at most once per RESPAWN_MS.
 */
import type { HeapInfo } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { AnswerAssembler, AnswerPlan } from '../domain/search/answer-assembly.js';
import { siblingModule, startModuleWorker } from './module-worker.js';
import { encodePlan, type AnswerRequest, type AnswerResponse, type AnswerWorkerData, type AnswerWorkerReady } from './answer-protocol.js';

/** An answer takes ~1 ms; one not back by then is given up and its worker replaced. */
const ANSWER_TIMEOUT_MS = 2_000;
/**
 * A worker loads its modules and opens its connection before it says it is ready (seconds on a busy
 * machine, more from source); an answer sent meanwhile waits up to this long, then the answer timeout
 * counts from the ready.
 */
const START_TIMEOUT_MS = 30_000;
/** A worker that stopped is started again on a later answer, not sooner than this after the last start. */
const RESPAWN_MS = 10_000;

interface Pending {
  resolve: (bytes: Buffer | null) => void;
  timer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker | null;
  pending: Map<number, Pending>;
  startedAt: number;
  /** The worker said it is ready (its modules loaded, its connection open). */
  ready: boolean;
}

export interface AnswerWorkersOptions extends AnswerWorkerData {
  count: number;
  /** Told when a worker fails (it is replaced). */
  onError: (message: string, error?: unknown) => void;
  /** Tests: shorter waits, and another worker module (one that never answers). */
  answerTimeoutMs?: number;
  startTimeoutMs?: number;
  respawnMs?: number;
  workerModule?: URL;
  /** Each worker's young generation in MB (`resourceLimits.maxYoungGenerationSizeMb`); unset: V8's own. */
  youngGenerationMb?: number;
}

export class AnswerWorkers implements AnswerAssembler {
  readonly #options: AnswerWorkersOptions;
  readonly #slots: Slot[];
  #nextId = 1;
  #closed = false;
  /** Answers assembled by a worker, and those left to the server's thread (a page missing or stale, a worker failing or gone). */
  readonly counts = { assembled: 0, declined: 0 };

  constructor(options: AnswerWorkersOptions) {
    this.#options = options;
    this.#slots = Array.from({ length: options.count }, () => ({ worker: null, pending: new Map(), startedAt: -Infinity, ready: false }));
  }

  assemble(plan: AnswerPlan): Promise<Buffer | null> {
    const slot = this.#leastBusy();
    const worker = slot && this.#started(slot);
    if (!slot || !worker) {
      this.counts.declined++;
      return Promise.resolve(null);
    }
    const id = this.#nextId++;
    let request: AnswerRequest;
    try {
      request = encodePlan(id, plan);
    } catch (error) {
      this.#options.onError('an answer could not be sent to a worker', error);
      this.counts.declined++;
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      slot.pending.set(id, { resolve, timer: this.#timeout(slot) });
      worker.postMessage(request);
    });
  }

  /** Gives up on a slot's worker when an answer is not back in time (counted from its ready while it starts). */
  #timeout(slot: Slot): NodeJS.Timeout {
    const timeoutMs = slot.ready ? (this.#options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS) : (this.#options.startTimeoutMs ?? START_TIMEOUT_MS);
    return setTimeout(() => {
      this.#options.onError(`an answer worker took more than ${timeoutMs} ms${slot.ready ? '' : ' to start'}; replacing it`);
      void this.#stop(slot);
    }, timeoutMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((slot) => this.#stop(slot)));
  }

  /** Each running worker's V8 heap (Node 22.16 and later; none where the worker has no such call): what the memory bench reports beside the node's own. */
  async heapStatistics(): Promise<HeapInfo[]> {
    const calls = this.#slots.flatMap((slot) => {
      const worker = slot.worker as (Worker & { getHeapStatistics?: () => Promise<HeapInfo> }) | null;
      return worker?.getHeapStatistics ? [worker.getHeapStatistics()] : [];
    });
    return Promise.all(calls);
  }

  #leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.#slots) if (!best || slot.pending.size < best.pending.size) best = slot;
    return best;
  }

  #started(slot: Slot): Worker | null {
    if (slot.worker || this.#closed) return slot.worker;
    const now = Date.now();
    if (now - slot.startedAt < (this.#options.respawnMs ?? RESPAWN_MS)) return null;
    slot.startedAt = now;
    const { storage, pageVersion, cacheKib } = this.#options;
    let worker: Worker;
    try {
      const workerData: AnswerWorkerData = { storage, pageVersion, cacheKib };
      const module = this.#options.workerModule ?? WORKER_URL;
      const young = this.#options.youngGenerationMb;
      worker = startModuleWorker(module, workerData, young ? { maxYoungGenerationSizeMb: young } : undefined);
    } catch (error) {
      this.#options.onError('an answer worker could not start', error);
      return null;
    }
    // Never holding the process open: while an answer is awaited, its timeout timer does.
    worker.unref();
    slot.ready = false;
    worker.on('message', (response: AnswerResponse | AnswerWorkerReady) => {
      if ('ready' in response) {
        // Answers sent while it started now have the answer timeout, from now.
        slot.ready = true;
        for (const pending of slot.pending.values()) {
          clearTimeout(pending.timer);
          pending.timer = this.#timeout(slot);
        }
        return;
      }
      if (response.error) this.#options.onError(`an answer worker failed: ${response.error}`);
      this.#settle(slot, response.id, response.bytes ? Buffer.from(response.bytes.buffer, response.bytes.byteOffset, response.bytes.length) : null);
    });
    worker.on('error', (error) => this.#options.onError('an answer worker stopped', error));
    worker.on('exit', () => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      for (const id of [...slot.pending.keys()]) this.#settle(slot, id, null);
    });
    slot.worker = worker;
    return worker;
  }

  #settle(slot: Slot, id: number, bytes: Buffer | null): void {
    const pending = slot.pending.get(id);
    if (!pending) return;
    slot.pending.delete(id);
    clearTimeout(pending.timer);
    if (bytes) this.counts.assembled++;
    else this.counts.declined++;
    pending.resolve(bytes);
  }

  async #stop(slot: Slot): Promise<void> {
    const worker = slot.worker;
    slot.worker = null;
    for (const id of [...slot.pending.keys()]) this.#settle(slot, id, null);
    if (worker) await worker.terminate();
  }
}

/** The worker's module: its compiled JavaScript, or its TypeScript source when this module runs from source (tests, benches). */
const WORKER_URL = siblingModule('answer-worker', import.meta.url);
