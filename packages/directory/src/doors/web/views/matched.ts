/**
 * What a result matched, for a person (issue 38: "cafe" near Berlin listed an Italian restaurant
 * first and nothing said why). The search holds a business when every word of `q` is in its name,
 * town, description, tags, services' names, or the labels and synonyms of its categories (directory
 * spec §4), and when it is in the `category` asked for. This says, for each word, the first of those
 * places that holds it, cut into words exactly as the index cuts them (search/text.ts), and the
 * category it is in: the same test, so the words shown are the ones that made it match.
 */
import { queryWords } from '../../../domain/search/search-request.js';
import { indexWords } from '../../../domain/search/text.js';
import { categoryWords, resolveCategory } from '../../../domain/vocab/category-resolver.js';
import { groupBySlug } from '../../../domain/vocab/groups.js';
import { loadTaxonomy } from '../../../domain/vocab/taxonomy.js';
import type { DirectoryMessages } from '../messages.js';
import type { ListingView } from './listing-card.js';
import { categoryKeyLabel } from './words.js';

/** Group slugs, and each place category with every category above it: the keys `q` reads a listing's categories by. */
function categoryKeys(listing: ListingView): string[] {
  const keys = new Set<string>(listing.categories);
  const taxonomy = loadTaxonomy();
  for (const ref of [listing.category?.primary, ...(listing.category?.alternates ?? [])]) {
    if (!ref) continue;
    for (const key of taxonomy.byId(ref.id)?.path ?? [ref.id]) keys.add(key);
  }
  return [...keys];
}

/** The label or synonym of a category (in any language) that holds the word, as written. */
function categoryTermWith(key: string, word: string): string | null {
  const group = groupBySlug(key);
  const place = group ? undefined : loadTaxonomy().byId(key);
  const texts: string[] = [];
  if (group) {
    texts.push(...Object.values(group.labels));
    for (const words of Object.values(group.synonyms)) texts.push(...words);
  } else if (place) {
    texts.push(...(Object.values(place.labels) as string[]));
    for (const words of Object.values(place.synonyms)) texts.push(...(words ?? []));
  }
  return texts.find((text) => indexWords(text).includes(word)) ?? null;
}

function holds(text: string | undefined, word: string): boolean {
  return text !== undefined && indexWords(text).includes(word);
}

/** One phrase per word of `q`, and one for the category asked for, in the page's language. */
export function whatMatched(t: DirectoryMessages, lang: string, listing: ListingView, q: string | undefined, category: string | undefined): string[] {
  const m = t.search.matched;
  const phrases: string[] = [];
  const keys = categoryKeys(listing);
  for (const word of q ? [...new Set(queryWords(q))] : []) {
    if (holds(listing.name, word)) {
      phrases.push(m.name(word));
      continue;
    }
    const key = keys.find((k) => categoryWords(k).includes(word));
    if (key) {
      const term = categoryTermWith(key, word);
      const label = categoryKeyLabel(lang, key);
      phrases.push(m.category(word, label, term !== null && term.toLowerCase() !== label.toLowerCase() ? term : null));
      continue;
    }
    const tag = listing.tags.find((tagText) => holds(tagText, word));
    if (tag) {
      phrases.push(m.tag(word, tag));
      continue;
    }
    const service = listing.services.find((s) => holds(s.name, word));
    if (service) {
      phrases.push(m.service(word, service.name));
      continue;
    }
    if (holds(listing.city, word)) phrases.push(m.city(word));
    else if (holds(listing.description, word)) phrases.push(m.description(word));
  }
  if (category) {
    const resolved = resolveCategory(category);
    const key = resolved ? (resolved.type === 'group' ? resolved.slug : resolved.id) : null;
    if (key) phrases.push(m.inCategory(categoryKeyLabel(lang, key)));
  }
  return phrases;
}
