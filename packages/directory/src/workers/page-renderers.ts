/**
 * The bulk load's page renderers on worker threads (issue 40): while the load's thread writes one
 * transaction's rows, the workers render the next one's pages from the listings' documents. Each
 * worker makes the same renderer from the renderer's recipe and must report the same version, or
 * nothing it renders is used.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { ListingRecord } from '../domain/listings/listing.js';
import type { ListingPage, PageRendererRecipe } from '../domain/listings/listing-page.js';
import { listingColumns, type ListingColumns } from '../store/kysely/listing-columns.js';
import type { PageRenderer } from '../store/store.js';
import { siblingModule } from './module-worker.js';
import { RequestWorker } from './request-worker.js';
import type { PageRenderReady, PageRenderRequest, PageRenderResponse, PageRenderWorkerData } from './page-render-protocol.js';

/** A part of a load made ready to write: its rows but their revisions, and their pages (null: no renderer). */
export interface PreparedRows {
  rows: ListingColumns[];
  pages: ListingPage[] | null;
}

/**
 * Rows and pages made on this thread: each page rendered from the listing as given, which is JSON
 * data (its stored document is its JSON), so it is the page rendered from the stored document as
 * every other writer renders it, and the one the workers render from the document parsed back.
 * (A listing's page does not read its seq.)
 */
export function preparedHere(listings: readonly Omit<ListingRecord, 'seq'>[], renderer: PageRenderer | null): PreparedRows {
  const rows = listings.map(listingColumns);
  const pages = renderer ? listings.map((listing) => renderer.render({ ...listing, seq: 0 })) : null;
  return { rows, pages };
}

/** Listings prepared on this thread between two turns of the event loop. */
const PREPARE_STEP = 250;

/**
 * `preparedHere` a step at a time, the event loop turning between steps: a transaction already
 * sent (PostgreSQL's COPY and insert, run by the server on another core) goes on while this
 * thread prepares the next one.
 */
export async function preparedInSteps(listings: readonly Omit<ListingRecord, 'seq'>[], renderer: PageRenderer | null): Promise<PreparedRows> {
  const rows: ListingColumns[] = [];
  const pages: ListingPage[] | null = renderer ? [] : null;
  for (let at = 0; at < listings.length; at += PREPARE_STEP) {
    const step = preparedHere(listings.slice(at, at + PREPARE_STEP), renderer);
    for (const row of step.rows) rows.push(row);
    if (pages && step.pages) for (const page of step.pages) pages.push(page);
    await turn();
  }
  return { rows, pages };
}

/** Documents per message: small enough to spread a transaction over the workers, large enough to be few messages. */
const RENDER_BATCH = 500;

type RenderWorker = RequestWorker<Omit<PageRenderRequest, 'id'>, PageRenderResponse, PageRenderReady>;

/** A worker making `recipe`'s pages: its ready is refused unless its renderer is of `version`. */
function renderWorker(recipe: PageRendererRecipe, version: string): RenderWorker {
  return new RequestWorker(WORKER_URL, { recipe } satisfies PageRenderWorkerData, {
    name: 'a page-rendering worker',
    errorOf: (response) => (response.error !== undefined ? new Error(`a page-rendering worker failed: ${response.error}`) : null),
    refuseReady: (ready) => (ready.version === version ? null : new Error(`a page-rendering worker made pages of version ${ready.version}, not ${version}`)),
  });
}

export class PageRenderers {
  readonly #workers: RenderWorker[];
  #next = 0;

  /** `count` workers making `renderer`'s pages; null when the renderer has no recipe for another thread or count is 0. */
  static start(renderer: PageRenderer, count: number): PageRenderers | null {
    const recipe = renderer.recipe;
    if (!recipe || count < 1) return null;
    return new PageRenderers(Array.from({ length: count }, () => renderWorker(recipe, renderer.version)));
  }

  private constructor(workers: RenderWorker[]) {
    this.#workers = workers;
  }

  /**
   * What preparedHere makes of these listings: their rows here (a document is the listing's JSON,
   * which is the cheapest form to send), their pages on the workers from those documents.
   */
  async prepare(listings: readonly Omit<ListingRecord, 'seq'>[]): Promise<PreparedRows> {
    const rows = listings.map(listingColumns);
    const parts: Promise<PageRenderResponse>[] = [];
    for (let i = 0; i < rows.length; i += RENDER_BATCH) {
      const worker = this.#workers[this.#next++ % this.#workers.length] as RenderWorker;
      parts.push(worker.request({ documents: rows.slice(i, i + RENDER_BATCH).map((row) => row.document) }));
    }
    const pages: ListingPage[] = [];
    for (const part of await Promise.all(parts)) {
      const inputs = part.inputs as string[];
      const fixed = part.fixed as string[];
      for (let i = 0; i < inputs.length; i++) pages.push({ inputs: inputs[i] as string, fixed: fixed[i] as string });
    }
    return { rows, pages };
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}

const WORKER_URL = siblingModule('page-render-worker', import.meta.url);
