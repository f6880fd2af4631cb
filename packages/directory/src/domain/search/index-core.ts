/**
 * What the search index knows of its listings apart from their order (search-index.ts): one pass
 * over the listings (streamed, one at a time) gives their words and facets as term ids, their
 * points, opening hours (each distinct hours once) and members' last pings, by dense id (the order
 * they came in); an order then lays them out by position (search-index.ts `Index.laidOut`).
 */
import { isOwnInbox } from '../listings/answering.js';
import { levelRank, shownGeo } from '../listings/listing.js';
import type { ListingRecord } from '../listings/listing.js';
import { wordCount } from './clauses.js';
import { compileClosures, compileWeekly } from './hours.js';
import { STEP_MASK } from '../stepwise.js';
import { TermTable } from './term-table.js';
import { foldText, indexWords, tagKey } from './text.js';

export class IntBuf {
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
export const NAMESPACES = ['cat', 'tag', 'n', 'kind', 'src', 'it', 'lang', 'cc', 'a', 'acc', 'req', 'door', 'lvl', 'price', 'mdoor', 'macc', 'mreq', 'mlvl'] as const;
export type Namespace = (typeof NAMESPACES)[number];
/** Facets whose bitsets are made with the index (almost every query uses them). */
export const WARM: readonly Namespace[] = ['kind', 'src', 'lvl', 'door'];

/** Everything that depends on the listings but not on their order. */
export interface Core {
  words: TermTable;
  facets: Record<Namespace, Map<string, number>>;
  termCount: number;
  zones: string[];
  /** The distinct opening hours of the listings (zone, weekly ranges and closures), which they share by id. */
  hours: HoursTable;
}

/**
 * Opening hours by id, each kept once however many listings publish them (most share a few common
 * weeks): its zone (index into Core.zones), its weekly ranges hr[hrOff[k], hrOff[k+1]) and its
 * closures cl[clOff[k], clOff[k+1]) (hours.ts compileWeekly / compileClosures).
 */
export interface HoursTable {
  zone: Int32Array;
  hrOff: Int32Array;
  hr: Int32Array;
  clOff: Int32Array;
  cl: Int32Array;
}

/** Term ids of each record, CSR by dense id (only while an order is laid out). */
export interface RecordTerms {
  recOff: Int32Array;
  recTerms: Int32Array;
}

/** What the per-listing tests read (point, hours, a member's last ping), laid out by dense id or by position. */
export interface RecordData {
  lat: Float64Array; // NaN: no point
  lng: Float64Array;
  /** The listing's hours in Core.hours; -1: none. */
  hoursOf: Int32Array;
  /** Members with a live own inbox, one bit each (the others have no ping to keep). */
  pingBits: Uint32Array;
  /** Set bits of pingBits before each word: entry w + the set bits below in word w is the listing's index in pingAt. */
  pingRank: Int32Array;
  /** Their last pings, in the order of their bits (-Infinity: none). */
  pingAt: Float64Array;
}

/** Population count of a 32-bit word. */
export function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Where entry i's last ping is kept in rec.pingAt; -1 when it has none to keep (not a member with a live own inbox). */
export function pingIndex(rec: RecordData, i: number): number {
  const w = i >>> 5;
  const word = rec.pingBits[w]!;
  const b = i & 31;
  if (((word >>> b) & 1) === 0) return -1;
  return rec.pingRank[w]! + bitCount(b === 0 ? 0 : word & ((1 << b) - 1) & 0xffffffff);
}

/** pingRank of a bitset. */
export function ranksOf(bits: Uint32Array): Int32Array {
  const rank = new Int32Array(bits.length);
  let c = 0;
  for (let w = 0; w < bits.length; w++) {
    rank[w] = c;
    c += bitCount(bits[w]!);
  }
  return rank;
}
/** `src` re-laid so that entry q is src's entry srcOf[q]. */
export function* permuteRecordData(src: RecordData, srcOf: Int32Array): Generator<void, RecordData> {
  const n = srcOf.length;
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  const hoursOf = new Int32Array(n);
  const pingBits = new Uint32Array(wordCount(n));
  const pingAt = new Float64Array(src.pingAt.length);
  let pings = 0;
  for (let q = 0; q < n; q++) {
    const s = srcOf[q]!;
    lat[q] = src.lat[s]!;
    lng[q] = src.lng[s]!;
    hoursOf[q] = src.hoursOf[s]!;
    const i = pingIndex(src, s);
    if (i >= 0) {
      pingBits[q >>> 5]! |= 1 << (q & 31);
      pingAt[pings++] = src.pingAt[i]!;
    }
    if ((q & STEP_MASK) === STEP_MASK) yield;
  }
  return { lat, lng, hoursOf, pingBits, pingRank: ranksOf(pingBits), pingAt };
}

export function notGone(l: ListingRecord): boolean {
  return l.delistedAt == null && l.dormantSince == null;
}

export class FloatBuf {
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

/** A build's listings by dense id (the order they came in): their seqs, records (null without keepRecords), terms and data. */
export interface Built {
  core: Core;
  seqs: Int32Array;
  records: ListingRecord[] | null;
  terms: RecordTerms;
  data: RecordData;
}

/** What the pass over the listings reads besides them (search-index.ts SearchIndexInput adds the order and the planner's knobs). */
export interface CoreSettings {
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
}

export interface CoreBuilder {
  /** Takes the next listing (in any order; one not shown, or seen before, is left out). */
  add(l: ListingRecord): void;
  finish(): Built;
}

/** One pass over the listings, one at a time (they may be streamed, with or without waiting; they are kept only with keepRecords). */
export function coreBuilder(input: CoreSettings): CoreBuilder {
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
  const pingBits = new IntBuf(1 << 11);
  const pingAt = new FloatBuf();
  const zones: string[] = [];
  const zoneIds = new Map<string, number>();
  const hoursOf = new IntBuf(1 << 16);
  // the distinct hours (zone, weekly ranges, closures), each once: by their text while building
  const hoursIds = new Map<string, number>();
  const hoursZone = new IntBuf(64);
  const hrOff = new IntBuf(64);
  const hr = new IntBuf(256);
  const clOff = new IntBuf(64);
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
    if ((cur & 31) === 0) pingBits.push(0);
    if (ownLive) {
      pingBits.a[cur >>> 5]! |= 1 << (cur & 31);
      pingAt.push(l.lastPingAt ?? -Infinity);
    }
    if (typeof l.priceBand === 'number' && Number.isInteger(l.priceBand)) addFacet(price, String(l.priceBand));

    // The published point (coarse for a business that shows no street): distances and radius read it.
    const g = shownGeo(l);
    const located = g && Number.isFinite(g.lat) && Number.isFinite(g.lng) && Math.abs(g.lat) <= 90 && Math.abs(g.lng) <= 180;
    lat.push(located ? g.lat : NaN);
    lng.push(located ? g.lng : NaN);

    const h = l.hours;
    if (h && typeof h.timezone === 'string') {
      let z = zoneIds.get(h.timezone);
      if (z === undefined) {
        z = zones.length;
        zones.push(h.timezone);
        zoneIds.set(h.timezone, z);
      }
      const weekly = compileWeekly(h.weekly);
      const closures = compileClosures(h.closures);
      const key = `${z}|${weekly.join(',')}|${closures.join(',')}`;
      let k = hoursIds.get(key);
      if (k === undefined) {
        k = hoursZone.n;
        hoursIds.set(key, k);
        hoursZone.push(z);
        hrOff.push(hr.n);
        for (const r of weekly) hr.push(r);
        clOff.push(cl.n);
        for (const c of closures) cl.push(c);
      }
      hoursOf.push(k);
    } else hoursOf.push(-1);
  };
  const finish = () => {
    recOff.push(recTerms.n);
    hrOff.push(hr.n);
    clOff.push(cl.n);
    const bits = Uint32Array.from(pingBits.a.subarray(0, pingBits.n));
    const hours: HoursTable = { zone: hoursZone.trimmed(), hrOff: hrOff.trimmed(), hr: hr.trimmed(), clOff: clOff.trimmed(), cl: cl.trimmed() };
    return {
      core: { words, facets, termCount, zones, hours },
      seqs: seqs.trimmed(),
      records: keep ? records : null,
      terms: { recOff: recOff.trimmed(), recTerms: recTerms.trimmed() },
      data: { lat: lat.trimmed(), lng: lng.trimmed(), hoursOf: hoursOf.trimmed(), pingBits: bits, pingRank: ranksOf(bits), pingAt: pingAt.trimmed() },
    };
  };
  return { add: addListing, finish };
}

export function buildCore(input: CoreSettings & { listings: Iterable<ListingRecord> }): Built {
  const builder = coreBuilder(input);
  for (const l of input.listings) builder.add(l);
  return builder.finish();
}

