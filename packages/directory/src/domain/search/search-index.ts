/**
 * The in-memory search index of GET /v1/businesses (directory spec §4).
 *
 * Positions: listings are numbered 0..n-1 in the hourly order (the precomputed Int32Array of seq
 * values), so "ascending position" is "the published order" and every filter only leaves listings
 * out. All posting lists hold positions, sorted; they live in one shared Int32Array (CSR layout)
 * addressed by term id, from two dictionaries sharing the id space:
 *
 * - words (`q`, a TermTable): folded words of name, city, description, tags, services' names and of
 *   the listing's category keys (labels, synonyms);
 * - facets, one small map per namespace: `cat` category key, `tag` whole folded tag, `n` name words
 *   of software_and_ai listings (the name exception), `kind`, `src`, `it` item type, `lang` every
 *   subtag prefix (pt-br → pt, pt-br), `cc` country located in, served or shipped to, `a` attribute
 *   key (true) and key=value, `acc` request kinds of live doors and payment tokens, `req` ask/quote
 *   of live doors, `door` live door types and `platform`, `lvl` level rank, `price` price band.
 *
 * A query is a conjunction of clauses (each a list or a union of lists, see clauses.ts) plus two
 * per-listing tests (open at an instant, distance). The planner drives from the smallest clause and
 * probes the others (cached bitsets for big lists, galloping for small ones); when every clause is
 * big it ANDs bit words instead. `near` is either a test (box, then haversine) or, when that is
 * cheaper, a candidate list gathered from the geo grid and sorted by position; `order=nearest` grows
 * a circle over the grid until it holds enough matches. The per-listing data the tests read (point,
 * compiled hours) is laid out by position too, so scans read memory in order; a bitset per local
 * hour of the week (who may be open then) rejects most closed listings with one read, and a query
 * computes each time zone's local clock once.
 *
 * Everything but the dictionaries is typed arrays (off the JS heap). `withOrder` lays the same
 * listings out in the next hour's order without reading them again.
 */
import { isOwnInbox } from '../listings/answering.js';
import { KINDS, levelRank, shownGeo } from '../listings/listing.js';
import type { ItemType, Kind, ListingRecord, Source } from '../listings/listing.js';
import { AllClause, END, ListClause, NotClause, TestedClause, UnionClause, bitsetOf, lowerBound, wordCount } from './clauses.js';
import type { Clause } from './clauses.js';
import { CELL_DEG, GRID_COLS, GRID_ROWS, boxAround, boxCellRuns, gridCol, gridRow, haversineKm } from './geo.js';
import type { GeoBox } from './geo.js';
import { compileClosures, compileWeekly, openInRanges, zoneNow } from './hours.js';
import { TermTable } from './term-table.js';
import { foldText, foldWords, indexWords, tagKey } from './text.js';

export interface SearchIndexInput {
  listings: Iterable<ListingRecord>;
  /** seq values in rank order (the hourly order). */
  order: Int32Array;
  /** Group slugs + place category ids with their ancestors + alternates (with ancestors). */
  categoryKeysOf: (l: ListingRecord) => string[];
  /** Folded label and synonym words of a category key. */
  categoryWordsOf: (key: string) => string[];
  /** Whether a listing is listed (default: neither gone nor set aside); one that is not is left out. */
  listed?: (l: ListingRecord) => boolean;
  /**
   * Keep the records for get() (default true). Without, the listings may be streamed (e.g. straight
   * from the database) and the index holds only typed arrays and its dictionaries, which keeps the
   * JS heap, and so garbage-collection pauses, small.
   */
  keepRecords?: boolean;
  /** Planner knobs; tests use them to force each path. */
  tuning?: Partial<SearchTuning>;
}

export interface SearchTuning {
  /** Lists of at least n/bitsetShare positions are probed by a cached bitset (default 64). */
  bitsetShare: number;
  /** When the smallest clause holds at least n/denseShare positions, AND bit words instead of driving (default 32). */
  denseShare: number;
  /** `near`: gather the circle as a candidate list (auto: when cheaper than testing candidates). */
  circleList: 'auto' | 'always' | 'never';
  /** `nearest`: walk the smallest clause, or grow a circle over the grid (auto: the cheaper). */
  nearestBy: 'auto' | 'clause' | 'grid';
  /** `nearest` by grid: a circle holding at most this many points is read in one round (default 20000). */
  oneRoundBelow: number;
  /** `nearest` by grid: the first round's radius in km (default 2). */
  firstRadiusKm: number;
}

const DEFAULT_TUNING: SearchTuning = { bitsetShare: 64, denseShare: 32, circleList: 'auto', nearestBy: 'auto', oneRoundBelow: 20_000, firstRadiusKm: 2 };

export interface SearchQuery {
  /** Folded q words (whole words of text.ts cutWords; filler and one-letter words already removed by the caller). */
  words: string[];
  /** Include software_and_ai listings whose name holds every word even when `kinds` leaves them out. */
  softwareNameException: boolean;
  /** Allowed kinds. */
  kinds: Kind[];
  /** Any of (a group slug, or a place category id, which holds every category below it). An empty array matches nothing. */
  categoryKeys?: string[];
  /** Legacy (rules < 7): an unresolved category matches whole tags, folded. */
  tag?: string;
  itemType?: ItemType;
  /** `pt` keeps pt and pt-*; `pt-br` keeps pt-br (and pt-br-*) only. */
  language?: string;
  /** Only listings open at this instant (ms) by their hours in their own zone; no hours → left out. */
  openAt?: number;
  near?: { lat: number; lng: number; radiusKm: number };
  /** All must hold: a bool key that is true, or key=value. */
  attributes?: { key: string; value?: string }[];
  /** Located in, serving or shipping to (ISO alpha-2). */
  country?: string;
  /** Inclusive band range, 1..4. */
  priceBand?: [number, number];
  /** All must hold: request kinds of a live door, or payment tokens of the listing. */
  accepts?: string[];
  requestable?: 'ask' | 'quote';
  /** Any: a live door of one of these types; `platform` = any `platform:*`. An empty array matches nothing. */
  doorTypes?: string[];
  /** levelRank() threshold of the listing's level (highest live door). */
  minLevel?: number;
  hasInbox?: boolean;
  /** Any of. An empty array matches nothing. */
  sources?: Source[];
  /** `nearest` sorts by distance, then rank; needs `near`. */
  order: 'rank' | 'nearest';
  /** rank: the 0-based order index (rankPos - 1) after which to continue, -1 at the start; nearest: an offset. */
  after: number;
  /** 1..100 */
  limit: number;
  /** performance.now() value after which the search throws SearchTimeout. */
  deadlineMs?: number;
  /** Tell each hit whether it is open at this instant (its `open_now`), from the hours the index keeps. */
  reportOpenAt?: number;
  /**
   * A member's own inbox counts as a live door (door_type, has_inbox, accepts, requestable, level)
   * only when the member pinged at or after this instant (ms); absent, it always counts.
   */
  answeringSince?: number;
  /** Leave these listings out (made by this index's `excluding`; another index's is ignored). */
  exclude?: Exclusion;
  /** Take `limit` as given, above 100 too (pages merged from two indexes ask for the whole head). */
  anyLimit?: boolean;
}

/** Listings an index leaves out of a search, as its positions (see SearchIndex.excluding). */
export interface Exclusion {
  readonly owner: SearchIndex;
  readonly size: number;
}

