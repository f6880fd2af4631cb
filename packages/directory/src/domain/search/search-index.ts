/**
 * The in-memory search index of GET /v1/businesses (directory spec §4).
 *
 * Positions: listings are numbered 0..n-1 in the hourly order (the precomputed Int32Array of seq
 * values), so "ascending position" is "the published order" and every filter only leaves listings
 * out. All posting lists hold positions, sorted, addressed by term id (see Postings: a list of at
 * least n/32 positions as a bitset, any other packed in 3 bytes a position), from two dictionaries
 * sharing the id space:
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
 * which opening hours) is laid out by position too, so scans read memory in order; each distinct
 * opening hours (zone, week, closures) is kept once, and a query computes each time zone's local
 * clock once and each distinct hours' answer once.
 *
 * Everything but the dictionaries is typed arrays (off the JS heap). `withOrder` lays the same
 * listings out in the next hour's order without reading them again.
 *
 * Beside this file: index-core.ts reads the listings into what does not depend on their order,
 * postings.ts lays the posting lists out (or moves them to another order), stepwise.ts runs that
 * work in steps while searches go on.
 */
import { KINDS } from '../listings/listing.js';
import type { ItemType, Kind, ListingRecord, Source } from '../listings/listing.js';
import { AllClause, BitsClause, END, ListClause, NotClause, PackedListClause, TestedClause, UnionClause, bitsetOf, lowerBound, positionsOf, wordCount } from './clauses.js';
import type { Clause } from './clauses.js';
import { CELL_DEG, GRID_COLS, GRID_ROWS, boxAround, boxCellRuns, gridCol, gridRow, haversineKm } from './geo.js';
import type { GeoBox } from './geo.js';
import { IntBuf, NAMESPACES, WARM, buildCore, coreBuilder, permuteRecordData, pingIndex, type Built, type Core, type CoreSettings, type HoursTable, type Namespace, type RecordData } from './index-core.js';
import { OpenAnswers } from './open-answers.js';
import { chunkCount, layPostings, listEnd, listStart, readList, relayPostings, type Postings } from './postings.js';
import { SLICE_MS, STEP_MASK, backgroundTurn, filledInSteps, runAtOnce, runInSteps } from '../stepwise.js';
import { TermTable } from './term-table.js';
import { foldText, foldWords, tagKey } from './text.js';

export interface SearchIndexInput extends CoreSettings {
  listings: Iterable<ListingRecord>;
  /** seq values in rank order (the hourly order). */
  order: Int32Array;
  /**
   * When `order` is a part of the hour's order (a small index's listings, SearchIndex.placesOf): the
   * place there of each entry, ascending. By default an entry's place is its index in `order`.
   */
  places?: Int32Array;
  /** With `places`: where the hour's order ends (the listings it lacks come after, by seq). */
  placesEnd?: number;
  /** Planner knobs; tests use them to force each path. */
  tuning?: Partial<SearchTuning>;
}

/** What a build reads besides the listings. */
type BuildSettings = Omit<SearchIndexInput, 'listings'>;

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
  /** The same, in steps (runInSteps), so the next hour's layout is made while searches go on. */
  relaidInSteps(order: Int32Array): Generator<void, SearchIndex>;
  /**
   * This layout given another order's places, when that order keeps every listing but `moved` in
   * the layout's sequence (the next hour's order prepared ahead, a few listings placed again at the
   * change): the moved ones are left for an exclusion and the small index. Null when it does not.
   */
  placedBy(order: Int32Array, moved: ReadonlySet<number>): SearchIndex | null;
  stats(): SearchIndexStats;
  /** Bytes held by each of the index's typed arrays, by field name (the dictionaries' strings are on the JS heap, not counted). */
  memory(): Record<string, number>;
  /** A member pinged: its own inbox counts as live until the window after `atMs` ends (no-op for others). */
  notePing(seq: number, atMs: number): void;
  /** An exclusion of these listings for `SearchQuery.exclude`. */
  excluding(seqs: Iterable<number>): Exclusion;
  /**
   * Those of these listings that the order the index places by (extended by the listings it lacked)
   * has, in its sequence, each with its place there, and where that extended order ends: the order
   * of a small index of them (SearchIndexInput.places), without going through the whole order.
   */
  placesOf(seqs: Iterable<number>): { order: Int32Array; places: Int32Array; end: number };
  /**
   * Makes the map of every listing's place that placesOf reads, in steps (run off the search path
   * once the index serves); until it is made, placesOf finds the places it is asked for in one pass
   * over the order.
   */
  placesInSteps(): Generator<void, void>;
}

