/** Text normalisation for search: lower case, accents removed, so `cafe` finds `Café`. */
export function foldText(value: string): string {
  return value.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The words of a search query, folded; at most ten so a query stays cheap. */
export function searchWords(query: string | undefined): string[] {
  if (!query) return [];
  return foldText(query)
    .split(/[^\p{L}\p{N}@.+-]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 10);
}