export interface SearchHit {
  seq: number;
  /** 1-based place in the hourly order. */
  rankPos: number;
  distanceKm?: number;
  /** With `reportOpenAt`: open at that instant by its hours (isOpenAt), null when it publishes none. */
  openNow?: boolean | null;
}

export interface SearchPage {
  hits: SearchHit[];
  /** The `after` of the next page; null when there is none. */
  next: number | null;
}

export interface SearchIndexStats {
  listings: number;
  terms: number;
  postings: number;
  withHours: number;
  withGeo: number;
  zones: number;
  cachedBitsets: number;
  /** Bytes held in typed arrays (postings, bitsets, grid, hours, maps by position); records not counted. */
  typedBytes: number;
}

export interface SearchIndex {
  readonly size: number;
  /** The listing (undefined when unknown, or when built without keepRecords). */
  get(seq: number): ListingRecord | undefined;
  /** 1-based place of the listing in the hourly order, or null when it is not in the index. */
  rankPosOf(seq: number): number | null;
  search(query: SearchQuery): SearchPage;
  /** The same listings in another hourly order, without reading the listings again. */
  withOrder(order: Int32Array): SearchIndex;
  stats(): SearchIndexStats;
  /** A member pinged: its own inbox counts as live until the window after `atMs` ends (no-op for others). */
  notePing(seq: number, atMs: number): void;
  /** An exclusion of these listings for `SearchQuery.exclude`. */
  excluding(seqs: Iterable<number>): Exclusion;
  /** The order the index places by, with the listings it lacked appended in the order it gave them (their rank_pos). */
  extendedOrder(): Int32Array;
}

export class SearchTimeout extends Error {
  constructor() {
    super('the search ran out of time');
    this.name = 'SearchTimeout';
  }
}

/* ------------------------------------------------------------------------------------------------ */

class IntBuf {
  a: Int32Array;
  n = 0;
  constructor(capacity = 1024) {
    this.a = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.n === this.a.length) this.reserve(this.n + 1);
    this.a[this.n++] = v;
  }
  reserve(size: number): void {
    if (size <= this.a.length) return;
    let c = Math.max(16, Math.ceil(this.a.length * 1.5));
    while (c < size) c = Math.ceil(c * 1.5);
    const b = new Int32Array(c);
    b.set(this.a.subarray(0, this.n));
    this.a = b;
  }
  trimmed(): Int32Array {
    return this.a.slice(0, this.n);
  }
}

/** `mdoor`, `macc`, `mreq`, `mlvl`: what a member's own inbox adds, which holds only while the member answers. */
const NAMESPACES = ['cat', 'tag', 'n', 'kind', 'src', 'it', 'lang', 'cc', 'a', 'acc', 'req', 'door', 'lvl', 'price', 'mdoor', 'macc', 'mreq', 'mlvl'] as const;
type Namespace = (typeof NAMESPACES)[number];
/** Facets whose bitsets are made with the index (almost every query uses them). */
const WARM: readonly Namespace[] = ['kind', 'src', 'lvl', 'door'];

/** Everything that depends on the listings but not on their order. */
interface Core {
  /** By dense id (input order); null without keepRecords. */
  records: ListingRecord[] | null;
  seqs: Int32Array;
  words: TermTable;
  facets: Record<Namespace, Map<string, number>>;
  termCount: number;
  zones: string[];
}

/** Term ids of each record, CSR by dense id (only while an order is laid out). */
interface RecordTerms {
  recOff: Int32Array;
  recTerms: Int32Array;
}

/** What the per-listing tests read (point, hours), laid out by dense id or by position. */
interface RecordData {
  lat: Float64Array; // NaN: no point
  lng: Float64Array;
  zoneOf: Int32Array; // -1: no hours
  hrOff: Int32Array;
  hr: Int32Array;
  clOff: Int32Array;
  cl: Int32Array;
  /** A member with a live own inbox: its last ping (-Infinity: none); NaN for every other listing. */
  ping: Float64Array;
}

/** Geo grid: per cell, positions ascending, with their points alongside. */
interface GeoGrid {
  cellOff: Int32Array;
  cellPos: Int32Array;
  cellLat: Float64Array;
  cellLng: Float64Array;
  cellCos: Float64Array;
}

/** The positions an index leaves out of a search. */
class ExcludedPositions implements Exclusion {
  constructor(
    readonly owner: SearchIndex,
    readonly positions: Int32Array,
  ) {}
  get size(): number {
    return this.positions.length;
  }
}

/** `src` re-laid so that entry q is src's entry srcOf[q]. */
function permuteRecordData(src: RecordData, srcOf: Int32Array): RecordData {
  const n = srcOf.length;
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  const ping = new Float64Array(n);
  const zoneOf = new Int32Array(n);
  const hrOff = new Int32Array(n + 1);
  const clOff = new Int32Array(n + 1);
  for (let q = 0; q < n; q++) {
    const s = srcOf[q]!;
    lat[q] = src.lat[s]!;
    lng[q] = src.lng[s]!;
    ping[q] = src.ping[s]!;
    zoneOf[q] = src.zoneOf[s]!;
    hrOff[q + 1] = hrOff[q]! + src.hrOff[s + 1]! - src.hrOff[s]!;
    clOff[q + 1] = clOff[q]! + src.clOff[s + 1]! - src.clOff[s]!;
  }
  const hr = new Int32Array(hrOff[n]!);
  const cl = new Int32Array(clOff[n]!);
  for (let q = 0; q < n; q++) {
    const s = srcOf[q]!;
    for (let i = src.hrOff[s]!, e = src.hrOff[s + 1]!, o = hrOff[q]!; i < e; i++, o++) hr[o] = src.hr[i]!;
    for (let i = src.clOff[s]!, e = src.clOff[s + 1]!, o = clOff[q]!; i < e; i++, o++) cl[o] = src.cl[i]!;
  }
  return { lat, lng, zoneOf, hrOff, hr, clOff, cl, ping };
}

const WEEK_HOURS = 168;

/**
 * One bitset over positions per local hour of the week (Monday 00–01 = 0): the listings that may be
 * open at some moment of that hour. Probing it for ascending positions reads memory in order.
 */
function hourBitsets(rec: RecordData, n: number): Uint32Array {
  const W = wordCount(n);
  const bits = new Uint32Array(WEEK_HOURS * W);
  for (let p = 0; p < n; p++) {
    const word = p >>> 5;
    const bit = 1 << (p & 31);
    for (let i = rec.hrOff[p]!, e = rec.hrOff[p + 1]!; i < e; i++) {
      const r = rec.hr[i]!;
      for (let h = Math.floor((r & 0x3fff) / 60), last = Math.floor(((r >>> 16) - 1) / 60); h <= last; h++) bits[h * W + word]! |= bit;
    }
  }
  return bits;
}

function notGone(l: ListingRecord): boolean {
  return l.delistedAt == null && l.dormantSince == null;
}

class FloatBuf {
  a = new Float64Array(1024);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(Math.ceil(this.a.length * 1.5));
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  trimmed(): Float64Array {
    return this.a.slice(0, this.n);
  }
}

/** What a build reads besides the listings. */
type BuildSettings = Omit<SearchIndexInput, 'listings'>;

interface CoreBuilder {
  /** Takes the next listing (in any order; one not shown, or seen before, is left out). */
  add(l: ListingRecord): void;
  finish(): { core: Core; terms: RecordTerms; data: RecordData };
}

