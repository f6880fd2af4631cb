import { afterEach, describe, it, expect, vi } from 'vitest';
import { DateTime } from 'luxon';
import type { Door, Hours, ItemType, ListingRecord, PlaceCategoryRef, Source, Weekday } from '../src/domain/listings/listing.js';
import { levelRank, listingLevel, shownGeo } from '../src/domain/listings/listing.js';
import {
  SearchTimeout,
  buildSearchIndex,
  foldWords,
  haversineKm,
  indexWords,
  isOpenAt,
  tagKey,
  type SearchIndex,
  type SearchPage,
  type SearchQuery,
  type SearchTuning,
} from '../src/domain/search/index.js';
import { TermTable } from '../src/domain/search/term-table.js';
import { runAtOnce } from '../src/domain/stepwise.js';

// Calendar used below (2026): Mar 2 Mon, Mar 6 Fri, Mar 8 Sun, Mar 13 Fri, Mar 14 Sat, Mar 29 Sun, Apr 5 Sun.
// DST: Lisbon 01:00Z on Mar 29 (01:00 WET → 02:00 WEST); New York 07:00Z on Mar 8 (→ EDT);
// Sydney 16:00Z on Apr 4 (03:00 AEDT → 02:00 AEST on Apr 5 local).

/* ---------------------------------------------------------------------------------------------- */
/* taxonomy and listing helpers                                                                    */

const PARENT: Record<string, string | null> = {
  food: null,
  'food.cafe': 'food',
  'food.restaurant': 'food',
  'food.restaurant.pizza': 'food.restaurant',
  beauty: null,
  'beauty.hair': 'beauty',
  shop: null,
  'shop.books': 'shop',
  software: null,
  'software.saas': 'software',
  'software.agents': 'software',
};
const CATEGORY_WORDS: Record<string, string[]> = {
  food: ['food'],
  'food.cafe': ['cafe', 'coffee'],
  'food.restaurant': ['restaurant'],
  'food.restaurant.pizza': ['pizza', 'pizzeria'],
  beauty: ['beauty'],
  'beauty.hair': ['hairdresser', 'salon', 'barber'],
  shop: ['shop'],
  'shop.books': ['bookshop', 'books'],
  software: ['software'],
  'software.saas': ['saas'],
  'software.agents': ['ai', 'agents'],
  'food-drink': ['food', 'drink'],
  'beauty-care': ['beauty', 'care'],
  shops: ['shops'],
  'software-ai': ['software', 'ai'],
};
const GROUP: Record<string, string> = { food: 'food-drink', beauty: 'beauty-care', shop: 'shops', software: 'software-ai' };

function categoryKeysOf(l: ListingRecord): string[] {
  const keys = [...l.categories];
  for (const ref of [l.placeCategory, ...l.placeAlternates]) {
    for (let id: string | null | undefined = ref?.id; id; id = PARENT[id]) keys.push(id);
  }
  return keys;
}
const categoryWordsOf = (key: string): string[] => CATEGORY_WORDS[key] ?? [];

function listing(o: Partial<ListingRecord> & { seq: number }): ListingRecord {
  return {
    id: `L${o.seq}`,
    domain: `b${o.seq}.example`,
    source: 'registered',
    kind: 'local_and_retail',
    name: `Business ${o.seq}`,
    description: null,
    city: null,
    region: null,
    country: null,
    address: null,
    geo: null,
    categories: [],
    placeCategory: null,
    placeAlternates: [],
    tags: [],
    languages: [],
    itemTypes: [],
    protocols: {},
    hours: null,
    services: [],
    url: null,
    doors: [],
    attributes: {},
    payments: [],
    priceBand: null,
    place: null,
    claimed: false,
    proof: null,
    software: null,
    manifestUrl: null,
    verifiedAt: null,
    lastPingAt: null,
    memberSince: null,
    found: null,
    facts: [],
    receipts: { issued: 0, acknowledged: 0, customers: 0, lastAt: null },
    outcomes: {},
    delistedAt: null,
    dormantSince: null,
    createdAt: 0,
    updatedAt: 0,
    ...o,
  };
}

function door(type: string, level: Door['level'], kinds: Door['kinds'] = [], status: Door['status'] = 'live'): Door {
  return { type, url: `https://x.example/${type}`, level, status, kinds, src: 'declared' };
}

function place(id: string): PlaceCategoryRef {
  return { id, label: id, src: 'declared' };
}

const EVERY_DAY = (w: [string, string][]): Hours['weekly'] => ({ mon: w, tue: w, wed: w, thu: w, fri: w, sat: w, sun: w });

function query(o: Partial<SearchQuery> = {}): SearchQuery {
  return { words: [], softwareNameException: false, kinds: ['local_and_retail'], order: 'rank', after: -1, limit: 100, ...o };
}

/** Every hit of a search, page by page (each page checked against the limit). */
function all(index: SearchIndex, q: SearchQuery, limit = q.limit): { seqs: number[]; pages: SearchPage[] } {
  const pages: SearchPage[] = [];
  let after = q.after;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = index.search({ ...q, after, limit });
    pages.push(page);
    expect(page.hits.length).toBeLessThanOrEqual(limit);
    if (page.next === null) break;
    expect(page.hits.length).toBe(limit);
    after = page.next;
  }
  return { seqs: pages.flatMap((p) => p.hits.map((h) => h.seq)), pages };
}

const seqsOf = (page: SearchPage): number[] => page.hits.map((h) => h.seq);
const at = (iso: string): number => Date.parse(iso);

/* ---------------------------------------------------------------------------------------------- */
/* a small hand-made directory                                                                     */

const LISBON = { lat: 38.7223, lng: -9.1393 };
const PORTO = { lat: 41.1579, lng: -8.6291 };

