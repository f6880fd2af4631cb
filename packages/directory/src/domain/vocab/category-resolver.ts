/**
 * Resolving the `category` search parameter (directory spec §4 GET /v1/businesses): a group slug of
 * GET /v1/categories, or a place category id with every category below it, found by id, slug, label
 * or synonym in any language, ignoring capitals and accents. When nothing matches, the
 * `category_unresolved` problem offers up to five candidates (categoryCandidates).
 *
 * Precedence: an exact match (id, slug or label) wins over a synonym match; on a tie a group wins
 * over a place category. Among place categories: id before label, English label before other
 * languages, the broader category before the narrower, then the id's alphabetical order.
 */

import type { Kind } from '../listings/listing.js';
import { foldWords, indexWords } from '../search/text.js';
import { editDistance, fold } from './fold.js';
import type { CategoryGroup } from './groups.js';
import { loadTaxonomy, type PlaceCategory } from './taxonomy.js';

export type CategoryResolution =
  | { type: 'group'; slug: string; kind: Kind }
  | { type: 'place'; id: string; group: string; kind: Kind; ids: string[] };

/** How a folded text names a group or place category. */
interface Hit {
  key: string;
  type: 'group' | 'place';
  /** 0 exact group, 1 exact place, 2 synonym group, 3 synonym place. */
  tier: number;
  /**
   * Within a tier: 0 id or slug, 1 English label, 2 other label, 3 synonym that is also a word of
   * the category's labels, 4 other synonym.
   */
  via: number;
  depth: number;
}

interface PoolEntry {
  text: string;
  words: string[];
  hit: Hit;
}

interface Index {
  exact: Map<string, Hit>;
  pool: PoolEntry[];
  groups: Map<string, CategoryGroup>;
  places: Map<string, PlaceCategory>;
}

function better(a: Hit, b: Hit): boolean {
  if (a.tier !== b.tier) return a.tier < b.tier;
  if (a.via !== b.via) return a.via < b.via;
  if (a.depth !== b.depth) return a.depth < b.depth;
  return a.key < b.key;
}

/** A label and, when it has a part in brackets ("Cabeleireiro(a)"), the label without it. */
function labelVariants(label: string): string[] {
  const out = [fold(label)];
  const bare = fold(label.replace(/\([^)]*\)/g, ' '));
  if (bare && bare !== out[0]) out.push(bare);
  return out;
}

let index: Index | undefined;

function buildIndex(): Index {
  const taxonomy = loadTaxonomy();
  const exact = new Map<string, Hit>();
  const pool: PoolEntry[] = [];
  const seenPool = new Set<string>();
  const add = (text: string, hit: Hit): void => {
    if (!text) return;
    const prev = exact.get(text);
    if (!prev || better(hit, prev)) exact.set(text, hit);
    const poolKey = `${text}\u0000${hit.key}`;
    if (seenPool.has(poolKey)) return;
    seenPool.add(poolKey);
    pool.push({ text, words: indexWords(text, 1), hit });
  };

  const groups = new Map<string, CategoryGroup>();
  for (const g of taxonomy.groups) {
    groups.set(g.slug, g);
    const base = { key: g.slug, type: 'group' as const, depth: 0 };
    add(fold(g.slug), { ...base, tier: 0, via: 0 });
    for (const [lang, label] of Object.entries(g.labels)) {
      for (const v of labelVariants(label)) add(v, { ...base, tier: 0, via: lang === 'en' ? 1 : 2 });
    }
    const labelText = ` ${Object.values(g.labels).map(fold).join(' ')} `;
    for (const words of Object.values(g.synonyms)) {
      for (const w of words) add(fold(w), { ...base, tier: 2, via: labelText.includes(` ${fold(w)} `) ? 3 : 4 });
    }
  }

  const places = new Map<string, PlaceCategory>();
  for (const n of taxonomy.placeCategories) {
    places.set(n.id, n);
    const base = { key: n.id, type: 'place' as const, depth: n.path.length };
    add(fold(n.id), { ...base, tier: 1, via: 0 });
    for (const [lang, label] of Object.entries(n.labels)) {
      for (const v of labelVariants(label)) add(v, { ...base, tier: 1, via: lang === 'en' ? 1 : 2 });
    }
    const labelText = ` ${Object.values(n.labels).map(fold).join(' ')} `;
    for (const words of Object.values(n.synonyms)) {
      for (const w of words ?? []) add(fold(w), { ...base, tier: 3, via: labelText.includes(` ${fold(w)} `) ? 3 : 4 });
    }
  }
  return { exact, pool, groups, places };
}

function getIndex(): Index {
  index ??= buildIndex();
  return index;
}

/** The folded forms of a term to look up: as written, and with '/' read as '.' (a preset id). */
function lookupForms(term: string): string[] {
  const f = fold(term);
  if (!f) return [];
  const dotted = f.replaceAll('/', '.');
  return dotted === f ? [f] : [f, dotted];
}