/** One pass over the listings, one at a time (they may be streamed, with or without waiting; they are kept only with keepRecords). */
function coreBuilder(input: BuildSettings): CoreBuilder {
  const keep = input.keepRecords !== false;
  const records: ListingRecord[] = [];
  const seqs = new IntBuf(1 << 16);
  const seen = new Set<number>();
  const words = new TermTable(1 << 16);
  const facets = Object.fromEntries(NAMESPACES.map((ns) => [ns, new Map<string, number>()])) as Record<Namespace, Map<string, number>>;
  let termCount = 0;
  const lastSeen = new IntBuf(1 << 16);
  const recOff = new IntBuf(1 << 16);
  const recTerms = new IntBuf(1 << 20);
  let cur = 0;

  const add = (t: number): void => {
    if (t >= lastSeen.n) {
      lastSeen.reserve(t + 1);
      lastSeen.a.fill(-1, lastSeen.n, t + 1);
      lastSeen.n = t + 1;
    }
    if (lastSeen.a[t] === cur) return;
    lastSeen.a[t] = cur;
    recTerms.push(t);
  };
  const newId = (): number => termCount++;
  const facetId = (ns: Map<string, number>, value: string): number => {
    let t = ns.get(value);
    if (t === undefined) ns.set(value, (t = termCount++));
    return t;
  };
  const addFacet = (ns: Map<string, number>, value: string): void => add(facetId(ns, value));
  const addWords = (text: string | null | undefined): void => {
    if (text) words.forEachWord(text, newId, add);
  };
  const { cat, tag, n: nameNs, kind, src, it, lang, cc, a: attr, acc, req, door: doorNs, lvl, price, mdoor, macc, mreq, mlvl } = facets;
  const categoryTerms = new Map<string, Int32Array>();
  const termsOfCategory = (key: string): Int32Array => {
    let ts = categoryTerms.get(key);
    if (!ts) {
      const ids = [facetId(cat, key)];
      for (const w of input.categoryWordsOf(key)) {
        for (const f of indexWords(w)) ids.push(words.intern(f, newId));
      }
      ts = Int32Array.from(ids);
      categoryTerms.set(key, ts);
    }
    return ts;
  };
  const addCountry = (c: unknown): void => {
    if (typeof c === 'string' && c) addFacet(cc, c.toUpperCase());
  };

  const lat = new FloatBuf();
  const lng = new FloatBuf();
  const ping = new FloatBuf();
  const zones: string[] = [];
  const zoneIds = new Map<string, number>();
  const zoneOf = new IntBuf(1 << 16);
  const hrOff = new IntBuf(1 << 16);
  const hr = new IntBuf();
  const clOff = new IntBuf(1 << 16);
  const cl = new IntBuf(64);

  const shown = input.listed ?? notGone;
  let d = 0;
  const addListing = (l: ListingRecord): void => {
    if (!shown(l) || seen.has(l.seq)) return;
    seen.add(l.seq);
    seqs.push(l.seq);
    if (keep) records.push(l);
    cur = d++;
    recOff.push(recTerms.n);

    // q words
    addWords(l.name);
    addWords(l.city);
    addWords(l.description);
    for (const t of l.tags ?? []) {
      addWords(t);
      const k = tagKey(t);
      if (k) addFacet(tag, k);
    }
    for (const s of l.services ?? []) addWords(s?.name);
    for (const key of input.categoryKeysOf(l)) {
      const ts = termsOfCategory(key);
      for (let i = 0; i < ts.length; i++) add(ts[i]!);
    }
    if (l.kind === 'software_and_ai') for (const w of indexWords(l.name)) addFacet(nameNs, w);

    addFacet(kind, l.kind);
    addFacet(src, l.source);
    for (const t of l.itemTypes ?? []) addFacet(it, t);
    for (const tagValue of l.languages ?? []) {
      const parts = foldText(tagValue).replace(/_/g, '-').split('-');
      let prefix = '';
      for (const p of parts) {
        if (!p) break;
        prefix = prefix ? prefix + '-' + p : p;
        addFacet(lang, prefix);
      }
    }
    addCountry(l.country);
    addCountry(l.address?.country);
    const pl = l.place;
    if (pl) {
      addCountry(pl.country);
      for (const c of pl.serviceArea?.countries ?? []) addCountry(c);
      for (const c of pl.shipsTo ?? []) addCountry(c);
    }
    const attrs = l.attributes;
    if (attrs) {
      for (const key in attrs) {
        const v = attrs[key]?.v;
        if (v === undefined || v === null) continue;
        if (v === true) addFacet(attr, key);
        addFacet(attr, key + '=' + String(v).toLowerCase());
      }
    }
    for (const p of l.payments ?? []) addFacet(acc, p.toLowerCase());
    let level = 0;
    let ownLevel = 0;
    let ownLive = false;
    for (const dr of l.doors ?? []) {
      if (dr.status !== 'live') continue;
      const type = dr.type.toLowerCase();
      if (isOwnInbox(l, dr)) {
        // live only while the member answers: kept apart, tested against its last ping per query
        ownLive = true;
        addFacet(mdoor, type);
        for (const k of dr.kinds ?? []) {
          addFacet(macc, k);
          if (k === 'ask' || k === 'quote') addFacet(mreq, k);
        }
        ownLevel = Math.max(ownLevel, levelRank(dr.level) ?? 0);
        continue;
      }
      addFacet(doorNs, type);
      if (type.startsWith('platform:')) addFacet(doorNs, 'platform');
      for (const k of dr.kinds ?? []) {
        addFacet(acc, k);
        if (k === 'ask' || k === 'quote') addFacet(req, k);
      }
      const r = levelRank(dr.level) ?? 0;
      if (r > level) level = r;
    }
    addFacet(lvl, String(level));
    if (ownLevel > level) addFacet(mlvl, String(ownLevel));
    ping.push(ownLive ? (l.lastPingAt ?? -Infinity) : NaN);
    if (typeof l.priceBand === 'number' && Number.isInteger(l.priceBand)) addFacet(price, String(l.priceBand));

    // The published point (coarse for a business that shows no street): distances and radius read it.
    const g = shownGeo(l);
    const located = g && Number.isFinite(g.lat) && Number.isFinite(g.lng) && Math.abs(g.lat) <= 90 && Math.abs(g.lng) <= 180;
    lat.push(located ? g.lat : NaN);
    lng.push(located ? g.lng : NaN);

    hrOff.push(hr.n);
    clOff.push(cl.n);
    const h = l.hours;
    if (h && typeof h.timezone === 'string') {
      let z = zoneIds.get(h.timezone);
      if (z === undefined) {
        z = zones.length;
        zones.push(h.timezone);
        zoneIds.set(h.timezone, z);
      }
      zoneOf.push(z);
      for (const r of compileWeekly(h.weekly)) hr.push(r);
      for (const c of compileClosures(h.closures)) cl.push(c);
    } else zoneOf.push(-1);
  };
  const finish = () => {
    recOff.push(recTerms.n);
    hrOff.push(hr.n);
    clOff.push(cl.n);
    return {
      core: { records: keep ? records : null, seqs: seqs.trimmed(), words, facets, termCount, zones },
      terms: { recOff: recOff.trimmed(), recTerms: recTerms.trimmed() },
      data: { lat: lat.trimmed(), lng: lng.trimmed(), zoneOf: zoneOf.trimmed(), hrOff: hrOff.trimmed(), hr: hr.trimmed(), clOff: clOff.trimmed(), cl: cl.trimmed(), ping: ping.trimmed() },
    };
  };
  return { add: addListing, finish };
}