const HAND: ListingRecord[] = [
  listing({
    seq: 1,
    source: 'member',
    name: 'Café Aurora',
    city: 'Lisboa',
    country: 'PT',
    geo: { lat: 38.7139, lng: -9.1394 },
    categories: ['food-drink'],
    placeCategory: place('food.cafe'),
    description: 'Pastéis de nata and espresso',
    tags: ['Vegan Food', 'breakfast'],
    languages: ['pt', 'en'],
    itemTypes: ['order', 'message'],
    services: [{ name: 'Birthday cakes', type: 'order' }],
    hours: { timezone: 'Europe/Lisbon', weekly: { mon: [['08:00', '19:00']], tue: [['08:00', '19:00']], wed: [['08:00', '19:00']], thu: [['08:00', '19:00']], fri: [['08:00', '19:00']], sat: [['09:00', '13:00']] }, closures: [] },
    doors: [door('inbox', 'askable', ['ask', 'order'])],
    payments: ['mbway', 'visa'],
    priceBand: 1,
    attributes: { wifi: { v: true, src: 'declared' }, parking: { v: 'street', src: 'seen' }, terrace: { v: false, src: 'declared' } },
  }),
  listing({
    seq: 2,
    name: 'Bar Noite',
    city: 'Lisboa',
    country: 'PT',
    geo: { lat: 38.7115, lng: -9.1443 },
    categories: ['food-drink'],
    placeCategory: place('food'),
    languages: ['pt-BR'],
    hours: { timezone: 'Europe/Lisbon', weekly: { fri: [['22:00', '02:00']], sat: [['22:00', '02:00']] }, closures: [{ from: '2026-03-14', to: '2026-03-14' }] },
    doors: [door('platform:shopify', 'bookable', ['book'])],
    priceBand: 2,
  }),
  listing({
    seq: 3,
    source: 'found',
    name: 'Salon Uptown',
    city: 'New York',
    country: 'US',
    geo: { lat: 40.7128, lng: -74.006 },
    categories: ['beauty-care'],
    placeCategory: place('beauty.hair'),
    languages: ['en-US'],
    itemTypes: ['booking'],
    hours: { timezone: 'America/New_York', weekly: { mon: [['09:00', '18:00']], tue: [['09:00', '18:00']], wed: [['09:00', '18:00']], thu: [['09:00', '18:00']], fri: [['09:00', '18:00']], sat: [['09:00', '18:00']] }, closures: [] },
    doors: [door('mcp', 'payable', ['book', 'pay']), door('a2a', 'payable', ['quote'], 'failing')],
    priceBand: 3,
  }),
  listing({
    seq: 4,
    name: 'Sydney Books',
    city: 'Sydney',
    country: 'AU',
    geo: { lat: -33.8688, lng: 151.2093 },
    categories: ['shops'],
    placeCategory: place('shop.books'),
    languages: ['en'],
    hours: { timezone: 'Australia/Sydney', weekly: EVERY_DAY([['10:00', '17:00']]), closures: [] },
    place: { kind: ['storefront', 'online'], country: 'AU', serviceArea: { countries: ['NZ'] }, shipsTo: ['GB', 'PT'] },
    doors: [door('openapi', 'readable')],
  }),
  listing({
    seq: 5,
    kind: 'software_and_ai',
    name: 'Aurora Agents',
    description: 'AI agents for booking',
    categories: ['software-ai'],
    placeCategory: place('software.agents'),
    doors: [door('mcp', 'askable', ['ask', 'quote'])],
    languages: ['en'],
  }),
  listing({
    seq: 6,
    name: 'Pizzaria Ribeira',
    city: 'Porto',
    country: 'PT',
    geo: { lat: 41.1406, lng: -8.6132 },
    categories: ['food-drink'],
    placeCategory: place('food.restaurant.pizza'),
    languages: ['pt-PT'],
    doors: [door('inbox', 'bookable', ['book'], 'failing')],
  }),
  listing({ seq: 7, name: 'Gone Café', city: 'Lisboa', categories: ['food-drink'], delistedAt: 1 }),
  listing({
    seq: 8,
    name: 'Madrugada',
    city: 'Lisboa',
    country: 'PT',
    geo: { lat: 38.7369, lng: -9.1427 },
    hours: { timezone: 'Europe/Lisbon', weekly: { sun: [['02:00', '03:00']] }, closures: [] },
    doors: [door('platform:etsy', 'readable')],
  }),
  listing({
    seq: 9,
    kind: 'software_and_ai',
    name: 'Ribeira Booking',
    description: 'Booking software for hotels',
    categories: ['software-ai'],
    placeCategory: place('software.saas'),
  }),
];
// 99 is not a listing (skipped, keeps its place); 6 is missing (goes last).
const HAND_ORDER = Int32Array.from([8, 99, 3, 1, 5, 7, 2, 9, 4]);
const hand = buildSearchIndex({ listings: HAND, order: HAND_ORDER, categoryKeysOf, categoryWordsOf });

describe('search index: structure', () => {
  it('keeps the order, its places, and leaves delisted listings out', () => {
    expect(hand.size).toBe(8);
    expect(seqsOf(hand.search(query({ kinds: ['local_and_retail', 'software_and_ai'] })))).toEqual([8, 3, 1, 5, 2, 9, 4, 6]);
    expect(hand.rankPosOf(8)).toBe(1);
    expect(hand.rankPosOf(3)).toBe(3);
    expect(hand.rankPosOf(6)).toBe(10);
    expect(hand.rankPosOf(7)).toBeNull();
    expect(hand.get(7)).toBeUndefined();
    expect(hand.get(1)?.name).toBe('Café Aurora');
    const page = hand.search(query({ limit: 2 }));
    expect(page.hits).toEqual([
      { seq: 8, rankPos: 1 },
      { seq: 3, rankPos: 3 },
    ]);
    expect(page.next).toBe(2);
  });

  it('pages with `after` return every match exactly once', () => {
    const q = query({ kinds: ['local_and_retail', 'software_and_ai'] });
    for (const limit of [1, 2, 3, 7, 8, 100]) {
      const { seqs, pages } = all(hand, q, limit);
      expect(seqs).toEqual([8, 3, 1, 5, 2, 9, 4, 6]);
      expect(pages[pages.length - 1]!.next).toBeNull();
    }
    expect(hand.search(query({ after: 8 })).hits).toEqual([{ seq: 6, rankPos: 10 }]);
    expect(hand.search(query({ after: 9 }))).toEqual({ hits: [], next: null });
  });

  it('withOrder lays the same listings out in another order', () => {
    const other = hand.withOrder(Int32Array.from([6, 4, 2, 1, 3, 8]));
    expect(seqsOf(other.search(query()))).toEqual([6, 4, 2, 1, 3, 8]);
    expect(seqsOf(other.search(query({ words: ['lisboa'] })))).toEqual([2, 1, 8]);
    expect(other.rankPosOf(5)).toBe(7);
    expect(seqsOf(hand.search(query({ words: ['lisboa'] })))).toEqual([8, 1, 2]);
  });

  it("gives a few listings' places in the order by a pass over it until the map of places is made, and the same from the map", () => {
    const asked = [6, 2, 99, 7, 1, 8, 1234];
    const cases = [
      // 99 and the delisted 7 are in the order; 6 is not (placed after it); 1234 is nowhere
      { index: buildSearchIndex({ listings: HAND, order: HAND_ORDER, categoryKeysOf, categoryWordsOf }), expected: { order: [8, 99, 1, 7, 2, 6], places: [0, 1, 3, 5, 6, 9], end: 10 } },
      // 5, 8 and 9 are not in this order: after it, by seq
      { index: hand.withOrder(Int32Array.from([6, 4, 2, 1, 3])), expected: { order: [6, 2, 1, 8], places: [0, 2, 3, 6], end: 8 } },
    ];
    for (const { index, expected } of cases) {
      const plain = (p: { order: Int32Array; places: Int32Array; end: number }) => ({ order: [...p.order], places: [...p.places], end: p.end });
      expect(plain(index.placesOf(asked))).toEqual(expected);
      runAtOnce(index.placesInSteps());
      expect(plain(index.placesOf(new Set(asked)))).toEqual(expected);
    }
  });
});