function toResolution(hit: Hit, ix: Index): CategoryResolution {
  if (hit.type === 'group') {
    const g = ix.groups.get(hit.key)!;
    return { type: 'group', slug: g.slug, kind: g.kind };
  }
  const n = ix.places.get(hit.key)!;
  return { type: 'place', id: n.id, group: n.group, kind: n.kind, ids: loadTaxonomy().descendantsOf(n.id).map((d) => d.id) };
}

/** The group or place category a term names, or null when it names none. */
export function resolveCategory(term: string): CategoryResolution | null {
  const ix = getIndex();
  let best: Hit | undefined;
  for (const form of lookupForms(term)) {
    const hit = ix.exact.get(form);
    if (hit && (!best || better(hit, best))) best = hit;
  }
  return best ? toResolution(best, ix) : null;
}

/** Largest edit distance still offered as a candidate for a term of this length. */
function allowance(length: number): number {
  if (length <= 3) return 0;
  if (length <= 5) return 1;
  if (length <= 8) return 2;
  return 3;
}

/**
 * Up to `max` group slugs or place category ids most like the term, for a `category_unresolved`
 * answer: names beginning with it first, then names one edit away (a typo), names containing it,
 * names it begins with or shares a word with, and last names a few edits away. Names are slugs,
 * ids, labels and synonyms in every language; groups come before place categories on a tie.
 */
export function categoryCandidates(term: string, max = 5): string[] {
  if (max <= 0) return [];
  const ix = getIndex();
  const forms = lookupForms(term);
  if (forms.length === 0) return [];
  const scored = new Map<string, { rank: number; hit: Hit }>();
  for (const t of forms) {
    const tWords = foldWords(t, 3);
    const limit = allowance(t.length);
    const distances = new Map<string, number>();
    const distance = (text: string): number => {
      let d = distances.get(text);
      if (d === undefined) {
        d = Math.abs(text.length - t.length) > limit ? limit + 1 : editDistance(t, text, limit);
        distances.set(text, d);
      }
      return d;
    };
    for (const entry of ix.pool) {
      const { text } = entry;
      let d = Number.POSITIVE_INFINITY;
      if (limit > 0) {
        d = distance(text);
        if (!t.includes(' ')) for (const w of entry.words) d = Math.min(d, distance(w));
      }
      let rank: number;
      if (text === t) rank = 0;
      else if (t.length >= 2 && text.startsWith(t)) rank = 1;
      else if (d <= 1) rank = 2;
      else if (t.length >= 3 && text.includes(t)) rank = 3;
      else if (text.length >= 3 && t.startsWith(text)) rank = 4;
      else if (tWords.some((w) => entry.words.includes(w))) rank = 4;
      else if (d <= limit) rank = 4 + d;
      else continue;
      const prev = scored.get(entry.hit.key);
      if (!prev || rank < prev.rank || (rank === prev.rank && better(entry.hit, prev.hit))) {
        scored.set(entry.hit.key, { rank, hit: entry.hit });
      }
    }
  }
  return [...scored.values()]
    .sort((a, b) => {
      if (a.rank !== b.rank) return a.rank - b.rank;
      if (a.hit.type !== b.hit.type) return a.hit.type === 'group' ? -1 : 1;
      if (a.hit.via !== b.hit.via) return a.hit.via - b.hit.via;
      if (a.hit.depth !== b.hit.depth) return a.hit.depth - b.hit.depth;
      return a.hit.key < b.hit.key ? -1 : a.hit.key > b.hit.key ? 1 : 0;
    })
    .slice(0, max)
    .map((s) => s.hit.key);
}

const wordsMemo = new Map<string, readonly string[]>();

/**
 * The folded words (two letters or more) of a group's or place category's labels and synonyms in
 * every language, cut as the index cuts listing text (search/text.ts: `chambre d’hôtes` gives
 * chambre, dhotes and hotes), so a search word can match a listing's categories "with their labels and
 * synonyms". Unknown key: [].
 */
export function categoryWords(key: string): readonly string[] {
  const memo = wordsMemo.get(key);
  if (memo) return memo;
  const ix = getIndex();
  const texts: string[] = [];
  const g = ix.groups.get(key);
  const n = g ? undefined : ix.places.get(key);
  if (g) {
    texts.push(...Object.values(g.labels));
    for (const words of Object.values(g.synonyms)) texts.push(...words);
  } else if (n) {
    texts.push(...Object.values(n.labels));
    for (const words of Object.values(n.synonyms)) texts.push(...(words ?? []));
  } else {
    return [];
  }
  const out = Object.freeze([...new Set(texts.flatMap((t) => indexWords(t)))]);
  wordsMemo.set(key, out);
  return out;
}
