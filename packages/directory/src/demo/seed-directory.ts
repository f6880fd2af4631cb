/**
 * The demo data set `npm start` loads into an empty directory: a few thousand realistic listings in
 * real cities (real time zones, hours, categories from the taxonomy, languages, attributes, doors).
 */
import type { DirectoryStore } from '../store/store.js';
import { loadTaxonomy } from '../domain/vocab/taxonomy.js';
import { generateListings } from './listing-generator.js';

export const DEMO_SEED = 20261122;

/** A place category of the group, chosen by the generator's own random numbers. */
export function taxonomyCategoryPicker() {
  const taxonomy = loadTaxonomy();
  const byGroup = new Map<string, { id: string; label: string }[]>();
  return (group: string, rand: () => number): { id: string; label: string } | null => {
    let choices = byGroup.get(group);
    if (!choices) {
      choices = taxonomy.placeCategoriesInGroup(group).map((c) => ({ id: c.id, label: c.label }));
      byGroup.set(group, choices);
    }
    if (choices.length === 0) return null;
    return choices[Math.floor(rand() * choices.length)] ?? null;
  };
}

export async function seedDemoDirectory(store: DirectoryStore, count: number, nowMs: number): Promise<number> {
  if ((await store.listings.countAll()) > 0) return 0;
  const listings = generateListings({ count, seed: DEMO_SEED, nowMs, placeCategoryOf: taxonomyCategoryPicker() });
  return store.transaction((tx) => tx.listings.insertMany(listings));
}