describe('search index: q', () => {
  const words = (q: string): string[] => foldWords(q);
  it('matches every word in name, city, description, tags, services and category words, folded', () => {
    expect(seqsOf(hand.search(query({ words: words('CAFE') })))).toEqual([1]); // name, accent folded; 7 is delisted
    expect(seqsOf(hand.search(query({ words: words('coffee') })))).toEqual([1]); // category synonym
    expect(seqsOf(hand.search(query({ words: words('pastéis nata') })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ words: words('vegan') })))).toEqual([1]); // tag
    expect(seqsOf(hand.search(query({ words: words('birthday') })))).toEqual([1]); // service
    expect(seqsOf(hand.search(query({ words: words('food') })))).toEqual([1, 2, 6]); // group and ancestor words
    expect(seqsOf(hand.search(query({ words: words('pizza porto') })))).toEqual([6]);
    expect(seqsOf(hand.search(query({ words: words('pizza lisboa') })))).toEqual([]);
    expect(hand.search(query({ words: ['nowhereword'] }))).toEqual({ hits: [], next: null });
  });

  it('keeps kinds apart; the name exception adds software whose name holds every word', () => {
    expect(seqsOf(hand.search(query({ words: ['aurora'] })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ words: ['aurora'], softwareNameException: true })))).toEqual([1, 5]);
    expect(seqsOf(hand.search(query({ words: ['booking'], softwareNameException: true })))).toEqual([9]); // 5 says booking only in its description
    expect(seqsOf(hand.search(query({ words: ['ribeira'], softwareNameException: true })))).toEqual([9, 6]);
    expect(seqsOf(hand.search(query({ words: ['ribeira', 'hotels'], softwareNameException: true })))).toEqual([]);
    expect(seqsOf(hand.search(query({ kinds: ['software_and_ai'] })))).toEqual([5, 9]);
    expect(seqsOf(hand.search(query({ kinds: ['software_and_ai'], words: ['booking'] })))).toEqual([5, 9]);
    expect(seqsOf(hand.search(query({ softwareNameException: true })))).toEqual([8, 3, 1, 2, 4, 6]);
    expect(seqsOf(hand.search(query({ kinds: [], words: ['aurora'], softwareNameException: true })))).toEqual([5]);
  });
});

describe('search index: filters', () => {
  it('category: group slug or place id with everything below it; legacy tag', () => {
    expect(seqsOf(hand.search(query({ categoryKeys: ['food-drink'] })))).toEqual([1, 2, 6]);
    expect(seqsOf(hand.search(query({ categoryKeys: ['food'] })))).toEqual([1, 2, 6]);
    expect(seqsOf(hand.search(query({ categoryKeys: ['food.restaurant'] })))).toEqual([6]);
    expect(seqsOf(hand.search(query({ categoryKeys: ['food.cafe', 'beauty'] })))).toEqual([3, 1]);
    expect(seqsOf(hand.search(query({ categoryKeys: ['nothing'] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ categoryKeys: [] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ tag: 'vegan food' })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ tag: 'VEGAN-FOOD' })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ tag: 'vegan' })))).toEqual([]);
  });

  it('language: pt keeps pt and pt-*, pt-br keeps only pt-br', () => {
    expect(seqsOf(hand.search(query({ language: 'pt' })))).toEqual([1, 2, 6]);
    expect(seqsOf(hand.search(query({ language: 'pt-br' })))).toEqual([2]);
    expect(seqsOf(hand.search(query({ language: 'pt-BR' })))).toEqual([2]);
    expect(seqsOf(hand.search(query({ language: 'pt-pt' })))).toEqual([6]);
    expect(seqsOf(hand.search(query({ language: 'en' })))).toEqual([3, 1, 4]);
    expect(seqsOf(hand.search(query({ language: 'en-us' })))).toEqual([3]);
    expect(seqsOf(hand.search(query({ language: 'fr' })))).toEqual([]);
  });

  it('item type, price band, attributes, sources', () => {
    expect(seqsOf(hand.search(query({ itemType: 'order' })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ itemType: 'booking' })))).toEqual([3]);
    expect(seqsOf(hand.search(query({ priceBand: [1, 2] })))).toEqual([1, 2]);
    expect(seqsOf(hand.search(query({ priceBand: [3, 3] })))).toEqual([3]);
    expect(seqsOf(hand.search(query({ attributes: [{ key: 'wifi' }] })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ attributes: [{ key: 'terrace' }] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ attributes: [{ key: 'parking', value: 'street' }, { key: 'wifi' }] })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ attributes: [{ key: 'parking', value: 'garage' }] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ sources: ['member', 'found'] })))).toEqual([3, 1]);
    expect(seqsOf(hand.search(query({ sources: [] })))).toEqual([]);
  });

  it('country: located in, serving or shipping to', () => {
    expect(seqsOf(hand.search(query({ country: 'PT' })))).toEqual([8, 1, 2, 4, 6]); // 4 ships to PT
    expect(seqsOf(hand.search(query({ country: 'nz' })))).toEqual([4]); // serves NZ
    expect(seqsOf(hand.search(query({ country: 'GB' })))).toEqual([4]);
    expect(seqsOf(hand.search(query({ country: 'US' })))).toEqual([3]);
    expect(seqsOf(hand.search(query({ country: 'FR' })))).toEqual([]);
  });

  it('accepts: kinds of a live door and payment tokens; requestable', () => {
    expect(seqsOf(hand.search(query({ accepts: ['book'] })))).toEqual([3, 2]);
    expect(seqsOf(hand.search(query({ accepts: ['quote'] })))).toEqual([]); // only a failing door takes quotes
    expect(seqsOf(hand.search(query({ accepts: ['order', 'visa'] })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ accepts: ['MBWAY'] })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ accepts: ['book', 'visa'] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ requestable: 'ask' })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ requestable: 'quote', kinds: ['software_and_ai'] })))).toEqual([5]);
    expect(seqsOf(hand.search(query({ requestable: 'quote' })))).toEqual([]);
  });

  it('door types (live only; platform = any platform:*), level, has_inbox', () => {
    expect(seqsOf(hand.search(query({ doorTypes: ['platform'] })))).toEqual([8, 2]);
    expect(seqsOf(hand.search(query({ doorTypes: ['platform:etsy'] })))).toEqual([8]);
    expect(seqsOf(hand.search(query({ doorTypes: ['a2a'] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ doorTypes: ['mcp', 'openapi'] })))).toEqual([3, 4]);
    expect(seqsOf(hand.search(query({ doorTypes: [] })))).toEqual([]);
    expect(seqsOf(hand.search(query({ minLevel: levelRank('askable') })))).toEqual([3, 1, 2]);
    expect(seqsOf(hand.search(query({ minLevel: levelRank('bookable') })))).toEqual([3, 2]);
    expect(seqsOf(hand.search(query({ minLevel: levelRank('payable') })))).toEqual([3]);
    expect(seqsOf(hand.search(query({ minLevel: levelRank('readable') })))).toEqual([8, 3, 1, 2, 4]);
    expect(seqsOf(hand.search(query({ minLevel: 0 })))).toEqual([8, 3, 1, 2, 4, 6]);
    expect(seqsOf(hand.search(query({ hasInbox: true })))).toEqual([1]); // 6's inbox is failing
    expect(seqsOf(hand.search(query({ hasInbox: false })))).toEqual([8, 3, 2, 4, 6]);
  });

  it('several filters together', () => {
    expect(seqsOf(hand.search(query({ country: 'PT', language: 'pt', minLevel: 2 })))).toEqual([1, 2]);
    expect(seqsOf(hand.search(query({ country: 'PT', language: 'pt', minLevel: 2, words: ['lisboa'], openAt: at('2026-03-02T10:00:00Z') })))).toEqual([1]);
    expect(seqsOf(hand.search(query({ categoryKeys: ['food-drink'], near: { ...LISBON, radiusKm: 5 }, hasInbox: false })))).toEqual([2]);
  });
});