function buildCore(input: SearchIndexInput): { core: Core; terms: RecordTerms; data: RecordData } {
  const builder = coreBuilder(input);
  for (const l of input.listings) builder.add(l);
  return builder.finish();
}

/** Postings of each record's terms, laid out by position: counted, then filled in position order, so every list comes out sorted. */
function layPostings(termCount: number, terms: RecordTerms, denseAt: Int32Array): { off: Int32Array; post: Int32Array } {
  const { recOff, recTerms } = terms;
  const off = new Int32Array(termCount + 1);
  for (let i = 0; i < recTerms.length; i++) off[recTerms[i]! + 1]!++;
  for (let t = 0; t < termCount; t++) off[t + 1]! += off[t]!;
  const fill = off.slice(0, termCount);
  const post = new Int32Array(recTerms.length);
  for (let q = 0, n = denseAt.length; q < n; q++) {
    const d = denseAt[q]!;
    for (let i = recOff[d]!, e = recOff[d + 1]!; i < e; i++) post[fill[recTerms[i]!]!++] = q;
  }
  return { off, post };
}

/**
 * The same postings in another order: each list mapped to new positions and sorted again, big lists
 * through a bitset (set the bits, read them back in order), small ones by sorting.
 */
function relayPostings(old: Int32Array, off: Int32Array, oldDenseAt: Int32Array, newPosOfDense: Int32Array, bitsetShare: number): Int32Array {
  const n = oldDenseAt.length;
  const move = new Int32Array(n);
  for (let p = 0; p < n; p++) move[p] = newPosOfDense[oldDenseAt[p]!]!;
  const post = new Int32Array(old.length);
  const bits = new Uint32Array(wordCount(n));
  for (let t = 0, T = off.length - 1; t < T; t++) {
    const a = off[t]!;
    const b = off[t + 1]!;
    if (b - a < 2) {
      if (b > a) post[a] = move[old[a]!]!;
      continue;
    }
    if ((b - a) * bitsetShare >= n) {
      for (let i = a; i < b; i++) {
        const q = move[old[i]!]!;
        bits[q >>> 5]! |= 1 << (q & 31);
      }
      let o = a;
      for (let w = 0; w < bits.length; w++) {
        let x = bits[w]! | 0;
        if (x === 0) continue;
        bits[w] = 0;
        while (x !== 0) {
          const low = x & -x;
          x ^= low;
          post[o++] = (w << 5) | (31 - Math.clz32(low));
        }
      }
    } else {
      for (let i = a; i < b; i++) post[i] = move[old[i]!]!;
      post.subarray(a, b).sort();
    }
  }
  return post;
}

const RAD = Math.PI / 180;
const EARTH_KM = 6371.0088;

/** A circle on the sphere: tests points against it and gives their haversine distance. */
class Circle {
  readonly cos: number;
  readonly box: GeoBox;
  private readonly aMax: number;
  constructor(
    readonly lat: number,
    readonly lng: number,
    readonly radiusKm: number,
  ) {
    this.cos = Math.cos(lat * RAD);
    this.box = boxAround(lat, lng, radiusKm);
    const half = Math.min(Math.PI, radiusKm / EARTH_KM) / 2;
    this.aMax = Math.sin(half) ** 2 * (1 + 1e-9) + 1e-15;
  }
  /** Distance in km when within the circle, otherwise -1. `cosLat` is Math.cos(la * RAD). */
  distance(la: number, lo: number, cosLat: number): number {
    const box = this.box;
    if (!(la >= box.latMin && la <= box.latMax)) return -1; // also NaN
    if (!box.allLng && !(box.lngMin <= box.lngMax ? lo >= box.lngMin && lo <= box.lngMax : lo >= box.lngMin || lo <= box.lngMax)) return -1;
    const s1 = Math.sin(((la - this.lat) * RAD) / 2);
    const s2 = Math.sin(((lo - this.lng) * RAD) / 2);
    const a = s1 * s1 + this.cos * cosLat * s2 * s2;
    if (a > this.aMax) return -1;
    const d = 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(a)));
    return d <= this.radiusKm ? d : -1;
  }
  /** The same without a precomputed cosine. */
  distanceOf(la: number, lo: number): number {
    const box = this.box;
    if (!(la >= box.latMin && la <= box.latMax)) return -1;
    return this.distance(la, lo, Math.cos(la * RAD));
  }
}

/** At most this many cached bitsets (least recently used go first). */
const BITSET_CACHE = 384;
const DEADLINE_EVERY = 2048;

class Index implements SearchIndex {
  readonly size: number;
  /** dense id by position, position by dense id */
  private readonly denseAt: Int32Array;
  private readonly posOfDense: Int32Array;
  private readonly seqAt: Int32Array;
  /** 0-based index in the given order, by position (strictly ascending). */
  private readonly orderIdxAt: Int32Array;
  private readonly denseOfSeq: Int32Array | Map<number, number>;
  private readonly termOff: Int32Array;
  private readonly post: Int32Array;
  private readonly bitsCache = new Map<number, Uint32Array>();
  /** Point and hours by position. */
  private readonly rec: RecordData;
  /** See hourBitsets. */
  private readonly hourBits: Uint32Array;
  /** The geo grid, made on the first search that needs it (a small index may never). */
  private gridMade: GeoGrid | null = null;
  /** The order given, and the order index of each listing it lacked, by position (extendedOrder). */
  private readonly order: Int32Array;

