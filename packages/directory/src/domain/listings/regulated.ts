/**
 * Regulated categories list only members (directory spec §2: a place category's `regulated` says
 * "why businesses that are not members are not listed in it"). GET /c/{id} gives that sentence from
 * the category's group; this is the one rule everything else follows: a business that is not a member
 * and sits in such a category (its groups, its place category or an alternate, with every category
 * above them: the keys `category=` matches) is not listed. Storage keeps it out of `listed`, so the
 * search, the hourly order, the counts and the detail view all leave it out alike.
 */
import { groupBySlug } from '../vocab/groups.js';
import { loadTaxonomy } from '../vocab/taxonomy.js';
import { categoryKeysOf } from '../vocab/vocabulary-hooks.js';
import type { ListingRecord } from './listing.js';

/** The regulated category a business sits in, with the sentence its category page gives. */
export interface MembersOnlyCategory {
  /** A group slug or a place category id. */
  key: string;
  label: string;
  /** The `regulated` sentence of GET /c/{id}. */
  note: string;
}

type CategoryFields = Pick<ListingRecord, 'source' | 'categories' | 'placeCategory' | 'placeAlternates'>;

/** The regulated category that keeps a business out of the directory, or null (a member is never kept out). */
export function membersOnlyCategoryOf(listing: CategoryFields): MembersOnlyCategory | null {
  if (listing.source === 'member') return null;
  const taxonomy = loadTaxonomy();
  // categoryKeysOf reads only the category fields. A place category is named before a group: it says more.
  const keys = categoryKeysOf(listing as ListingRecord);
  for (const key of keys) {
    const place = taxonomy.byId(key);
    if (place?.regulated) return { key, label: place.label, note: place.regulated };
  }
  for (const key of keys) {
    const group = groupBySlug(key);
    if (group?.regulated) return { key, label: group.labels.en, note: group.regulated };
  }
  return null;
}

/** Whether the directory lists a business: not gone, not set aside, and not a non-member in a regulated category. */
export function isListed(listing: CategoryFields & Pick<ListingRecord, 'delistedAt' | 'dormantSince'>): boolean {
  return listing.delistedAt === null && listing.dormantSince === null && membersOnlyCategoryOf(listing) === null;
}

/** Group slugs and place category ids that list only members (what a stored listing's category fields are checked against). */
export function membersOnlyKeys(): { groups: string[]; places: string[] } {
  const taxonomy = loadTaxonomy();
  return {
    groups: taxonomy.groups.filter((g) => g.regulated).map((g) => g.slug),
    places: taxonomy.placeCategories.filter((p) => p.regulated).map((p) => p.id),
  };
}
