import { foldText } from '@svc/shared';

export { foldText };

/** The words of a search query, folded; at most ten so a query stays cheap. */
export function searchWords(query: string | undefined): string[] {
  if (!query) return [];
  return foldText(query)
    .split(/[^\p{L}\p{N}@.+-]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 10);
}
