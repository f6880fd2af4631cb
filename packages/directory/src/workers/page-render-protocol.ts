/** Messages between the bulk load and its page-rendering workers (page-renderers.ts, page-render-worker.ts). */
import type { PageRendererRecipe } from '../domain/listings/listing-page.js';

export interface PageRenderWorkerData {
  recipe: PageRendererRecipe;
}

/** Listings' stored documents (their JSON as the listings table keeps it), to render. */
export interface PageRenderRequest {
  id: number;
  documents: string[];
}

/** Sent once the worker's renderer is made: its version must be the caller's. */
export interface PageRenderReady {
  ready: true;
  version: string;
}

/** The pages of a request's documents, in their order (or why they could not be rendered). */
export interface PageRenderResponse {
  id: number;
  inputs?: string[];
  fixed?: string[];
  error?: string;
}
