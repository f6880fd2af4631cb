/** Keyset pages of services (by position) and products (by name), shared by public and owner lists. */
import { productView, serviceView } from '../domain/catalogue/catalogue-service.js';
import { searchWords } from '../domain/text.js';
import type { InboxStore } from '../store/store.js';
import { cursorPosition, isPairPosition, nextCursor } from './context.js';

export async function servicePage(store: InboxStore, options: { activeOnly: boolean; cursor?: string | undefined; limit: number }) {
  const after = cursorPosition(options.cursor, isPairPosition('number'));
  const rows = await store.catalogue.listServices({ activeOnly: options.activeOnly, after, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(serviceView),
    next_cursor: rows.length > options.limit && last ? nextCursor(JSON.stringify([last.position, last.id])) : null,
  };
}

export async function productPage(
  store: InboxStore,
  options: { activeOnly: boolean; q?: string | undefined; cursor?: string | undefined; limit: number },
) {
  const after = cursorPosition(options.cursor, isPairPosition('string'));
  const rows = await store.catalogue.listProducts({ activeOnly: options.activeOnly, search: searchWords(options.q), after, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(productView),
    next_cursor: rows.length > options.limit && last ? nextCursor(JSON.stringify([last.name, last.productId])) : null,
  };
}