  constructor(
    private readonly core: Core,
    order: Int32Array,
    /** A fresh build (each record's terms, data by dense id), the index being reordered, or one read from a snapshot already laid out in `order`. */
    source: { terms: RecordTerms; data: RecordData } | { prev: Index } | { laid: LaidOut },
    private readonly tuning: SearchTuning,
  ) {
    const seqs = core.seqs;
    const n = seqs.length;
    this.size = n;
    this.order = order;
    let maxSeq = 0;
    let negative = false;
    for (let d = 0; d < n; d++) {
      if (seqs[d]! < 0) negative = true;
      else if (seqs[d]! > maxSeq) maxSeq = seqs[d]!;
    }
    if (!negative && maxSeq <= 4 * n + 4096) {
      const a = new Int32Array(maxSeq + 1).fill(-1);
      for (let d = 0; d < n; d++) a[seqs[d]!] = d;
      this.denseOfSeq = a;
    } else {
      const m = new Map<number, number>();
      for (let d = 0; d < n; d++) m.set(seqs[d]!, d);
      this.denseOfSeq = m;
    }

    // positions: the order first (unknown seqs and repeats skipped), then listings it lacks, by seq
    const denseAt = new Int32Array(n);
    const orderIdxAt = new Int32Array(n);
    const posOfDense = new Int32Array(n).fill(-1);
    let p = 0;
    for (let i = 0; i < order.length; i++) {
      const d = this.denseOf(order[i]!);
      if (d < 0 || posOfDense[d]! >= 0) continue;
      posOfDense[d] = p;
      denseAt[p] = d;
      orderIdxAt[p] = i;
      p++;
    }
    if (p < n) {
      const rest: number[] = [];
      for (let d = 0; d < n; d++) if (posOfDense[d]! < 0) rest.push(d);
      rest.sort((a, b) => seqs[a]! - seqs[b]!);
      let extra = order.length;
      for (const d of rest) {
        posOfDense[d] = p;
        denseAt[p] = d;
        orderIdxAt[p] = extra++;
        p++;
      }
    }
    this.denseAt = denseAt;
    this.posOfDense = posOfDense;
    this.orderIdxAt = orderIdxAt;
    this.seqAt = new Int32Array(n);
    for (let q = 0; q < n; q++) this.seqAt[q] = seqs[denseAt[q]!]!;

    if ('laid' in source) {
      this.termOff = source.laid.termOff;
      this.post = source.laid.post;
      this.rec = source.laid.rec;
    } else if ('prev' in source) {
      const prev = source.prev;
      this.termOff = prev.termOff; // same terms, same lengths
      this.post = relayPostings(prev.post, prev.termOff, prev.denseAt, posOfDense, tuning.bitsetShare);
      const srcOf = new Int32Array(n);
      for (let q = 0; q < n; q++) srcOf[q] = prev.posOfDense[denseAt[q]!]!;
      this.rec = permuteRecordData(prev.rec, srcOf);
    } else {
      const laid = layPostings(core.termCount, source.terms, denseAt);
      this.termOff = laid.off;
      this.post = laid.post;
      // per-listing data by position, so a scan in rank order reads memory in order
      this.rec = permuteRecordData(source.data, denseAt);
    }
    const rec = this.rec;
    const off = this.termOff;
    this.hourBits = hourBitsets(rec, n);

    for (const ns of WARM) {
      for (const t of core.facets[ns].values()) {
        const len = off[t + 1]! - off[t]!;
        if (len > 0 && len * tuning.bitsetShare >= n) this.bitsOf(t);
      }
    }
    // the geo grid of a large index is made now, so no search waits for it
    if (n >= 4096) this.grid();
  }

  private grid(): GeoGrid {
    if (this.gridMade) return this.gridMade;
    const rec = this.rec;
    const n = this.size;
    const cells = GRID_ROWS * GRID_COLS;
    const cellOff = new Int32Array(cells + 1);
    const cellOfPos = new Int32Array(n).fill(-1);
    let withGeo = 0;
    for (let q = 0; q < n; q++) {
      const la = rec.lat[q]!;
      if (Number.isNaN(la)) continue;
      const c = gridRow(la) * GRID_COLS + gridCol(rec.lng[q]!);
      cellOfPos[q] = c;
      cellOff[c + 1]!++;
      withGeo++;
    }
    for (let c = 0; c < cells; c++) cellOff[c + 1]! += cellOff[c]!;
    const cellFill = cellOff.slice(0, cells);
    const cellPos = new Int32Array(withGeo);
    const cellLat = new Float64Array(withGeo);
    const cellLng = new Float64Array(withGeo);
    const cellCos = new Float64Array(withGeo);
    for (let q = 0; q < n; q++) {
      const c = cellOfPos[q]!;
      if (c < 0) continue;
      const i = cellFill[c]!++;
      cellPos[i] = q;
      cellLat[i] = rec.lat[q]!;
      cellLng[i] = rec.lng[q]!;
      cellCos[i] = Math.cos(rec.lat[q]! * RAD);
    }
    this.gridMade = { cellOff, cellPos, cellLat, cellLng, cellCos };
    return this.gridMade;
  }

  private denseOf(seq: number): number {
    const m = this.denseOfSeq;
    if (m instanceof Map) return m.get(seq) ?? -1;
    return seq >= 0 && seq < m.length ? m[seq]! : -1;
  }

  get(seq: number): ListingRecord | undefined {
    const d = this.denseOf(seq);
    return d < 0 ? undefined : (this.core.records?.[d] ?? undefined);
  }

  rankPosOf(seq: number): number | null {
    const d = this.denseOf(seq);
    return d < 0 ? null : this.orderIdxAt[this.posOfDense[d]!]! + 1;
  }

  withOrder(order: Int32Array): SearchIndex {
    return new Index(this.core, order, { prev: this }, this.tuning);
  }

  /** See indexParts (the one place that lists what a snapshot holds). */
  static partsOf(index: Index): IndexParts {
    const { core, rec } = index;
    const words = core.words.parts();
    return {
      arrays: {
        seqs: core.seqs,
        order: index.order,
        termOff: index.termOff,
        post: index.post,
        lat: rec.lat,
        lng: rec.lng,
        zoneOf: rec.zoneOf,
        hrOff: rec.hrOff,
        hr: rec.hr,
        clOff: rec.clOff,
        cl: rec.cl,
        // pings move after the build (notePing): the snapshot takes them as they are now
        ping: rec.ping.slice(),
        wordSlots: words.slots,
        wordSlotHash: words.slotHash,
        wordIds: words.ids,
      },
      values: { termCount: core.termCount, zones: core.zones, words: words.keys, facets: NAMESPACES.map((ns) => [...core.facets[ns]]) },
    };
  }

  /** See indexFromParts. */
  static fromParts(parts: IndexParts): Index {
    const a = parts.arrays;
    const v = parts.values as { termCount: number; zones: string[]; words: string[]; facets: [string, number][][] };
    const i32 = (name: string): Int32Array => {
      const x = a[name];
      if (!(x instanceof Int32Array)) throw new Error(`snapshot: ${name} missing`);
      return x;
    };
    const f64 = (name: string): Float64Array => {
      const x = a[name];
      if (!(x instanceof Float64Array)) throw new Error(`snapshot: ${name} missing`);
      return x;
    };
    if (!Array.isArray(v.facets) || v.facets.length !== NAMESPACES.length || !Array.isArray(v.zones) || !Array.isArray(v.words) || !Number.isInteger(v.termCount)) throw new Error('snapshot: values missing');
    const facets = Object.fromEntries(NAMESPACES.map((ns, i) => [ns, new Map(v.facets[i])])) as Record<Namespace, Map<string, number>>;
    const words = TermTable.fromParts({ keys: v.words, ids: i32('wordIds'), slots: i32('wordSlots'), slotHash: i32('wordSlotHash') });
    const core: Core = { records: null, seqs: i32('seqs'), words, facets, termCount: v.termCount, zones: v.zones };
    const rec: RecordData = { lat: f64('lat'), lng: f64('lng'), zoneOf: i32('zoneOf'), hrOff: i32('hrOff'), hr: i32('hr'), clOff: i32('clOff'), cl: i32('cl'), ping: f64('ping') };
    const n = core.seqs.length;
    const termOff = i32('termOff');
    if (termOff.length !== v.termCount + 1 || rec.lat.length !== n || rec.hrOff.length !== n + 1 || rec.clOff.length !== n + 1 || rec.ping.length !== n) throw new Error('snapshot: sizes disagree');
    return new Index(core, i32('order'), { laid: { termOff, post: i32('post'), rec } }, DEFAULT_TUNING);
  }

  notePing(seq: number, atMs: number): void {
    const d = this.denseOf(seq);
    if (d < 0) return;
    const pos = this.posOfDense[d]!;
    const ping = this.rec.ping;
    // NaN: no live own inbox, so no door of it to keep live
    if (!Number.isNaN(ping[pos]!) && !(ping[pos]! >= atMs)) ping[pos] = atMs;
  }

