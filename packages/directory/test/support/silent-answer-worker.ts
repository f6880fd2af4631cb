/** An answer worker that takes every request and never answers (a hung worker, for answer-workers.test.ts). */
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', () => undefined);