describe('search index: open_now', () => {
  const open = (iso: string, extra: Partial<SearchQuery> = {}): number[] => seqsOf(hand.search(query({ openAt: at(iso), kinds: ['local_and_retail', 'software_and_ai'], ...extra })));

  it('uses each listing’s own zone; no hours → left out', () => {
    expect(open('2026-03-02T10:00:00Z')).toEqual([1]); // Lisbon 10:00; NY 05:00; Sydney 21:00
    expect(open('2026-03-02T15:00:00Z')).toEqual([3, 1]); // Lisbon 15:00, NY 10:00
    expect(open('2026-03-02T00:00:00Z')).toEqual([4]); // Sydney Mon 11:00
    expect(open('2026-03-02T19:30:00Z')).toEqual([3]);
    expect(isOpenAt(null, at('2026-03-02T10:00:00Z'))).toBeNull();
    expect(isOpenAt(HAND[0]!.hours, at('2026-03-02T10:00:00Z'))).toBe(true);
    expect(isOpenAt(HAND[0]!.hours, at('2026-03-01T10:00:00Z'))).toBe(false); // Sunday
    expect(isOpenAt({ timezone: 'Mars/Olympus', weekly: EVERY_DAY([['00:00', '00:00']]), closures: [] }, 0)).toBe(false);
  });

  it('windows past midnight (22:00–02:00)', () => {
    expect(open('2026-03-06T21:59:00Z')).not.toContain(2);
    expect(open('2026-03-06T23:00:00Z')).toContain(2); // Fri 23:00
    expect(open('2026-03-07T01:30:00Z')).toContain(2); // Sat 01:30, Friday's window
    expect(open('2026-03-07T02:00:00Z')).not.toContain(2); // closes at 02:00
    expect(open('2026-03-07T12:00:00Z')).not.toContain(2);
    expect(open('2026-03-08T01:00:00Z')).toContain(2); // Sun 01:00, Saturday's window
    expect(open('2026-03-09T01:00:00Z')).not.toContain(2); // Mon 01:00: no Sunday window
  });

  it('a closure wins over the hours, also over a window opened that day', () => {
    expect(open('2026-03-13T23:00:00Z')).toContain(2); // Fri 13
    expect(open('2026-03-14T01:00:00Z')).not.toContain(2); // Sat 14 closed (Friday's window)
    expect(open('2026-03-14T23:00:00Z')).not.toContain(2); // Sat 14 closed
    expect(open('2026-03-15T01:00:00Z')).not.toContain(2); // Saturday's window was closed
    expect(open('2026-03-21T23:00:00Z')).toContain(2); // next Saturday
  });

  it('follows daylight saving time in each zone', () => {
    // Lisbon Sun 02:00–03:00 local
    expect(open('2026-03-22T01:30:00Z')).not.toContain(8); // 01:30 WET
    expect(open('2026-03-22T02:30:00Z')).toContain(8); // 02:30 WET
    expect(open('2026-03-29T00:30:00Z')).not.toContain(8); // 00:30 WET
    expect(open('2026-03-29T01:30:00Z')).toContain(8); // 02:30 WEST (the DST day)
    expect(open('2026-03-29T02:30:00Z')).not.toContain(8); // 03:30 WEST
    // New York 09:00–18:00: 13:30Z is 08:30 EST, then 09:30 EDT
    expect(open('2026-03-02T13:30:00Z')).not.toContain(3);
    expect(open('2026-03-09T13:30:00Z')).toContain(3);
    // Sydney 10:00–17:00: 23:30Z is 10:30 AEDT on Apr 4, 09:30 AEST on Apr 5
    expect(open('2026-04-03T23:30:00Z')).toContain(4);
    expect(open('2026-04-04T23:30:00Z')).not.toContain(4);
    expect(open('2026-04-05T00:30:00Z')).toContain(4);
  });
});

describe('search index: near and nearest', () => {
  it('near keeps listings within the radius, with haversine distances', () => {
    const page = hand.search(query({ near: { ...LISBON, radiusKm: 5 } }));
    expect(seqsOf(page)).toEqual([8, 1, 2]);
    for (const h of page.hits) {
      // measured from the published point (coarse until a business claims its entry)
      const g = shownGeo(hand.get(h.seq)!)!;
      expect(h.distanceKm).toBeCloseTo(haversineKm(LISBON.lat, LISBON.lng, g.lat, g.lng), 9);
    }
    expect(page.hits[1]!.distanceKm).toBeCloseTo(0.934, 3); // 0.0084° of latitude
    expect(seqsOf(hand.search(query({ near: { ...LISBON, radiusKm: 280 } })))).toEqual([8, 1, 2, 6]);
    expect(seqsOf(hand.search(query({ near: { ...LISBON, radiusKm: 270 } })))).toEqual([8, 1, 2]);
    expect(haversineKm(LISBON.lat, LISBON.lng, PORTO.lat, PORTO.lng)).toBeCloseTo(274.4, 0);
    expect(seqsOf(hand.search(query({ near: { lat: -33.87, lng: 151.21, radiusKm: 1 } })))).toEqual([4]);
  });

  it('nearest sorts by distance then rank, pages by offset', () => {
    const q = query({ near: { ...PORTO, radiusKm: 1000 }, order: 'nearest', after: 0 });
    const page = hand.search(q);
    expect(seqsOf(page)).toEqual([6, 8, 1, 2]);
    const d = page.hits.map((h) => h.distanceKm!);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
    expect(all(hand, q, 1).seqs).toEqual([6, 8, 1, 2]);
    expect(hand.search({ ...q, limit: 2 }).next).toBe(2);
    expect(hand.search({ ...q, after: 2, limit: 2 })).toMatchObject({ next: null });
    expect(() => hand.search(query({ order: 'nearest' }))).toThrow(TypeError);
  });

  it('crosses the antimeridian', () => {
    const l = [listing({ seq: 1, geo: { lat: -17.7, lng: 179.9 } }), listing({ seq: 2, geo: { lat: -17.7, lng: -179.9 } }), listing({ seq: 3, geo: { lat: -17.7, lng: 170 } })];
    const idx = buildSearchIndex({ listings: l, order: Int32Array.from([1, 2, 3]), categoryKeysOf, categoryWordsOf });
    expect(seqsOf(idx.search(query({ near: { lat: -17.7, lng: -179.95, radiusKm: 50 } })))).toEqual([1, 2]);
    expect(seqsOf(idx.search(query({ near: { lat: -17.7, lng: 179.95, radiusKm: 50 }, order: 'nearest', after: 0 })))).toEqual([1, 2]);
  });
});