  excluding(seqs: Iterable<number>): Exclusion {
    const out: number[] = [];
    for (const seq of seqs) {
      const d = this.denseOf(seq);
      if (d >= 0) out.push(this.posOfDense[d]!);
    }
    return new ExcludedPositions(this, Int32Array.from(new Set(out)).sort());
  }

  extendedOrder(): Int32Array {
    const n = this.size;
    const base = this.order.length;
    let extras = 0;
    for (let q = 0; q < n; q++) if (this.orderIdxAt[q]! >= base) extras++;
    if (extras === 0) return this.order;
    const out = new Int32Array(base + extras);
    out.set(this.order);
    for (let q = 0; q < n; q++) {
      const i = this.orderIdxAt[q]!;
      if (i >= base) out[i] = this.seqAt[q]!;
    }
    return out;
  }

  stats(): SearchIndexStats {
    const r = this.rec;
    const arrays = [
      this.denseAt,
      this.posOfDense,
      this.seqAt,
      this.orderIdxAt,
      this.termOff,
      this.post,
      ...(this.gridMade ? Object.values(this.gridMade) : []),
      r.lat,
      r.lng,
      r.ping,
      r.zoneOf,
      this.hourBits,
      r.hrOff,
      r.hr,
      r.clOff,
      r.cl,
      ...this.bitsCache.values(),
    ];
    let typedBytes = 0;
    for (const a of arrays) typedBytes += a.byteLength;
    if (!(this.denseOfSeq instanceof Map)) typedBytes += this.denseOfSeq.byteLength;
    let withHours = 0;
    for (let q = 0; q < this.size; q++) if (r.zoneOf[q]! >= 0) withHours++;
    return {
      listings: this.size,
      terms: this.core.termCount,
      postings: this.post.length,
      withHours,
      withGeo: this.grid().cellPos.length,
      zones: this.core.zones.length,
      cachedBitsets: this.bitsCache.size,
      typedBytes,
    };
  }

  /* -------------------------------------------------------------------------------------------- */

  private list(t: number): Int32Array {
    return this.post.subarray(this.termOff[t]!, this.termOff[t + 1]!);
  }

  private bitsOf(t: number): Uint32Array {
    let b = this.bitsCache.get(t);
    if (b) {
      this.bitsCache.delete(t);
      this.bitsCache.set(t, b);
      return b;
    }
    b = bitsetOf(this.list(t), this.size);
    this.bitsCache.set(t, b);
    if (this.bitsCache.size > BITSET_CACHE) {
      const oldest = this.bitsCache.keys().next().value;
      if (oldest !== undefined) this.bitsCache.delete(oldest);
    }
    return b;
  }

  /** A clause over term t; null when the term is unknown or empty (matches nothing). */
  private termClause(t: number | undefined): ListClause | null {
    if (t === undefined) return null;
    const list = this.list(t);
    if (list.length === 0) return null;
    const big = list.length * this.tuning.bitsetShare >= this.size;
    return new ListClause(list, this.size, big ? this.bitsOf(t) : null, () => this.bitsOf(t));
  }

  private facet(ns: Namespace, value: string): ListClause | null {
    return this.termClause(this.core.facets[ns].get(value));
  }

  private anyOf(ns: Namespace, values: readonly string[]): Clause | null {
    const members: Clause[] = [];
    for (const v of new Set(values)) {
      const c = this.facet(ns, v);
      if (c) members.push(c);
    }
    if (members.length === 0) return null;
    return members.length === 1 ? members[0]! : new UnionClause(members);
  }

  /**
   * Any of these values of a door facet (door, acc, req, lvl): from the listing's doors, or from a
   * member's own inbox while it answers (`answering` null: always).
   */
  private doorFacet(ns: 'door' | 'acc' | 'req' | 'lvl', values: readonly string[], answering: ((pos: number) => boolean) | null): Clause | null {
    const base = this.anyOf(ns, values);
    const own = this.anyOf(`m${ns}`, values);
    if (!own) return base;
    const live = answering ? new TestedClause(own, answering) : own;
    return base ? new UnionClause([base, live]) : live;
  }

  /** Positions of software_and_ai listings whose name holds every word. */
  private nameException(words: string[]): Clause | null {
    if (words.length === 0) return null;
    const lists: Int32Array[] = [];
    for (const w of words) {
      const t = this.core.facets.n.get(w);
      if (t === undefined) return null;
      lists.push(this.list(t));
    }
    lists.sort((a, b) => a.length - b.length);
    const [first, ...rest] = lists;
    const others = rest.map((l) => new ListClause(l, this.size));
    const out: number[] = [];
    for (const p of first!) if (others.every((c) => c.has(p))) out.push(p);
    return out.length ? new ListClause(Int32Array.from(out), this.size) : null;
  }

  search(query: SearchQuery): SearchPage {
    const deadline = query.deadlineMs ?? Infinity;
    if (performance.now() > deadline) throw new SearchTimeout();
    const limit = Math.max(1, Math.min(query.anyLimit ? Number.MAX_SAFE_INTEGER : 100, Math.floor(query.limit) || 1));
    const empty: SearchPage = { hits: [], next: null };
    const n = this.size;
    const clauses: Clause[] = [];
    const need = (c: Clause | null): boolean => {
      if (!c) return false;
      clauses.push(c);
      return true;
    };

    // q: every word
    const words = [...new Set(query.words.flatMap((w) => foldWords(w)))];
    for (const w of words) if (!need(this.termClause(this.core.words.get(w)))) return empty;

    // kinds (with the name exception for software_and_ai)
    const kinds = [...new Set(query.kinds)];
    if (!KINDS.every((k) => kinds.includes(k))) {
      const members: Clause[] = [];
      for (const k of kinds) {
        const c = this.facet('kind', k);
        if (c) members.push(c);
      }
      if (query.softwareNameException && !kinds.includes('software_and_ai')) {
        const ex = this.nameException(words);
        if (ex) members.push(ex);
      }
      if (members.length === 0) return empty;
      clauses.push(members.length === 1 ? members[0]! : new UnionClause(members));
    }

    if (query.categoryKeys && !need(this.anyOf('cat', query.categoryKeys))) return empty;
    if (query.tag !== undefined && !need(this.facet('tag', tagKey(query.tag)))) return empty;
    if (query.itemType && !need(this.facet('it', query.itemType))) return empty;
    if (query.language && !need(this.facet('lang', foldText(query.language).replace(/_/g, '-')))) return empty;
    if (query.country && !need(this.facet('cc', query.country.toUpperCase()))) return empty;
    for (const a of query.attributes ?? []) {
      if (!need(this.facet('a', a.value === undefined ? a.key : a.key + '=' + a.value.toLowerCase()))) return empty;
    }
    if (query.priceBand) {
      const [lo, hi] = query.priceBand;
      const bands: string[] = [];
      for (let b = Math.max(1, Math.ceil(lo)); b <= Math.min(4, Math.floor(hi)); b++) bands.push(String(b));
      if (!need(this.anyOf('price', bands))) return empty;
    }
    // what a live door gives: a member's own inbox only while the member answers (its last ping)
    const since = query.answeringSince;
    const ping = this.rec.ping;
    const answering = since === undefined ? null : (pos: number): boolean => ping[pos]! >= since;
    for (const a of new Set(query.accepts ?? [])) if (!need(this.doorFacet('acc', [a.toLowerCase()], answering))) return empty;
    if (query.requestable && !need(this.doorFacet('req', [query.requestable], answering))) return empty;
    if (query.doorTypes && !need(this.doorFacet('door', query.doorTypes.map((t) => t.toLowerCase()), answering))) return empty;
    if (query.minLevel !== undefined && query.minLevel > 0) {
      const levels: string[] = [];
      for (let r = Math.ceil(query.minLevel); r <= 4; r++) levels.push(String(r));
      if (!need(this.doorFacet('lvl', levels, answering))) return empty;
    }
    if (query.hasInbox === true && !need(this.doorFacet('door', ['inbox'], answering))) return empty;
    if (query.hasInbox === false) {
      const inbox = this.doorFacet('door', ['inbox'], answering);
      if (inbox) clauses.push(new NotClause(inbox, n));
    }
    if (query.sources && !need(this.anyOf('src', query.sources))) return empty;
    const excluded = query.exclude;
    if (excluded instanceof ExcludedPositions && excluded.owner === this && excluded.positions.length > 0) {
      clauses.push(new NotClause(new ListClause(excluded.positions, n), n));
    }

    clauses.sort((a, b) => a.size - b.size);
    if (query.order === 'nearest') {
      if (!query.near) throw new TypeError('order=nearest needs near');
      return this.nearest(query, clauses, query.near, limit, deadline);
    }
    return this.ranked(query, clauses, limit, deadline);
  }