export class SearchTimeout extends Error {
  constructor() {
    super('the search ran out of time');
    this.name = 'SearchTimeout';
  }
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


/** An index's arrays as laid out for one order (and, for the same positions, the bitsets and grid made for them). */
interface Layout {
  seqAt: Int32Array;
  posOfSeq: Int32Array | Map<number, number>;
  records: ListingRecord[] | null;
  orderIdxAt: Int32Array;
  postings: Postings;
  rec: RecordData;
  bitsCache?: Map<number, Uint32Array>;
  grid?: GeoGrid | null;
  places?: { bySeq: Int32Array; end: number };
  /** The bitsets and the grid are made by the caller, in steps (warmInSteps), not by the constructor. */
  warmLater?: boolean;
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

/** Entry by seq of a set of distinct seqs (-1: none): an array while the seqs are dense enough, else a map. */
function seqMap(seqs: Int32Array): Int32Array | Map<number, number> {
  return runAtOnce(seqMapInSteps(seqs));
}

function* seqMapInSteps(seqs: Int32Array): Generator<void, Int32Array | Map<number, number>> {
  const n = seqs.length;
  let maxSeq = 0;
  let negative = false;
  for (let d = 0; d < n; d++) {
    if (seqs[d]! < 0) negative = true;
    else if (seqs[d]! > maxSeq) maxSeq = seqs[d]!;
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  yield;
  if (!negative && maxSeq <= 4 * n + 4096) {
    const a = yield* filledInSteps(new Int32Array(maxSeq + 1), -1);
    for (let d = 0; d < n; d++) {
      a[seqs[d]!] = d;
      if ((d & STEP_MASK) === STEP_MASK) yield;
    }
    return a;
  }
  const m = new Map<number, number>();
  for (let d = 0; d < n; d++) {
    m.set(seqs[d]!, d);
    if ((d & STEP_MASK) === STEP_MASK) yield;
  }
  return m;
}

function positionIn(map: Int32Array | Map<number, number>, seq: number): number {
  if (map instanceof Map) return map.get(seq) ?? -1;
  return seq >= 0 && seq < map.length ? map[seq]! : -1;
}

/** At most this many cached bitsets (least recently used go first). */
const BITSET_CACHE = 64;
const DEADLINE_EVERY = 2048;

class Index implements SearchIndex {
  readonly size: number;
  /** The listing's seq by position. */
  private readonly seqAt: Int32Array;
  /** The position by seq (-1: none): an array while seqs are dense enough, else a map. */
  private readonly posOfSeq: Int32Array | Map<number, number>;
  /** The listings by position; null without keepRecords. */
  private readonly records: ListingRecord[] | null;
  /** 0-based index in the given order, by position (strictly ascending). */
  private readonly orderIdxAt: Int32Array;
  /** Posting lists by term (see Postings). */
  private readonly postings: Postings;
  /** The postings' chunks of 2^16 positions (chunkCount). */
  private readonly chunks: number;
  /** Bitsets of lists kept as positions, made for probing them (least recently used dropped first). */
  private readonly bitsCache: Map<number, Uint32Array> = new Map();
  /** The open-now answers of a search, in arrays kept from search to search (made at the first). */
  private openAnswers: OpenAnswers | null = null;
  /** Each seq's place in the order extended by the listings it lacked (-1: neither), and that order's length; made once per index. */
  private places: { bySeq: Int32Array; end: number } | null;
  /** Point, hours and last ping by position. */
  private readonly rec: RecordData;
  /** The geo grid, made on the first search that needs it (a small index may never). */
  private gridMade: GeoGrid | null = null;
  /** The order given, and the order index of each listing it lacked, by position (placesOf). */
  private readonly order: Int32Array;

  constructor(
    private readonly core: Core,
    order: Int32Array,
    laid: Layout,
    private readonly tuning: SearchTuning,
  ) {
    const n = laid.seqAt.length;
    this.size = n;
    this.order = order;
    this.seqAt = laid.seqAt;
    this.posOfSeq = laid.posOfSeq;
    this.records = laid.records;
    this.orderIdxAt = laid.orderIdxAt;
    this.postings = laid.postings;
    this.chunks = chunkCount(n);
    this.rec = laid.rec;
    this.places = laid.places ?? null;
    if (laid.bitsCache) {
      // the same positions: the bitsets made for them hold
      this.bitsCache = laid.bitsCache;
      this.gridMade = laid.grid ?? null;
      return;
    }
    if (!laid.warmLater) runAtOnce(this.warmInSteps());
  }

  /** Bitsets of the large facet lists and the geo grid of a large index, made before it serves, so no search waits for them. */
  *warmInSteps(): Generator<void, void> {
    const n = this.size;
    for (const ns of WARM) {
      for (const t of this.core.facets[ns].values()) {
        const len = this.termLength(t);
        if (len > 0 && len * this.tuning.bitsetShare >= n) {
          this.bitsOf(t);
          yield;
        }
      }
    }
    if (n >= 4096 && !this.gridMade) this.gridMade = yield* this.gridInSteps();
  }

  /**
   * Lays listings out in an order, in steps: a fresh build (each listing's terms and data by dense
   * id: the order they came in) or the index being reordered (whose positions are then the dense ids).
   */
  static *laidOut(core: Core, order: Int32Array, source: Built | { prev: Index }, tuning: SearchTuning, places?: { at: Int32Array; end: number }): Generator<void, Index> {
    const prev = 'prev' in source ? source.prev : null;
    const seqs = prev ? prev.seqAt : (source as Built).seqs;
    const n = seqs.length;
    // dense id by seq: the previous index's positions, or a map made now (and turned into positions below)
    const denseOfSeq = prev ? prev.posOfSeq : yield* seqMapInSteps(seqs);
    const denseOf = (seq: number): number => positionIn(denseOfSeq, seq);

    // positions: the order first (unknown seqs and repeats skipped), then listings it lacks, by seq
    const denseAt = new Int32Array(n);
    const orderIdxAt = new Int32Array(n);
    const posOfDense = yield* filledInSteps(new Int32Array(n), -1);
    let p = 0;
    for (let i = 0; i < order.length; i++) {
      if ((i & STEP_MASK) === STEP_MASK) yield;
      const d = denseOf(order[i]!);
      if (d < 0 || posOfDense[d]! >= 0) continue;
      posOfDense[d] = p;
      denseAt[p] = d;
      orderIdxAt[p] = places ? places.at[i]! : i;
      p++;
    }
    if (p < n) {
      const rest: number[] = [];
      for (let d = 0; d < n; d++) {
        if (posOfDense[d]! < 0) rest.push(d);
        if ((d & STEP_MASK) === STEP_MASK) yield;
      }
      rest.sort((a, b) => seqs[a]! - seqs[b]!);
      let extra = places ? places.end : order.length;
      for (const d of rest) {
        posOfDense[d] = p;
        denseAt[p] = d;
        orderIdxAt[p] = extra++;
        p++;
      }
    }
    yield;
    const seqAt = new Int32Array(n);
    for (let q = 0; q < n; q++) {
      seqAt[q] = seqs[denseAt[q]!]!;
      if ((q & STEP_MASK) === STEP_MASK) yield;
    }
    let posOfSeq: Int32Array | Map<number, number>;
    if (prev) {
      posOfSeq = yield* seqMapInSteps(seqAt);
    } else {
      // the map made above, now giving positions
      const bySeq = denseOfSeq;
      for (let q = 0; q < n; q++) {
        if (bySeq instanceof Map) bySeq.set(seqAt[q]!, q);
        else bySeq[seqAt[q]!] = q;
        if ((q & STEP_MASK) === STEP_MASK) yield;
      }
      posOfSeq = bySeq;
    }
    yield;
    const records = prev ? prev.records : (source as Built).records;
    const laidRecords = records ? Array.from(denseAt, (d) => records[d]!) : null;
    let postings: Postings;
    let rec: RecordData;
    if (prev) {
      postings = yield* relayPostings(prev.postings, posOfDense, tuning.bitsetShare);
      rec = yield* permuteRecordData(prev.rec, denseAt);
    } else {
      const built = source as Built;
      postings = yield* layPostings(core.termCount, built.terms, denseAt);
      // per-listing data by position, so a scan in rank order reads memory in order
      rec = yield* permuteRecordData(built.data, denseAt);
    }
    const index = new Index(core, order, { seqAt, posOfSeq, records: laidRecords, orderIdxAt, postings, rec, warmLater: true }, tuning);
    yield* index.warmInSteps();
    return index;
  }

  *relaidInSteps(order: Int32Array): Generator<void, SearchIndex> {
    return yield* Index.laidOut(this.core, order, { prev: this }, this.tuning);
  }

  placedBy(order: Int32Array, moved: ReadonlySet<number>): SearchIndex | null {
    const n = this.size;
    let movedTop = -1;
    for (const seq of moved) if (seq > movedTop) movedTop = seq;
    const isMoved = new Uint8Array(movedTop + 1);
    for (const seq of moved) if (seq >= 0) isMoved[seq] = 1;
    // The layout's listings come in the order's sequence (it was laid out in the order this one
    // amends): one pass over both, in memory order, finds each one's place. At 5 M a lookup of
    // every place by seq read memory at random, and took seconds on a busy machine.
    const orderIdxAt = new Int32Array(n);
    let last = -1;
    let i = 0;
    for (let q = 0; q < n; q++) {
      const seq = this.seqAt[q]!;
      if (seq >= 0 && seq <= movedTop && isMoved[seq] === 1) {
        // left out of every search (the live index's exclusion); the place before keeps the list ascending
        orderIdxAt[q] = last;
        continue;
      }
      while (i < order.length && order[i] !== seq) i++;
      // not in the order, or not in its sequence: this layout does not fit it
      if (i === order.length) return null;
      orderIdxAt[q] = last = i++;
    }
    // every listing of the layout is in the order (or moved, and so never asked for): no extras; the
    // places by seq (placesOf) are made when a small index first asks
    const same = { seqAt: this.seqAt, posOfSeq: this.posOfSeq, records: this.records, postings: this.postings, rec: this.rec };
    return new Index(this.core, order, { ...same, orderIdxAt, bitsCache: this.bitsCache, grid: this.gridMade }, this.tuning);
  }

  private grid(): GeoGrid {
    return (this.gridMade ??= runAtOnce(this.gridInSteps()));
  }

  private *gridInSteps(): Generator<void, GeoGrid> {
    const rec = this.rec;
    const n = this.size;
    const cells = GRID_ROWS * GRID_COLS;
    const cellOff = new Int32Array(cells + 1);
    const cellOfPos = yield* filledInSteps(new Int32Array(n), -1);
    let withGeo = 0;
    for (let q = 0; q < n; q++) {
      if ((q & STEP_MASK) === STEP_MASK) yield;
      const la = rec.lat[q]!;
      if (Number.isNaN(la)) continue;
      const c = gridRow(la) * GRID_COLS + gridCol(rec.lng[q]!);
      cellOfPos[q] = c;
      cellOff[c + 1]!++;
      withGeo++;
    }
    for (let c = 0; c < cells; c++) {
      cellOff[c + 1]! += cellOff[c]!;
      if ((c & STEP_MASK) === STEP_MASK) yield;
    }
    const cellFill = cellOff.slice(0, cells);
    // written below at each listing's cell, all over the arrays: their pages mapped first (filledInSteps)
    const cellPos = yield* filledInSteps(new Int32Array(withGeo), 0);
    const cellLat = yield* filledInSteps(new Float64Array(withGeo), 0);
    const cellLng = yield* filledInSteps(new Float64Array(withGeo), 0);
    const cellCos = yield* filledInSteps(new Float64Array(withGeo), 0);
    for (let q = 0; q < n; q++) {
      if ((q & STEP_MASK) === STEP_MASK) yield;
      const c = cellOfPos[q]!;
      if (c < 0) continue;
      const i = cellFill[c]!++;
      cellPos[i] = q;
      cellLat[i] = rec.lat[q]!;
      cellLng[i] = rec.lng[q]!;
      cellCos[i] = Math.cos(rec.lat[q]! * RAD);
    }
    return { cellOff, cellPos, cellLat, cellLng, cellCos };
  }

  private posOf(seq: number): number {
    return positionIn(this.posOfSeq, seq);
  }

  get(seq: number): ListingRecord | undefined {
    const q = this.posOf(seq);
    return q < 0 ? undefined : (this.records?.[q] ?? undefined);
  }

  rankPosOf(seq: number): number | null {
    const q = this.posOf(seq);
    return q < 0 ? null : this.orderIdxAt[q]! + 1;
  }

  withOrder(order: Int32Array): SearchIndex {
    return runAtOnce(this.relaidInSteps(order));
  }

  /** See indexParts (the one place that lists what a snapshot holds). */
  static partsOf(index: Index): IndexParts {
    const { core, rec, postings } = index;
    const words = core.words.parts();
    return {
      arrays: {
        seqAt: index.seqAt,
        orderIdxAt: index.orderIdxAt,
        order: index.order,
        chunkOff: postings.chunkOff,
        postLo: postings.postLo,
        bitSlot: postings.bitSlot,
        termBits: postings.termBits,
        bitSize: postings.bitSize,
        lat: rec.lat,
        lng: rec.lng,
        hoursOf: rec.hoursOf,
        pingBits: rec.pingBits,
        pingRank: rec.pingRank,
        // pings move after the build (notePing): the snapshot takes them as they are now
        pingAt: rec.pingAt.slice(),
        hoursZone: core.hours.zone,
        hoursHrOff: core.hours.hrOff,
        hoursHr: core.hours.hr,
        hoursClOff: core.hours.clOff,
        hoursCl: core.hours.cl,
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
    const typed = <T extends ArrayBufferView>(name: string, type: new (n: number) => T): T => {
      const x = a[name];
      if (!(x instanceof type)) throw new Error(`snapshot: ${name} missing`);
      return x;
    };
    const i32 = (name: string) => typed(name, Int32Array);
    if (!Array.isArray(v.facets) || v.facets.length !== NAMESPACES.length || !Array.isArray(v.zones) || !Array.isArray(v.words) || !Number.isInteger(v.termCount)) throw new Error('snapshot: values missing');
    const facets = Object.fromEntries(NAMESPACES.map((ns, i) => [ns, new Map(v.facets[i])])) as Record<Namespace, Map<string, number>>;
    const words = TermTable.fromParts({ keys: v.words, ids: i32('wordIds'), slots: i32('wordSlots'), slotHash: i32('wordSlotHash') });
    const hours: HoursTable = { zone: i32('hoursZone'), hrOff: i32('hoursHrOff'), hr: i32('hoursHr'), clOff: i32('hoursClOff'), cl: i32('hoursCl') };
    const core: Core = { words, facets, termCount: v.termCount, zones: v.zones, hours };
    const seqAt = i32('seqAt');
    const n = seqAt.length;
    const postings: Postings = { chunkOff: i32('chunkOff'), postLo: typed('postLo', Uint16Array), bitSlot: i32('bitSlot'), termBits: typed('termBits', Uint32Array), bitSize: i32('bitSize') };
    const rec: RecordData = { lat: typed('lat', Float64Array), lng: typed('lng', Float64Array), hoursOf: i32('hoursOf'), pingBits: typed('pingBits', Uint32Array), pingRank: i32('pingRank'), pingAt: typed('pingAt', Float64Array) };
    const orderIdxAt = i32('orderIdxAt');
    if (
      postings.chunkOff.length !== v.termCount * chunkCount(n) + 1 ||
      postings.chunkOff[postings.chunkOff.length - 1] !== postings.postLo.length ||
      orderIdxAt.length !== n ||
      rec.lat.length !== n ||
      rec.lng.length !== n ||
      rec.hoursOf.length !== n ||
      rec.pingBits.length !== wordCount(n)
    )
      throw new Error('snapshot: sizes disagree');
    return new Index(core, i32('order'), { seqAt, posOfSeq: seqMap(seqAt), records: null, orderIdxAt, postings, rec }, DEFAULT_TUNING);
  }

  notePing(seq: number, atMs: number): void {
    const q = this.posOf(seq);
    if (q < 0) return;
    // none kept: no live own inbox, so no door of it to keep live
    const i = pingIndex(this.rec, q);
    const pingAt = this.rec.pingAt;
    if (i >= 0 && !(pingAt[i]! >= atMs)) pingAt[i] = atMs;
  }

  excluding(seqs: Iterable<number>): Exclusion {
    const out: number[] = [];
    for (const seq of seqs) {
      const q = this.posOf(seq);
      if (q >= 0) out.push(q);
    }
    return new ExcludedPositions(this, Int32Array.from(new Set(out)).sort());
  }

  placesOf(asked: Iterable<number>): { order: Int32Array; places: Int32Array; end: number } {
    const seqs = [...asked];
    const found = this.places ? null : this.scanPlaces(seqs);
    const placeOf = (seq: number): number => (found ? (found.get(seq) ?? -1) : seq >= 0 && seq < this.places!.bySeq.length ? this.places!.bySeq[seq]! : -1);
    const known: number[] = [];
    for (const seq of seqs) if (placeOf(seq) >= 0) known.push(seq);
    known.sort((a, b) => placeOf(a) - placeOf(b));
    const order = Int32Array.from(known);
    const places = new Int32Array(order.length);
    for (let i = 0; i < known.length; i++) places[i] = placeOf(known[i]!);
    return { order, places, end: this.places ? this.places.end : this.order.length + this.extraCount() };
  }

  *placesInSteps(): Generator<void, void> {
    if (this.places) return;
    this.places = yield* this.extendedPlacesInSteps();
  }

  /** The places of a few listings without the map: one pass over the order (at 5 M a few ms, where the map takes hundreds). */
  private scanPlaces(seqs: readonly number[]): Map<number, number> {
    const found = new Map<number, number>();
    let top = -1;
    for (const seq of seqs) if (seq > top) top = seq;
    const wanted = new Uint8Array(top + 1);
    let left = 0;
    for (const seq of seqs) {
      if (seq >= 0 && wanted[seq] === 0) {
        wanted[seq] = 1;
        left++;
      }
    }
    const order = this.order;
    for (let i = 0; i < order.length && left > 0; i++) {
      const seq = order[i]!;
      if (seq >= 0 && seq <= top && wanted[seq] === 1) {
        wanted[seq] = 2;
        found.set(seq, i);
        left--;
      }
    }
    // listings the order lacks: placed after it, by the layout
    for (const seq of seqs) {
      if (seq < 0 || wanted[seq] !== 1) continue;
      const q = this.posOf(seq);
      if (q >= 0 && this.orderIdxAt[q]! >= order.length) found.set(seq, this.orderIdxAt[q]!);
    }
    return found;
  }

  /** How many of the layout's listings the order lacks (placed after it; orderIdxAt never falls). */
  private extraCount(): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.orderIdxAt[mid]! >= this.order.length) high = mid;
      else low = mid + 1;
    }
    return this.size - low;
  }

  private *extendedPlacesInSteps(): Generator<void, { bySeq: Int32Array; end: number }> {
    let top = -1;
    for (let i = 0; i < this.order.length; i++) {
      if (this.order[i]! > top) top = this.order[i]!;
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
    for (let q = 0; q < this.size; q++) {
      if (this.seqAt[q]! > top) top = this.seqAt[q]!;
      if ((q & STEP_MASK) === STEP_MASK) yield;
    }
    yield;
    const placeBySeq = yield* filledInSteps(new Int32Array(top + 1), -1);
    for (let i = 0; i < this.order.length; i++) {
      const seq = this.order[i]!;
      if (seq >= 0 && placeBySeq[seq] === -1) placeBySeq[seq] = i;
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
    let extras = 0;
    for (let q = 0; q < this.size; q++) {
      if ((q & STEP_MASK) === STEP_MASK) yield;
      if (this.orderIdxAt[q]! < this.order.length) continue;
      placeBySeq[this.seqAt[q]!] = this.orderIdxAt[q]!;
      extras++;
    }
    return { bySeq: placeBySeq, end: this.order.length + extras };
  }

  memory(): Record<string, number> {
    const out: Record<string, number> = {};
    const put = (name: string, a: ArrayBufferView | Map<number, number>): void => {
      out[name] = a instanceof Map ? 0 : a.byteLength;
    };
    put('seqAt', this.seqAt);
    put('orderIdxAt', this.orderIdxAt);
    put('posOfSeq', this.posOfSeq);
    for (const [name, a] of Object.entries(this.postings)) put(name, a as ArrayBufferView);
    for (const [name, a] of Object.entries(this.rec)) put(`rec.${name}`, a as ArrayBufferView);
    for (const [name, a] of Object.entries(this.core.hours)) put(`core.hours.${name}`, a as ArrayBufferView);
    if (this.gridMade) for (const [name, a] of Object.entries(this.gridMade)) put(`grid.${name}`, a as ArrayBufferView);
    let cached = 0;
    for (const b of this.bitsCache.values()) cached += b.byteLength;
    out.bitsCache = cached;
    out.openAnswers = this.openAnswers?.byteLength ?? 0;
    out['words (TermTable slots)'] = this.core.words.byteLength;
    out.order = this.order.byteLength;
    return out;
  }

  stats(): SearchIndexStats {
    const r = this.rec;
    const arrays: ArrayBufferView[] = [
      this.seqAt,
      this.orderIdxAt,
      ...Object.values(this.postings),
      ...(this.gridMade ? Object.values(this.gridMade) : []),
      ...Object.values(r),
      ...Object.values(this.core.hours),
      ...this.bitsCache.values(),
    ];
    let typedBytes = 0;
    for (const a of arrays) typedBytes += a.byteLength;
    if (!(this.posOfSeq instanceof Map)) typedBytes += this.posOfSeq.byteLength;
    typedBytes += this.openAnswers?.byteLength ?? 0;
    let withHours = 0;
    for (let q = 0; q < this.size; q++) if (r.hoursOf[q]! >= 0) withHours++;
    let postings = this.postings.postLo.length;
    for (const size of this.postings.bitSize) postings += size;
    return {
      listings: this.size,
      terms: this.core.termCount,
      postings,
      withHours,
      withGeo: this.grid().cellPos.length,
      zones: this.core.zones.length,
      cachedBitsets: this.bitsCache.size,
      typedBytes,
    };
  }

  /* -------------------------------------------------------------------------------------------- */

  /** The positions of a term kept as a list (none for one kept as a bitset). */
  private list(t: number): Int32Array {
    const out = new Int32Array(listEnd(this.postings, t, this.chunks) - listStart(this.postings, t, this.chunks));
    readList(this.postings, t, this.chunks, out);
    return out;
  }

  /** The bitset of a term kept as one. */
  private slotBits(slot: number): Uint32Array {
    const W = wordCount(this.size);
    return this.postings.termBits.subarray(slot * W, (slot + 1) * W);
  }

  private termLength(t: number): number {
    const { bitSlot, bitSize } = this.postings;
    const slot = bitSlot[t]!;
    return slot >= 0 ? bitSize[slot]! : listEnd(this.postings, t, this.chunks) - listStart(this.postings, t, this.chunks);
  }

  /** The positions of a term, ascending. */
  private positions(t: number): Int32Array {
    const slot = this.postings.bitSlot[t]!;
    return slot >= 0 ? positionsOf(this.slotBits(slot), this.postings.bitSize[slot]!) : this.list(t);
  }

  private bitsOf(t: number): Uint32Array {
    const slot = this.postings.bitSlot[t]!;
    if (slot >= 0) return this.slotBits(slot);
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
  private termClause(t: number | undefined): Clause | null {
    if (t === undefined) return null;
    const slot = this.postings.bitSlot[t]!;
    if (slot >= 0) return new BitsClause(this.slotBits(slot), this.size, this.postings.bitSize[slot]!);
    const C = this.chunks;
    const a = listStart(this.postings, t, C);
    const b = listEnd(this.postings, t, C);
    if (b === a) return null;
    const big = (b - a) * this.tuning.bitsetShare >= this.size;
    return new PackedListClause(this.postings.postLo, this.postings.chunkOff, t * C, C, big ? this.bitsOf(t) : null, () => this.bitsOf(t));
  }

  private facet(ns: Namespace, value: string): Clause | null {
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
      lists.push(this.positions(t));
    }
    lists.sort((a, b) => a.length - b.length);
    const [first, ...rest] = lists;
    const others = rest.map((l) => new ListClause(l));
    const out: number[] = [];
    for (const p of first!) if (others.every((c) => c.has(p))) out.push(p);
    return out.length ? new ListClause(Int32Array.from(out)) : null;
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
    const rec = this.rec;
    const pingAt = rec.pingAt;
    const answering =
      since === undefined
        ? null
        : (pos: number): boolean => {
            const i = pingIndex(rec, pos);
            return i >= 0 && pingAt[i]! >= since;
          };
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
      clauses.push(new NotClause(new ListClause(excluded.positions), n));
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
    this.openAnswers ??= new OpenAnswers(this.core.hours, this.core.zones);
    return this.openAnswers.testAt(instant, this.rec.hoursOf);
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
    if (report) h.openNow = this.rec.hoursOf[pos]! < 0 ? null : report(pos);
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
    return new ListClause(out.trimmed().sort());
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


/**
 * What an index is made of, for a snapshot: its typed arrays by name and the rest as JSON values
 * (index-snapshot.ts writes and reads them without knowing them). Index.partsOf / Index.fromParts
 * are the one place that names them: a change of the index's layout changes them and
 * SNAPSHOT_FORMAT. What the index derives at construction (positions, hour bitsets, grid, warm
 * bitsets) is not kept: the constructor makes it again (about a second for a million listings).
 */
export interface IndexParts {
  arrays: Record<string, Int32Array | Float64Array | Uint32Array | Uint8Array | Uint16Array>;
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

/** Where the order of a small index without placesEnd ends: after its last place. */
function endOfPlaces(input: { places?: Int32Array; order: Int32Array }): number {
  const places = input.places;
  return places && places.length > 0 ? places[places.length - 1]! + 1 : input.order.length;
}

/** Builds the search index of the listings in the given hourly order (delisted and dormant listings are left out). */
export function buildSearchIndex(input: SearchIndexInput): SearchIndex {
  const built = buildCore(input);
  return runAtOnce(Index.laidOut(built.core, input.order, built, { ...DEFAULT_TUNING, ...input.tuning }, input.places ? { at: input.places, end: input.placesEnd ?? endOfPlaces(input) } : undefined));
}

/**
 * The same, built beside the index being searched (issue 40's rebuild in the background): a turn
 * of the event loop after every `sliceMs` of work, so searches go on meanwhile.
 */
export async function buildSearchIndexInSteps(input: BuildSettings & { listings: AsyncIterable<ListingRecord>; signal?: AbortSignal }, sliceMs = SLICE_MS): Promise<SearchIndex> {
  const builder = coreBuilder(input);
  let since = performance.now();
  for await (const l of input.listings) {
    builder.add(l);
    if (performance.now() - since >= sliceMs) {
      await backgroundTurn();
      input.signal?.throwIfAborted();
      since = performance.now();
    }
  }
  const built = builder.finish();
  return runInSteps(Index.laidOut(built.core, input.order, built, { ...DEFAULT_TUNING, ...input.tuning }, input.places ? { at: input.places, end: input.placesEnd ?? endOfPlaces(input) } : undefined), sliceMs);
}

/** The same from listings read with waits between them (a database read in pages); the same index for the same listings. */
export async function buildSearchIndexFrom(input: BuildSettings & { listings: AsyncIterable<ListingRecord> }): Promise<SearchIndex> {
  const builder = coreBuilder(input);
  for await (const l of input.listings) builder.add(l);
  const built = builder.finish();
  return runAtOnce(Index.laidOut(built.core, input.order, built, { ...DEFAULT_TUNING, ...input.tuning }, input.places ? { at: input.places, end: input.placesEnd ?? endOfPlaces(input) } : undefined));
}
