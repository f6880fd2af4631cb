/**
 * The directory's renderer of search-result pages, in a module of its own so that a worker thread
 * (the bulk load's page renderers) makes the same one without loading the server.
 */
import { ListingPageRenderer } from './domain/listings/listing-page.js';
import { CATEGORIES_VERSION } from './domain/vocab/groups.js';
import { categoryPath } from './domain/vocab/vocabulary-hooks.js';
import { loadTaxonomy } from './domain/vocab/taxonomy.js';

/** The search-result pages of this vocabulary (what category paths read: the taxonomy's release and our mapping) under this public URL. */
export function listingPageRenderer(baseUrl: string): ListingPageRenderer {
  return new ListingPageRenderer(categoryPath, `${loadTaxonomy().meta.release}+${CATEGORIES_VERSION}`, baseUrl.replace(/\/$/, ''), {
    module: import.meta.url,
    name: 'listingPageRenderer',
    args: [baseUrl],
  });
}