  /** The open-at test for this query; null when there is none. */
  private openTest(instant: number | undefined): ((pos: number) => boolean) | null {
    if (instant === undefined) return null;
    const zones = this.core.zones;
    const { zoneOf, hrOff, hr, clOff, cl } = this.rec;
    const hourBits = this.hourBits;
    const W = wordCount(this.size);
    const zWeek = new Int32Array(zones.length).fill(-2);
    const zToday = new Int32Array(zones.length);
    const zYesterday = new Int32Array(zones.length);
    return (pos: number): boolean => {
      const z = zoneOf[pos]!;
      if (z < 0) return false;
      let wm = zWeek[z]!;
      if (wm === -2) {
        const now = zoneNow(zones[z]!, instant);
        wm = now ? now.weekMinute : -1;
        zWeek[z] = wm;
        if (now) {
          zToday[z] = now.today;
          zYesterday[z] = now.yesterday;
        }
      }
      if (wm < 0) return false;
      const hour = (wm / 60) | 0;
      if (((hourBits[hour * W + (pos >>> 5)]! >>> (pos & 31)) & 1) === 0) return false;
      return openInRanges(hr, hrOff[pos]!, hrOff[pos + 1]!, cl, clOff[pos]!, clOff[pos + 1]!, wm, zToday[z]!, zYesterday[z]!);
    };
  }

  /** How many listings with a point lie in the grid cells of a box. */
  private boxCount(box: GeoBox): number {
    let count = 0;
    const { cellOff } = this.grid();
    for (const [r, a, b] of boxCellRuns(box)) count += cellOff[r * GRID_COLS + b + 1]! - cellOff[r * GRID_COLS + a]!;
    return count;
  }

  /** Estimated share of listings that pass every clause (as if independent). */
  private share(clauses: Clause[], skipFirst: boolean): number {
    let f = 1;
    for (let i = skipFirst ? 1 : 0; i < clauses.length; i++) f *= Math.min(1, clauses[i]!.size / Math.max(1, this.size));
    return f;
  }

  private ranked(query: SearchQuery, clauses: Clause[], limit: number, deadline: number): SearchPage {
    const n = this.size;
    const after = Math.floor(query.after);
    // first position whose order index is > after
    const start = after < 0 ? 0 : lowerBound(this.orderIdxAt, after + 1);
    if (start >= n) return { hits: [], next: null };

    const open = this.openTest(query.openAt);
    const report = this.reportTest(query, open);
    const want = limit + 1;
    const circle = query.near ? new Circle(query.near.lat, query.near.lng, query.near.radiusKm) : null;
    if (circle) {
      // gather the circle as a candidate list when that is cheaper than testing candidates one by one
      const inBox = this.boxCount(circle.box);
      const driverSize = clauses.length ? clauses[0]!.size : n - start;
      const perCandidate = this.share(clauses, true) * (inBox / Math.max(1, n)) * (open ? 0.5 : 1);
      const scanCost = Math.min(driverSize, want / Math.max(perCandidate, 1e-12));
      const how = this.tuning.circleList;
      if (how === 'always' || (how === 'auto' && inBox * 2 < scanCost)) {
        clauses.unshift(this.circleList(circle, start, deadline));
        clauses.sort((a, b) => a.size - b.size);
      }
    }

    const hits: number[] = [];
    const dists: number[] = [];
    const { lat, lng } = this.rec;
    const test = (p: number): boolean => {
      let dist = -1;
      if (circle) {
        dist = circle.distanceOf(lat[p]!, lng[p]!);
        if (dist < 0) return false;
      }
      if (open && !open(p)) return false;
      hits.push(p);
      dists.push(dist);
      return hits.length >= want;
    };

    if (clauses.length === 0) clauses.push(new AllClause(n));
    const driver = clauses[0]!;
    const others = clauses.slice(1);
    let ticks = 0;

    if (driver.size * this.tuning.denseShare < n) {
      // drive from the smallest clause, probe the others
      for (let p = driver.seek(start); p !== END; p = driver.seek(p + 1)) {
        if (++ticks === DEADLINE_EVERY) {
          ticks = 0;
          if (performance.now() > deadline) throw new SearchTimeout();
        }
        let ok = true;
        for (let i = 0; i < others.length; i++) {
          if (!others[i]!.has(p)) {
            ok = false;
            break;
          }
        }
        if (ok && test(p)) break;
      }
    } else {
      // every clause is big: AND them 32 positions at a time
      const W = wordCount(n);
      const w0 = start >>> 5;
      let stop = false;
      for (let w = w0; w < W && !stop; w++) {
        if (++ticks === DEADLINE_EVERY >>> 5) {
          ticks = 0;
          if (performance.now() > deadline) throw new SearchTimeout();
        }
        let x = driver.word(w);
        if (w === w0) x &= ~((1 << (start & 31)) - 1);
        for (let i = 0; i < others.length && x !== 0; i++) x &= others[i]!.word(w);
        while (x !== 0) {
          const low = x & -x;
          x ^= low;
          if (test((w << 5) | (31 - Math.clz32(low)))) {
            stop = true;
            break;
          }
        }
      }
    }

    const more = hits.length > limit;
    const page = more ? hits.slice(0, limit) : hits;
    return {
      hits: page.map((p, i) => this.hit(p, circle ? dists[i]! : -1, report)),
      next: more ? this.orderIdxAt[page[page.length - 1]!]! : null,
    };
  }

  private hit(pos: number, dist: number, report: ((pos: number) => boolean) | null): SearchHit {
    const h: SearchHit = { seq: this.seqAt[pos]!, rankPos: this.orderIdxAt[pos]! + 1 };
    if (dist >= 0) h.distanceKm = dist;
    if (report) h.openNow = this.rec.zoneOf[pos]! < 0 ? null : report(pos);
    return h;
  }

  /** The open test that reports each hit's `open_now`: the filter's own when it asks about the same instant. */
  private reportTest(query: SearchQuery, open: ((pos: number) => boolean) | null): ((pos: number) => boolean) | null {
    if (query.reportOpenAt === undefined) return null;
    return open && query.openAt === query.reportOpenAt ? open : this.openTest(query.reportOpenAt);
  }

