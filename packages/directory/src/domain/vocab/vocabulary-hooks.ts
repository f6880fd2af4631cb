/** The vocabulary as search and registration use it: category keys and words, paths, manifest terms. */
import type { ListingRecord } from '../listings/listing.js';
import type { CategoryResolution as ManifestCategories } from '../registration/member-listing.js';
import { categoryWords, resolveCategory } from './category-resolver.js';
import { loadTaxonomy } from './taxonomy.js';

/** Group slugs, and each place category with every category above it. */
export function categoryKeysOf(listing: ListingRecord): string[] {
  const taxonomy = loadTaxonomy();
  const keys = new Set<string>(listing.categories);
  for (const ref of [listing.placeCategory, ...listing.placeAlternates]) {
    if (!ref) continue;
    const category = taxonomy.byId(ref.id);
    if (category) for (const key of category.path) keys.add(key);
    else keys.add(ref.id);
  }
  return [...keys];
}

export function categoryWordsOf(key: string): string[] {
  return [...categoryWords(key)];
}

export function categoryPath(placeId: string): string[] {
  const category = loadTaxonomy().byId(placeId);
  return category ? [...category.path] : [placeId];
}

/** Terms a manifest gives as categories: groups and place categories we know; anything else is a tag. */
export function resolveManifestCategories(terms: string[]): ManifestCategories {
  const result: ManifestCategories = { groups: [], place: null, alternates: [], tags: [], software: false };
  const taxonomy = loadTaxonomy();
  for (const term of terms) {
    const resolved = resolveCategory(term);
    if (!resolved) {
      result.tags.push(term);
      continue;
    }
    if (resolved.kind === 'software_and_ai') result.software = true;
    const group = resolved.type === 'group' ? resolved.slug : resolved.group;
    if (!result.groups.includes(group)) result.groups.push(group);
    if (resolved.type === 'place') {
      const label = taxonomy.byId(resolved.id)?.label ?? resolved.id;
      if (!result.place) result.place = { id: resolved.id, label };
      else if (result.alternates.length < 2) result.alternates.push({ id: resolved.id, label });
    }
  }
  return result;
}
