/** An answer worker that answers every request with its own resource limits as JSON (answer-workers.test.ts: what its thread was started with). */
import { parentPort, resourceLimits } from 'node:worker_threads';

parentPort?.postMessage({ ready: true });
parentPort?.on('message', (request: { id: number }) => {
  parentPort?.postMessage({ id: request.id, bytes: new TextEncoder().encode(JSON.stringify(resourceLimits)) });
});