describe('search index: deadline', () => {
  afterEach(() => vi.restoreAllMocks());
  const many = Array.from({ length: 5000 }, (_, i) =>
    listing({
      seq: i + 1,
      name: `Late shop ${i}`,
      geo: { lat: 38 + (i % 100) / 100, lng: -9 + Math.floor(i / 100) / 100 },
      hours: { timezone: 'Europe/Lisbon', weekly: { mon: [['09:00', '10:00']] }, closures: [] },
    }),
  );
  const big = buildSearchIndex({ listings: many, order: Int32Array.from(many.map((l) => l.seq)), categoryKeysOf, categoryWordsOf });
  const sunday = at('2026-03-01T12:00:00Z');

  /** performance.now() reads 0 at the start of the search, then 1000. */
  function clockJumps(): void {
    let calls = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (calls++ === 0 ? 0 : 1000));
  }

  it('throws SearchTimeout when the deadline has passed before the search', () => {
    expect(() => hand.search(query({ deadlineMs: performance.now() - 1 }))).toThrow(SearchTimeout);
    expect(() => hand.search(query({ deadlineMs: performance.now() + 10_000 }))).not.toThrow();
  });

  it('throws SearchTimeout when the deadline passes during a long scan', () => {
    const scan = query({ words: ['late'], openAt: sunday, deadlineMs: 500 }); // nothing open: reads every candidate
    expect(big.search({ ...scan, deadlineMs: undefined }).hits).toEqual([]);
    clockJumps();
    expect(() => big.search(scan)).toThrow(SearchTimeout);
    vi.restoreAllMocks();
    clockJumps();
    expect(() => big.search(query({ openAt: sunday, near: { lat: 38.5, lng: -8.8, radiusKm: 100 }, order: 'nearest', after: 0, deadlineMs: 500 }))).toThrow(SearchTimeout);
  });
});

