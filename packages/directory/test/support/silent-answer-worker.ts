/** An answer worker that starts, then takes every request and never answers (a hung worker, for answer-workers.test.ts). */
import { parentPort } from 'node:worker_threads';

parentPort?.postMessage({ ready: true });
parentPort?.on('message', () => undefined);
