/**
 * A page-rendering worker of the bulk load: makes the caller's renderer from its recipe, then renders
 * each listing's page from its stored document parsed back, as every other writer of pages renders
 * it, so its pages are the ones `upsert` stores.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ListingRecord } from '../domain/listings/listing.js';
import type { PageRenderer } from '../store/store.js';
import type { PageRenderReady, PageRenderRequest, PageRenderResponse, PageRenderWorkerData } from './page-render-protocol.js';

const port = parentPort;
if (!port) throw new Error('page-render-worker runs on a worker thread');
const { recipe } = workerData as PageRenderWorkerData;
const made = ((await import(recipe.module)) as Record<string, (...args: readonly string[]) => PageRenderer>)[recipe.name];
if (typeof made !== 'function') throw new Error(`${recipe.module} has no function ${recipe.name}`);
const renderer = made(...recipe.args);
port.postMessage({ ready: true, version: renderer.version } satisfies PageRenderReady);

port.on('message', (request: PageRenderRequest) => {
  try {
    const inputs: string[] = [];
    const fixed: string[] = [];
    for (const document of request.documents) {
      // A page does not read the listing's seq (it is numbered on insert, after rendering).
      const page = renderer.render({ ...(JSON.parse(document) as Omit<ListingRecord, 'seq'>), seq: 0 });
      inputs.push(page.inputs);
      fixed.push(page.fixed);
    }
    port.postMessage({ id: request.id, inputs, fixed } satisfies PageRenderResponse);
  } catch (error) {
    port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies PageRenderResponse);
  }
});