  /** Positions >= start within the circle, ascending, as a clause. */
  private circleList(circle: Circle, start: number, deadline: number): Clause {
    const out = new IntBuf(256);
    const { cellOff, cellPos, cellLat, cellLng, cellCos } = this.grid();
    for (const [r, a, b] of boxCellRuns(circle.box)) {
      if (performance.now() > deadline) throw new SearchTimeout();
      for (let i = cellOff[r * GRID_COLS + a]!, e = cellOff[r * GRID_COLS + b + 1]!; i < e; i++) {
        const p = cellPos[i]!;
        if (p >= start && circle.distance(cellLat[i]!, cellLng[i]!, cellCos[i]!) >= 0) out.push(p);
      }
    }
    return new ListClause(out.trimmed().sort(), this.size);
  }

  /** The largest distance from the circle's centre to a point of grid cell (row, col): at a corner. */
  private cellReach(circle: Circle, row: number, col: number): number {
    const la0 = -90 + row * CELL_DEG;
    const lo0 = -180 + col * CELL_DEG;
    return Math.max(
      haversineKm(circle.lat, circle.lng, la0, lo0),
      haversineKm(circle.lat, circle.lng, la0 + CELL_DEG, lo0),
      haversineKm(circle.lat, circle.lng, la0, lo0 + CELL_DEG),
      haversineKm(circle.lat, circle.lng, la0 + CELL_DEG, lo0 + CELL_DEG),
    );
  }

  private nearest(query: SearchQuery, clauses: Clause[], near: { lat: number; lng: number; radiusKm: number }, limit: number, deadline: number): SearchPage {
    const offset = Math.max(0, Math.floor(query.after));
    const want = offset + limit + 1;
    const open = this.openTest(query.openAt);
    const report = this.reportTest(query, open);
    const full = new Circle(near.lat, near.lng, near.radiusKm);
    const inRadius = this.boxCount(full.box);
    let ticks = 0;
    const tick = (): void => {
      if (++ticks === DEADLINE_EVERY) {
        ticks = 0;
        if (performance.now() > deadline) throw new SearchTimeout();
      }
    };
    const pass = (p: number, from: number): boolean => {
      for (let i = from; i < clauses.length; i++) if (!clauses[i]!.has(p)) return false;
      return !open || open(p);
    };

    const pos = new IntBuf(256);
    const dist: number[] = [];
    const share = this.share(clauses, false) * (open ? 0.5 : 1);
    const ringCost = Math.min(inRadius, (2 * want) / Math.max(share, 1e-12));
    const driver = clauses[0];
    const by = this.tuning.nearestBy;
    if (driver && (by === 'clause' || (by === 'auto' && driver.size < ringCost))) {
      // the smallest clause is cheaper to walk whole than the circle
      const { lat, lng } = this.rec;
      for (let p = driver.seek(0); p !== END; p = driver.seek(p + 1)) {
        tick();
        const d = full.distanceOf(lat[p]!, lng[p]!);
        if (d < 0 || !pass(p, 1)) continue;
        pos.push(p);
        dist.push(d);
      }
    } else {
      // grow a circle until it holds enough matches or reaches the radius; each round reads only
      // the cells the previous round did not cover whole, and keeps only points beyond it
      const { cellOff, cellPos, cellLat, cellLng, cellCos } = this.grid();
      let r = inRadius <= this.tuning.oneRoundBelow ? near.radiusKm : Math.min(near.radiusKm, this.tuning.firstRadiusKm);
      let covered = -1;
      for (;;) {
        const circle = r >= near.radiusKm ? full : new Circle(near.lat, near.lng, r);
        for (const [row, a, b] of boxCellRuns(circle.box)) {
          for (let c = a; c <= b; c++) {
            const cell = row * GRID_COLS + c;
            const from = cellOff[cell]!;
            const to = cellOff[cell + 1]!;
            if (from === to) continue;
            if (covered > 0 && this.cellReach(circle, row, c) < covered) continue;
            for (let i = from; i < to; i++) {
              tick();
              const d = circle.distance(cellLat[i]!, cellLng[i]!, cellCos[i]!);
              if (d < 0 || d <= covered) continue;
              const p = cellPos[i]!;
              if (!pass(p, 0)) continue;
              pos.push(p);
              dist.push(d);
            }
          }
        }
        if (pos.n >= want || r >= near.radiusKm) break;
        covered = r;
        const grow = pos.n > 0 ? Math.sqrt(want / pos.n) * 1.25 : 4;
        r = Math.min(near.radiusKm, r * Math.max(1.5, grow));
      }
    }

    // the `want` nearest, by distance then position
    const count = pos.n;
    let idx: number[] = [];
    if (count > want * 2) {
      const sorted = Float64Array.from(dist).sort();
      const cut = sorted[want - 1]!;
      for (let i = 0; i < count; i++) if (dist[i]! <= cut) idx.push(i);
    } else {
      idx = Array.from({ length: count }, (_, i) => i);
    }
    const pa = pos.a;
    idx.sort((x, y) => dist[x]! - dist[y]! || pa[x]! - pa[y]!);
    const page = idx.slice(offset, offset + limit);
    return {
      hits: page.map((i) => this.hit(pa[i]!, dist[i]!, report)),
      next: idx.length > offset + limit ? offset + limit : null,
    };
  }
}

/* ---------------------------------- snapshots (index-snapshot.ts) ---------------------------------- */

/** Postings and per-listing data already laid out by position (read from a snapshot). */
interface LaidOut {
  termOff: Int32Array;
  post: Int32Array;
  rec: RecordData;
}

/**
 * What an index is made of, for a snapshot: its typed arrays by name and the rest as JSON values
 * (index-snapshot.ts writes and reads them without knowing them). Index.partsOf / Index.fromParts
 * are the one place that names them: a change of the index's layout changes them and
 * SNAPSHOT_FORMAT. What the index derives at construction (positions, hour bitsets, grid, warm
 * bitsets) is not kept: the constructor makes it again (about a second for a million listings).
 */
export interface IndexParts {
  arrays: Record<string, Int32Array | Float64Array | Uint32Array | Uint8Array>;
  values: Record<string, unknown>;
}

/** The parts of an index this module built (a fresh build or a re-laid one). */
export function indexParts(index: SearchIndex): IndexParts {
  if (!(index instanceof Index)) throw new TypeError('not an index of search-index.ts');
  return Index.partsOf(index);
}

/** The index of these parts, laid out in the order it was laid out in; throws when they do not make one. */
export function indexFromParts(parts: IndexParts): SearchIndex {
  return Index.fromParts(parts);
}

/** Builds the search index of the listings in the given hourly order (delisted and dormant listings are left out). */
export function buildSearchIndex(input: SearchIndexInput): SearchIndex {
  const { core, terms, data } = buildCore(input);
  return new Index(core, input.order, { terms, data }, { ...DEFAULT_TUNING, ...input.tuning });
}

/** The same from listings read with waits between them (a database read in pages); the same index for the same listings. */
export async function buildSearchIndexFrom(input: BuildSettings & { listings: AsyncIterable<ListingRecord> }): Promise<SearchIndex> {
  const builder = coreBuilder(input);
  for await (const l of input.listings) builder.add(l);
  const { core, terms, data } = builder.finish();
  return new Index(core, input.order, { terms, data }, { ...DEFAULT_TUNING, ...input.tuning });
}