describe('search index: details', () => {
  it('hours: 24:00, whole days, malformed windows, no windows', () => {
    const h = (weekly: Hours['weekly']): Hours => ({ timezone: 'UTC', weekly, closures: [] });
    const mon = (t: string): number => at(`2026-03-02T${t}:00Z`);
    expect(isOpenAt(h({ mon: [['18:00', '24:00']] }), mon('23:59'))).toBe(true);
    expect(isOpenAt(h({ mon: [['18:00', '24:00']] }), at('2026-03-03T00:00:00Z'))).toBe(false);
    expect(isOpenAt(h({ mon: [['09:00', '09:00']] }), at('2026-03-03T08:59:00Z'))).toBe(true); // 24 hours
    expect(isOpenAt(h({ mon: [['09:00', '09:00']] }), at('2026-03-03T09:00:00Z'))).toBe(false);
    expect(isOpenAt(h({ mon: [['00:00', '00:00']] }), mon('00:00'))).toBe(true);
    expect(isOpenAt(h({ sun: [['20:00', '01:00']] }), mon('00:30'))).toBe(true); // Sunday into Monday, across the week's end
    expect(isOpenAt(h({ mon: [['9:00', '10:00']] }), mon('09:30'))).toBe(true);
    expect(isOpenAt(h({ mon: [['25:00', '26:00'], ['09:60', '10:00'], ['x', 'y']] }), mon('09:30'))).toBe(false);
    expect(isOpenAt(h({}), mon('09:30'))).toBe(false);
    const closed = { timezone: 'UTC', weekly: EVERY_DAY([['00:00', '24:00']]), closures: [{ from: '2026-03-01', to: '2026-03-03' }] };
    expect(isOpenAt(closed, mon('12:00'))).toBe(false);
    expect(isOpenAt(closed, at('2026-03-04T00:00:00Z'))).toBe(true);
  });

  it('folding: accents, letters without decomposition, case', () => {
    expect(foldWords('Café ÉCLAIR Straße Ørsted Łódź naïve a b 24/7')).toEqual(['cafe', 'eclair', 'strasse', 'orsted', 'lodz', 'naive', '24']);
    expect(foldWords("McDonald's O’Brien rock'n'roll")).toEqual(['mcdonalds', 'obrien', 'rocknroll']);
    const idx = buildSearchIndex({
      listings: [listing({ seq: 1, name: 'Straße Café', description: "ÆBLESKIVER & Smørrebrød — açaí at Joe's" })],
      order: Int32Array.from([1]),
      categoryKeysOf,
      categoryWordsOf,
    });
    for (const w of ['strasse', 'cafe', 'aebleskiver', 'smorrebrod', 'acai', 'CAFÉ', 'joes', "Joe's"]) expect(seqsOf(idx.search(query({ words: [w] }))), w).toEqual([1]);
    expect(seqsOf(idx.search(query({ words: ['STRASSE'] })))).toEqual([1]);
    expect(seqsOf(idx.search(query({ words: ['straß'] })))).toEqual([]); // folds to strass
  });

  it('one cut for index and query: apostrophes and & inside a word join it, and the index also keeps the parts', () => {
    expect(foldWords('Doğan’s Tavern')).toEqual(['dogans', 'tavern']);
    expect(indexWords('Doğan’s Tavern')).toEqual(['dogans', 'dogan', 'tavern']);
    expect(indexWords("O'Brien L’Atelier McDonaldʼs rock'n'roll")).toEqual(['obrien', 'brien', 'latelier', 'atelier', 'mcdonalds', 'mcdonald', 'rocknroll', 'rockn', 'nroll', 'rock', 'roll']);
    expect(indexWords("O'Brien's")).toEqual(['obriens', 'obrien', 'briens', 'brien']);
    expect(indexWords("a'bc'de'fg'hi")).toEqual(['abcdefghi', 'bc', 'de', 'fg', 'hi']);
    expect(indexWords('B&B Rock & Roll AT&T H&M')).toEqual(['bb', 'rock', 'roll', 'att', 'at', 'hm']);
    expect(indexWords('St. Mary Jean-Luc Café ‘quoted’ Dogans\' 3.5 x´s')).toEqual(['st', 'mary', 'jean', 'luc', 'cafe', 'quoted', 'dogans', 'xs']);
    expect(foldWords('Edwards’s Wine Bar')).toEqual(['edwardss', 'wine', 'bar']);
    expect(indexWords('Edwards’s Wine Bar')).toEqual(['edwardss', 'edwards', 'wine', 'bar']);
    // A query word is a whole word the index holds: cutting it again gives itself.
    for (const w of indexWords("Doğan’s O'Brien B&B Jean-Luc Straße")) expect(foldWords(w)).toEqual([w]);
  });

  it('the term table cuts every text exactly as indexWords does (its ASCII fast path included)', () => {
    const texts = [
      'Plain ASCII text, with 24/7 and UPPER case',
      "Joe's B&B", "'quoted' & spaced", 'trailing\' and `back`tick', 'a&b c&d', 'Doğan’s Tavern',
      'Straße Café', 'Łódź naïve', 'x', '', '--', 'rock&roll', "O'Brien's", 'AT&T', 'H & M',
    ];
    for (const text of texts) {
      const table = new TermTable(16);
      const ids: number[] = [];
      let next = 0;
      table.forEachWord(text, () => next++, (id) => ids.push(id));
      expect(ids.map(String), text).toEqual(indexWords(text).map((w) => String(table.get(w))));
      expect(table.size, text).toBe(new Set(indexWords(text)).size);
    }
  });

  it('streams listings without keeping them; repeats and unknown seqs in the order are skipped', () => {
    function* stream(): Generator<ListingRecord> {
      yield listing({ seq: 10, name: 'Alpha' });
      yield listing({ seq: 20, name: 'Beta' });
      yield listing({ seq: 10, name: 'Alpha again' }); // a repeat is ignored
      yield listing({ seq: 30, name: 'Gamma', dormantSince: 5 });
    }
    const idx = buildSearchIndex({ listings: stream(), order: Int32Array.from([20, 20, 77, 10, 30]), categoryKeysOf, categoryWordsOf, keepRecords: false });
    expect(idx.size).toBe(2);
    expect(idx.search(query()).hits).toEqual([
      { seq: 20, rankPos: 1 },
      { seq: 10, rankPos: 4 },
    ]);
    expect(seqsOf(idx.search(query({ words: ['again'] })))).toEqual([]);
    expect(idx.get(10)).toBeUndefined();
    expect(idx.rankPosOf(30)).toBeNull();
    expect(idx.stats()).toMatchObject({ listings: 2, withGeo: 0, withHours: 0 });
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* random directory checked against a plain reference implementation                               */

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CITIES = [
  { city: 'Lisboa', country: 'PT', zone: 'Europe/Lisbon', lat: 38.72, lng: -9.14 },
  { city: 'Porto', country: 'PT', zone: 'Europe/Lisbon', lat: 41.15, lng: -8.61 },
  { city: 'New York', country: 'US', zone: 'America/New_York', lat: 40.71, lng: -74.0 },
  { city: 'Sydney', country: 'AU', zone: 'Australia/Sydney', lat: -33.87, lng: 151.21 },
];
const PLACE_IDS = Object.keys(PARENT);
const NAME_WORDS = ['aurora', 'café', 'sol', 'mar', 'ribeira', 'books', 'studio', 'agents', 'cloud', 'atelier', 'são', 'bento', 'Doğan’s', "L'Atelier", 'B&B', 'Jean-Luc', 'St.'];
const DESC_WORDS = ['fresh', 'coffee', 'vegan', 'booking', 'repairs', 'pastry', 'hotels', 'late', 'open', 'família', "joe's", 'rock & roll', 'dogan'];
const LANGS = ['pt', 'pt-BR', 'pt-PT', 'en', 'en-US', 'es', 'fr'];
const DOOR_T = ['inbox', 'mcp', 'a2a', 'openapi', 'api', 'platform:shopify', 'platform:etsy'];
const LEVELS: Door['level'][] = ['listed', 'readable', 'askable', 'bookable', 'payable'];
const REQ: Door['kinds'] = ['ask', 'quote', 'book', 'order', 'pay'];
const PAYMENTS = ['visa', 'mbway', 'x402'];
const ITEM_TYPES: ItemType[] = ['booking', 'order', 'quote_request', 'message', 'refund'];
const SOURCES: Source[] = ['member', 'registered', 'found'];
const DAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}
function some<T>(r: () => number, xs: readonly T[], p: number): T[] {
  return xs.filter(() => r() < p);
}
function hhmm(m: number): string {
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

function randomListing(r: () => number, seq: number): ListingRecord {
  const c = pick(r, CITIES);
  const software = r() < 0.15;
  const pc = software ? pick(r, ['software', 'software.saas', 'software.agents']) : pick(r, PLACE_IDS.filter((p) => !p.startsWith('software')));
  const top = pc.split('.')[0]!;
  let hours: Hours | null = null;
  if (r() < 0.8) {
    const weekly: Hours['weekly'] = {};
    for (const d of DAYS) {
      if (r() < 0.25) continue;
      const windows: [string, string][] = [];
      const k = r() < 0.7 ? 1 : 2;
      for (let i = 0; i < k; i++) {
        const opens = Math.floor(r() * 48) * 30;
        const closes = r() < 0.2 ? Math.floor(r() * 8) * 30 : Math.min(1440, opens + 30 + Math.floor(r() * 20) * 30);
        windows.push([hhmm(opens), closes === 1440 ? '24:00' : hhmm(closes)]);
      }
      weekly[d] = windows;
    }
    const closures: Hours['closures'] = [];
    if (r() < 0.3) {
      const day = 1 + Math.floor(r() * 27);
      const from = `2026-03-${String(day).padStart(2, '0')}`;
      const to = `2026-03-${String(day + Math.floor(r() * 3)).padStart(2, '0')}`;
      closures.push({ from, to });
    }
    hours = { timezone: r() < 0.03 ? 'Not/AZone' : c.zone, weekly, closures };
  }
  const doors: Door[] = [];
  for (let i = Math.floor(r() * 4); i > 0; i--) {
    doors.push(door(pick(r, DOOR_T), pick(r, LEVELS), some(r, REQ, 0.35), r() < 0.75 ? 'live' : 'failing'));
  }
  const attributes: ListingRecord['attributes'] = {};
  if (r() < 0.5) attributes.wifi = { v: r() < 0.6, src: 'declared' };
  if (r() < 0.4) attributes.parking = { v: pick(r, ['street', 'garage']), src: 'seen' };
  const name = [pick(r, NAME_WORDS), pick(r, NAME_WORDS)].join(' ');
  return listing({
    seq,
    kind: software ? 'software_and_ai' : 'local_and_retail',
    source: pick(r, SOURCES),
    name: r() < 0.5 ? name.toUpperCase() : name,
    city: r() < 0.9 ? c.city : null,
    country: r() < 0.9 ? c.country : null,
    geo: r() < 0.85 ? { lat: c.lat + (r() - 0.5) * 0.6, lng: c.lng + (r() - 0.5) * 0.6 } : null,
    description: r() < 0.7 ? some(r, DESC_WORDS, 0.3).join(' ') : null,
    categories: [GROUP[top]!],
    placeCategory: place(pc),
    placeAlternates: r() < 0.2 ? [place(pick(r, PLACE_IDS))] : [],
    tags: some(r, ['Vegan Food', 'late night', 'kids'], 0.2),
    languages: some(r, LANGS, 0.3),
    itemTypes: some(r, ITEM_TYPES, 0.3),
    services: r() < 0.3 ? [{ name: pick(r, ['Haircut', 'Espresso bar', 'Pizza delivery']), type: 'booking' }] : [],
    hours,
    doors,
    attributes,
    payments: some(r, PAYMENTS, 0.25),
    priceBand: r() < 0.7 ? 1 + Math.floor(r() * 4) : null,
    place: r() < 0.3 ? { kind: ['online'], serviceArea: { countries: some(r, ['ES', 'FR', 'NZ'], 0.4) }, shipsTo: some(r, ['GB', 'DE'], 0.4) } : null,
    delistedAt: r() < 0.03 ? 1 : null,
    dormantSince: r() < 0.03 ? 1 : null,
  });
}

// reference implementation: plain loops, luxon for time
function refOpen(h: Hours | null, t: number): boolean {
  if (!h) return false;
  const dt = DateTime.fromMillis(t, { zone: h.timezone });
  if (!dt.isValid) return false;
  const today = dt.toISODate()!;
  const yesterday = dt.minus({ days: 1 }).toISODate()!;
  const closed = (d: string): boolean => h.closures.some((c) => c.from <= d && d <= c.to);
  if (closed(today)) return false;
  const m = dt.hour * 60 + dt.minute;
  const min = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));
  for (const [o, c] of h.weekly[DAYS[dt.weekday - 1]!] ?? []) {
    const a = min(o);
    const b = min(c);
    if (b > a ? m >= a && m < b : m >= a) return true;
  }
  if (!closed(yesterday)) {
    for (const [o, c] of h.weekly[DAYS[(dt.weekday + 5) % 7]!] ?? []) {
      const a = min(o);
      const b = min(c);
      if (b <= a && m < b) return true;
    }
  }
  return false;
}

function refDistance(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const R = 6371.0088;
  const rad = Math.PI / 180;
  const x = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(x));
}

function refMatch(l: ListingRecord, q: SearchQuery): boolean {
  if (l.delistedAt !== null || l.dormantSince !== null) return false;
  const keys = categoryKeysOf(l);
  const text = new Set([
    ...indexWords([l.name, l.city, l.description, ...l.tags, ...l.services.map((s) => s.name)].join(' ')),
    ...keys.flatMap((k) => categoryWordsOf(k)),
  ]);
  if (!q.words.every((w) => text.has(w))) return false;
  const nameWords = new Set(indexWords(l.name));
  const kindOk =
    q.kinds.includes(l.kind) || (q.softwareNameException && l.kind === 'software_and_ai' && q.words.length > 0 && q.words.every((w) => nameWords.has(w)));
  if (!kindOk) return false;
  if (q.categoryKeys && !q.categoryKeys.some((k) => keys.includes(k))) return false;
  if (q.tag !== undefined && !l.tags.some((t) => tagKey(t) === tagKey(q.tag!))) return false;
  if (q.itemType && !l.itemTypes.includes(q.itemType)) return false;
  if (q.language) {
    const want = q.language.toLowerCase();
    if (!l.languages.some((x) => x.toLowerCase() === want || x.toLowerCase().startsWith(want + '-'))) return false;
  }
  if (q.openAt !== undefined && !refOpen(l.hours, q.openAt)) return false;
  if (q.near && (!l.geo || refDistance(q.near, shownGeo(l)!) > q.near.radiusKm)) return false;
  for (const a of q.attributes ?? []) {
    const v = l.attributes[a.key]?.v;
    if (a.value === undefined ? v !== true : v === undefined || String(v).toLowerCase() !== a.value) return false;
  }
  if (q.country) {
    const cs = [l.country, l.address?.country, l.place?.country, ...(l.place?.serviceArea?.countries ?? []), ...(l.place?.shipsTo ?? [])];
    if (!cs.includes(q.country)) return false;
  }
  if (q.priceBand && (l.priceBand === null || l.priceBand < q.priceBand[0] || l.priceBand > q.priceBand[1])) return false;
  const live = l.doors.filter((d) => d.status === 'live');
  for (const a of q.accepts ?? []) if (!live.some((d) => d.kinds.includes(a as Door['kinds'][number])) && !l.payments.includes(a)) return false;
  if (q.requestable && !live.some((d) => d.kinds.includes(q.requestable!))) return false;
  if (q.doorTypes && !q.doorTypes.some((t) => live.some((d) => (t === 'platform' ? d.type.startsWith('platform:') : d.type === t)))) return false;
  if (q.minLevel !== undefined && levelRank(listingLevel(l.doors)) < q.minLevel) return false;
  if (q.hasInbox !== undefined && live.some((d) => d.type === 'inbox') !== q.hasInbox) return false;
  if (q.sources && !q.sources.includes(l.source)) return false;
  return true;
}

function refSearch(listings: ListingRecord[], order: Int32Array, q: SearchQuery): number[] {
  const bySeq = new Map(listings.map((l) => [l.seq, l]));
  const ranked = [...order].map((s) => bySeq.get(s)).filter((l): l is ListingRecord => !!l && refMatch(l, q));
  if (q.order === 'rank') return ranked.map((l) => l.seq);
  const d = (l: ListingRecord): number => refDistance(q.near!, shownGeo(l)!);
  return ranked
    .map((l, i) => ({ l, i, dist: d(l) }))
    .sort((a, b) => a.dist - b.dist || a.i - b.i)
    .map((x) => x.l.seq);
}

function randomQuery(r: () => number): SearchQuery {
  const q = query({ limit: 1 + Math.floor(r() * 9) });
  const words = [...NAME_WORDS, ...DESC_WORDS, 'coffee', 'pizza', 'lisboa', 'york', 'haircut', 'ai', 'software', 'food'];
  if (r() < 0.35) q.words = [...new Set(Array.from({ length: 1 + Math.floor(r() * 2) }, () => pick(r, indexWords(pick(r, words)))))];
  const k = r();
  q.kinds = k < 0.7 ? ['local_and_retail'] : k < 0.85 ? ['software_and_ai'] : ['local_and_retail', 'software_and_ai'];
  q.softwareNameException = r() < 0.5;
  if (r() < 0.2) q.categoryKeys = some(r, [...PLACE_IDS, 'food-drink', 'beauty-care', 'shops', 'software-ai'], 0.15);
  if (r() < 0.05) q.tag = pick(r, ['vegan food', 'Late-Night', 'kids', 'none']);
  if (r() < 0.1) q.itemType = pick(r, ITEM_TYPES);
  if (r() < 0.15) q.language = pick(r, ['pt', 'pt-br', 'pt-PT', 'en', 'en-us', 'es']);
  if (r() < 0.3) q.openAt = Date.UTC(2026, 2, 1 + Math.floor(r() * 35), Math.floor(r() * 24), Math.floor(r() * 60));
  if (r() < 0.3) {
    const c = pick(r, CITIES);
    q.near = { lat: c.lat + (r() - 0.5) * 0.4, lng: c.lng + (r() - 0.5) * 0.4, radiusKm: pick(r, [1, 5, 10, 25, 50, 400]) };
    if (r() < 0.5) q.order = 'nearest';
  }
  if (r() < 0.15) q.attributes = some(r, [{ key: 'wifi' }, { key: 'parking', value: 'street' }, { key: 'parking', value: 'garage' }], 0.5);
  if (r() < 0.15) q.country = pick(r, ['PT', 'US', 'AU', 'ES', 'NZ', 'GB']);
  if (r() < 0.15) {
    const a = 1 + Math.floor(r() * 4);
    q.priceBand = [a, Math.min(4, a + Math.floor(r() * 2))];
  }
  if (r() < 0.15) q.accepts = some(r, [...REQ, ...PAYMENTS], 0.2);
  if (r() < 0.1) q.requestable = pick(r, ['ask', 'quote'] as const);
  if (r() < 0.15) q.doorTypes = some(r, [...DOOR_T, 'platform'], 0.3);
  if (r() < 0.15) q.minLevel = Math.floor(r() * 5);
  if (r() < 0.1) q.hasInbox = r() < 0.5;
  if (r() < 0.15) q.sources = some(r, SOURCES, 0.5);
  if (q.order === 'nearest') q.after = 0;
  // open_now reported on each hit: at the filter's own instant, or at another (two tests in one search)
  if (r() < 0.3) q.reportOpenAt = q.openAt !== undefined && r() < 0.5 ? q.openAt : Date.UTC(2026, 2, 1 + Math.floor(r() * 35), Math.floor(r() * 24), Math.floor(r() * 60));
  return q;
}

describe('search index: random directory against a reference', () => {
  const r = rng(7);
  const listings = Array.from({ length: 200 }, (_, i) => randomListing(r, i + 1));
  const order = Int32Array.from(listings.map((l) => l.seq).sort(() => r() - 0.5));

  const TUNINGS: [string, Partial<SearchTuning>][] = [
    ['default planner', {}],
    ['bitsets for every list, always AND words, circle lists, nearest by grid in rounds', { bitsetShare: 1e9, denseShare: 1e9, circleList: 'always', nearestBy: 'grid', oneRoundBelow: 0, firstRadiusKm: 0.3 }],
    ['no cached bitsets, always drive, never circle lists, nearest by clause', { bitsetShare: 0.5, denseShare: 0, circleList: 'never', nearestBy: 'clause' }],
    ['nearest by grid from a tiny circle', { nearestBy: 'grid', oneRoundBelow: 0, firstRadiusKm: 0.05 }],
  ];
  for (const [name, tuning] of TUNINGS) {
    it(`every random query, paged, gives exactly the reference matches in order (${name})`, () => {
      const idx = buildSearchIndex({ listings, order, categoryKeysOf, categoryWordsOf, tuning });
      let nonEmpty = 0;
      let reported = 0;
      let excludedAndLeftOut = 0;
      for (let i = 0; i < 250; i++) {
        const asked = randomQuery(r);
        // Every other query leaves some listings out, as the live index leaves out those written since the build.
        const left = i % 2 === 1 ? listings.filter(() => r() < 0.15).map((l) => l.seq) : [];
        const q = left.length ? { ...asked, exclude: idx.excluding(left) } : asked;
        const matches = refSearch(listings, order, asked);
        const want = matches.filter((seq) => !left.includes(seq));
        if (want.length < matches.length) excludedAndLeftOut++;
        const { seqs, pages } = all(idx, q);
        expect(seqs, JSON.stringify(asked)).toEqual(want);
        if (want.length > 0) nonEmpty++;
        for (const h of pages.flatMap((p) => p.hits)) {
          expect(h.rankPos).toBe(order.indexOf(h.seq) + 1);
          if (q.near) expect(h.distanceKm).toBeCloseTo(refDistance(q.near, shownGeo(idx.get(h.seq)!)!), 6);
          else expect(h.distanceKm).toBeUndefined();
          if (q.reportOpenAt !== undefined) {
            const hours = idx.get(h.seq)!.hours;
            expect(h.openNow, JSON.stringify(asked)).toBe(hours ? refOpen(hours, q.reportOpenAt) : null);
            reported++;
          }
        }
      }
      expect(nonEmpty).toBeGreaterThan(60);
      expect(reported).toBeGreaterThan(100);
      expect(excludedAndLeftOut).toBeGreaterThan(20);
    });
  }

  it('isOpenAt agrees with a luxon reference over many instants', () => {
    const withHours = listings.filter((l) => l.hours);
    for (let i = 0; i < 3000; i++) {
      const l = pick(r, withHours);
      const t = Date.UTC(2026, 2, 1, 0, 0) + Math.floor(r() * 40 * 24 * 60) * 60_000;
      expect(isOpenAt(l.hours, t), `${l.seq} ${new Date(t).toISOString()}`).toBe(refOpen(l.hours, t));
    }
  });

  it('a reordered index answers like a fresh one', () => {
    const order2 = Int32Array.from([...order].reverse());
    for (const tuning of [{}, { bitsetShare: 1e9 }, { bitsetShare: 0.5 }]) {
      const fresh = buildSearchIndex({ listings, order: order2, categoryKeysOf, categoryWordsOf, tuning });
      const moved = buildSearchIndex({ listings, order, categoryKeysOf, categoryWordsOf, tuning }).withOrder(order2);
      for (let i = 0; i < 100; i++) {
        const q = randomQuery(r);
        expect(moved.search(q)).toEqual(fresh.search(q));
      }
      expect(moved.rankPosOf(order2[0]!)).toBe(1);
    }
  });
});

describe('search index: more listings than 16 bits count', () => {
  it('lists past position 65,535 and lists kept as bitsets find what a reference finds, in a new order too', () => {
    const N = 140_000;
    // 'extremum': the first and last 1,000 seqs, so in the reversed order a list with nothing between positions 1,000 and 139,000
    const wordsOf = (seq: number): string[] =>
      [seq % 3 === 0 ? 'trio' : '', seq % 1000 === 7 ? 'rarum' : '', seq % 97 === 1 ? 'medius' : '', seq <= 1000 || seq > N - 1000 ? 'extremum' : ''].filter(Boolean);
    const many = Array.from({ length: N }, (_, i) => listing({ seq: i + 1, name: ['Shop', ...wordsOf(i + 1)].join(' ') }));
    const reversed = Int32Array.from(many.map((l) => l.seq).reverse());
    // a second order: every listing, scattered (a multiplier prime to N)
    const scattered = Int32Array.from({ length: N }, (_, i) => ((i * 7919) % N) + 1);
    const built = buildSearchIndex({ listings: many, order: reversed, categoryKeysOf, categoryWordsOf, keepRecords: false });
    for (const [index, order] of [
      [built, reversed],
      [built.withOrder(scattered), scattered],
    ] as const) {
      for (const words of [['rarum'], ['medius'], ['trio'], ['medius', 'trio'], ['rarum', 'trio'], ['rarum', 'medius'], ['extremum'], ['extremum', 'medius'], ['extremum', 'trio'], ['extremum', 'rarum']]) {
        const want = [...order].filter((seq) => words.every((w) => wordsOf(seq).includes(w)));
        expect(want.length).toBeGreaterThan(0);
        expect(all(index, query({ words }), 100).seqs, words.join(' ')).toEqual(want);
      }
      expect(index.rankPosOf(order[N - 1]!)).toBe(N);
    }
  });
});
