/**
 * Search over the hour's frozen order (directory spec §4 GET /v1/businesses). Each hour the order is
 * computed once from rank inputs kept in storage, stored, and the in-memory index is re-ordered (or
 * rebuilt when what search reads has changed). Cursors are bound to the search and to the hour.
 */
import { Problem, canonicalJson, sha256Hex } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import type { ListingRecord } from '../listings/listing.js';
import { JsonBytes, assembleListingBytes } from '../listings/listing-page.js';
import { listingView, type MomentViewOptions } from '../listings/listing-view.js';
import { isListed } from '../listings/regulated.js';
import { DayShuffles, HOUR_MS, HourRanks, NO_STANDING, hourStartOf, placesInSteps, rankFacts, rankInputsOf, samePlaceFacts, shuffleDay, type FactRows, type PlacementFacts, type RankFacts, type RankInputs, type Standing } from '../ranking/hourly-order.js';
import { FactTable, amendedTable, sortedInSteps, sortedTable } from '../ranking/fact-table.js';
import { rulesByVersion, rulesInForce, type PublishedRules } from '../ranking/rules.js';
import { isOpenAt } from './hours.js';
import { ANSWER_TTL_MS, AnswerCache, OPEN_NOW_ANSWER_TTL_MS } from './answer-cache.js';
import { renderedAnswer, type SearchAnswer } from './rendered-answer.js';
import { assembleAnswer, momentOfListing, writeAnswerHead, writeAnswerTail, type AnswerAssembler, type AnswerMoment, type AnswerPlan, type PlacedListing } from './answer-assembly.js';
import { SnapshotRefused, type IndexSnapshots } from './index-snapshot.js';
import { LiveIndex } from './live-index.js';
import { buildSearchIndex, buildSearchIndexFrom, buildSearchIndexInSteps, SearchTimeout, type SearchHit, type SearchIndex } from './search-index.js';
import { backgroundTurn, pacedRows, runInSteps } from '../stepwise.js';
import { normaliseSearch, type NormalisedSearch, type RawSearch } from './search-request.js';

/** A search that runs longer is answered 503 with Retry-After (directory spec §4, §8). */
export const SEARCH_DEADLINE_MS = 10_000;
export const RETRY_AFTER_SECONDS = 60;
/**
 * How often a node that cannot see other processes' writes (PostgreSQL: the change feed is a round
 * trip) asks for them before serving a cached answer: a write through another node reaches this
 * node's cached answers within this time (docs/directory.md "Search nodes").
 */
export const FOLLOW_EVERY_MS = 1_000;
/**
 * At the hour's change the kept index takes the new order in place while the listings written since
 * it was built (searched in its small index) are at most this many; beyond, it is built again. The
 * small index is built again at each read of the change feed that brings a content change, so its
 * size is what each such read costs (~130 ms for 1,000 listings, bench/directory-hour.ts `followMs`):
 * it is kept small rather than in proportion to the directory.
 */
export const CARRY_AT_MOST = 5_000;
/**
 * Listings written since the kept index was built at which it is built again in the background, in
 * steps while searches go on, and swapped in when done: the small index (built again whole at each
 * read of the change feed with a content change) stays small, and the hour's change never reaches
 * CARRY_AT_MOST and a rebuild at the change but where writes outrun a rebuild.
 */
export const REBUILD_AT = 1_000;
/** Listings read a query by the rebuild in the background (SQLite answers a query at once: a short one holds searches less). */
const REBUILD_PAGE = 500;
/** Stored orders older than this are dropped. */
const ORDER_RETENTION_MS = 48 * HOUR_MS;
/**
 * How long before the hour a node sorts the next hour's order and lays its index out in it, in
 * steps while searches go on (a million listings take about a minute of CPU on a loaded machine);
 * at the change only the listings written since are placed again (docs/directory.md "The hour's
 * change prepared ahead").
 */
export const PREPARE_AHEAD_MS = 10 * 60_000;
/** Rank rows read per query while the next hour is prepared, with a turn after each (a few ms on SQLite). */
const PREPARE_PAGE = 1_000;

/** The next hour prepared ahead: its order as sorted then, and the kept index laid out in it. */
interface HourAhead {
  hourStart: number;
  rules: PublishedRules;
  /** The listings' revision read before their rank rows: every write after it is looked at again at the change. */
  revision: number;
  /** The evidence log's size then (the statement's `checks.from`). */
  checksFrom: number;
  standings: ReadonlyMap<number, Standing>;
  /** Every listed business's facts as of the hour, sorted. */
  sorted: FactTable;
  /** Each listing's place in sorted, by seq (-1: none). */
  placeOf: Int32Array;
  /** What the order knows of each listing, from those facts. */
  ranks: HourRanks;
  shuffles: DayShuffles;
  /** The index it was laid out from (the hour's kept index), and that layout. */
  from: SearchIndex;
  laid: SearchIndex;
  /** The live index's last write applied when the layout began: pings since are noted on it again. */
  laidAfter: number;
}


/** Called with each hour's order this process computed and stored, and the facts it was made from, in place order. */
/** `checks`: the evidence log's size before and after the order read its listings (what it read of checks lies between). */
export type OrderStored = (hourStart: number, rules: PublishedRules, facts: FactRows, checks: { from: number; to: number }) => Promise<void>;

/** The reputation each listing stands with in an hour's order (the nightly snapshot, domain/reputation/snapshot.ts), by listing seq. */
export type StandingsOfHour = (hourStartMs: number) => Promise<ReadonlyMap<number, Standing>>;

export interface VocabularyHooks {
  categoryKeysOf: (listing: ListingRecord) => string[];
  categoryWordsOf: (key: string) => string[];
  categoryPath: (placeId: string) => string[];
}

export interface HourState {
  hourStart: number;
  rules: PublishedRules;
  /** The hour's index, kept true to every write since it was built (live-index.ts). */
  index: LiveIndex;
  computedAt: number;
  /** The day's shuffle key of every listing, computed once per UTC day. */
  shuffles: DayShuffles;
  /** What the hour's order knows of each listing: its place and why are shown without reading its document. */
  ranks: HourRanks;
  /** The reputation the hour's order was made with, by listing seq. */
  standings: ReadonlyMap<number, Standing>;
  /** Whether the hour was prepared before it began (its order sorted and the index laid out ahead). */
  preparedAhead: boolean;
  /** Milliseconds each step of the change to this hour took on this node, in order (for the log and the benchmarks). */
  changeSteps: Readonly<Record<string, number>>;
}

/** Times the steps of one piece of work. */
class Laps {
  readonly steps: Record<string, number> = {};
  #at = performance.now();

  lap(step: string): void {
    const now = performance.now();
    this.steps[step] = Math.round(now - this.#at);
    this.#at = now;
  }
}

export type { SearchAnswer };

/** Where the hour's index came from when it was last made (docs/directory.md "A node ready in seconds"). */
export type IndexOrigin = 'database' | 'snapshot' | 'snapshot re-laid' | 'in place';

interface CursorBody {
  v: 1;
  h: number;
  s: string;
  a: number;
}

export class DirectorySearch {
  readonly #ctx: DirectoryContext;
  readonly #vocab: VocabularyHooks;
  #state: HourState | null = null;
  #pending: Promise<HourState> | null = null;
  readonly #answers: AnswerCache<SearchAnswer>;
  /** Where each cached answer is kept: its cache key, its hour and the index's content mark it was searched at (answerHolds). */
  readonly #answerKeys = new WeakMap<object, { key: string; hourStart: number; content: number }>();
  /** When the change feed was last read for cached answers (performance.now(); see FOLLOW_EVERY_MS), and this process's listing commits then. */
  #followedAt = Number.NEGATIVE_INFINITY;
  #followedCommits = 0;

  readonly #deadlineMs: number;
  readonly #assembler: AnswerAssembler | null;
  readonly #standings: StandingsOfHour;
  readonly #onOrder: OrderStored | null;
  readonly #hourInPlace: boolean;
  readonly #prepareAhead: boolean;
  #ahead: HourAhead | null = null;
  #preparingAhead: Promise<void> | null = null;
  /** The kept index being built again in the background, if it is (REBUILD_AT). */
  #rebuilding: Promise<void> | null = null;
  /** The last hour a preparation was started for, and the index it started from. */
  #aheadTried: { hourStart: number; from: SearchIndex } | null = null;
  /** Statements being made (off the search path). */
  readonly #statements = new Set<Promise<void>>();
  readonly #snapshots: IndexSnapshots | null;
  #snapshotWrite: Promise<void> | null = null;
  /**
   * Called once the work that passes the whole index through memory is done (a start, an index built
   * at the change, a rebuild) and nothing else runs off the search path: the server hands back the
   * memory that work freed (heap-pages.ts). Never after an hour carried in place, whose change must
   * not pause searches.
   */
  readonly #afterHeavyWork: (() => void) | null;
  /** Told of each search (heap-pages.ts CollectionOnceBusy: the collection that follows heavy work once searches flow). */
  readonly #onSearch: (() => void) | null;
  #tidying: Promise<void> | null = null;
  /** Where the current hour's index came from, why a snapshot was not used when one was looked for, and how long the index took (ms). */
  origin: { from: IndexOrigin; refused: string | null; indexMs: number } | null = null;

  /** `assembler`: where answers are assembled besides this thread (answer workers); `standings`: the reputation each hour's order reads (none: nobody is ranked). */
  constructor(
    ctx: DirectoryContext,
    vocab: VocabularyHooks,
    options: { cacheAnswers?: boolean; deadlineMs?: number; assembler?: AnswerAssembler | null; standings?: StandingsOfHour; onOrder?: OrderStored; hourInPlace?: boolean; prepareAhead?: boolean; snapshots?: IndexSnapshots | null; afterHeavyWork?: (() => void) | null; onSearch?: (() => void) | null } = {},
  ) {
    this.#ctx = ctx;
    this.#vocab = vocab;
    this.#deadlineMs = options.deadlineMs ?? SEARCH_DEADLINE_MS;
    this.#assembler = options.assembler ?? null;
    this.#standings = options.standings ?? (async () => new Map());
    this.#onOrder = options.onOrder ?? null;
    // false: the index is built again at the hour's change whenever a listing's content changed (before issue 40; benchmarks compare).
    this.#hourInPlace = options.hourInPlace ?? true;
    // false: the next hour's order is sorted and laid out at the change (benchmarks compare).
    this.#prepareAhead = this.#hourInPlace && (options.prepareAhead ?? true);
    this.#snapshots = options.snapshots ?? null;
    this.#afterHeavyWork = options.afterHeavyWork ?? null;
    this.#onSearch = options.onSearch ?? null;
    this.#answers = new AnswerCache<SearchAnswer>(options.cacheAnswers ?? true);
  }

  /** The state of the current hour, preparing it (order, index) when the hour turned. */
  async hour(): Promise<HourState> {
    const now = this.#ctx.clock.now();
    const hourStart = hourStartOf(now);
    if (this.#state && this.#state.hourStart === hourStart) {
      if (now >= hourStart + HOUR_MS - PREPARE_AHEAD_MS) this.prepareNextHour();
      return this.#state;
    }
    if (!this.#pending) {
      // The hour may read every listing (its order, its index): through a small page cache, so the
      // pages read once do not stay in the node's memory.
      const restore = this.#ctx.store.listings.readingEveryListing?.() ?? null;
      this.#pending = this.#prepare(hourStart).finally(() => {
        restore?.();
        this.#pending = null;
      });
    }
    return this.#pending;
  }

  /** The current hour's state if ready, without waiting (detail pages and stats use it). */
  peek(): HourState | null {
    return this.#state;
  }

  /** The state of the hour of `nowMs` if ready (without waiting for it), with every listing written since it was built. */
  async current(nowMs: number): Promise<HourState | null> {
    const state = this.#state;
    if (!state || state.hourStart !== hourStartOf(nowMs)) return null;
    await state.index.follow(this.#ctx.store.listings);
    return state;
  }

  /**
   * Sorts the next hour's order and lays the kept index out in it, in steps while searches go on
   * (nothing when under way, done, or when there is no hour yet to carry). Called by searches in
   * the hour's last minutes and by the server's timer; a failure only leaves the change to do it all.
   */
  prepareNextHour(): Promise<void> {
    const state = this.#state;
    if (!this.#prepareAhead || !state || this.#preparingAhead) return this.#preparingAhead ?? Promise.resolve();
    const next = state.hourStart + HOUR_MS;
    // Once per hour and index: a preparation that found nothing to do or failed is not started again
    // by every search of the hour's last minutes (each would read every listing).
    if (this.#aheadTried?.hourStart === next && this.#aheadTried.from === state.index.main) return Promise.resolve();
    this.#aheadTried = { hourStart: next, from: state.index.main };
    // A rebuild under way is finished first, and the hour prepared from the index it made.
    const from = async (): Promise<HourState> => {
      await this.#rebuilding;
      const current = this.#state ?? state;
      this.#aheadTried = { hourStart: next, from: current.index.main };
      return current;
    };
    this.#preparingAhead = from()
      .then((current) => this.#aheadOf(current, next))
      .then(
        (ahead) => {
          this.#ahead = ahead;
        },
        (error: unknown) => {
          this.#ahead = null;
          this.#onOrderFailed?.(error);
        },
      )
      .finally(() => {
        this.#preparingAhead = null;
      });
    return this.#preparingAhead;
  }

  /**
   * Builds the kept index again in the background when REBUILD_AT listings were written since it was
   * built (nothing while one is under way, or once the next hour is being prepared: that layout is
   * made from the index kept, and the change carries the writes; the next hour's first searches
   * start it then).
   */
  #rebuildWhenMany(state: HourState): void {
    if (!this.#hourInPlace || this.#rebuilding || this.#stopping.signal.aborted || state.index.changedCount < REBUILD_AT) return;
    if (this.#preparingAhead || this.#ahead || this.#ctx.clock.now() >= state.hourStart + HOUR_MS - PREPARE_AHEAD_MS) return;
    this.#rebuilding = this.#rebuild(state)
      .catch((error: unknown) => {
        if (!this.#stopping.signal.aborted) this.#onSnapshotFailed?.(error);
      })
      .finally(() => {
        this.#rebuilding = null;
      });
  }

  /**
   * The hour's index built again from every listing stored now, in the hour's stored order, in steps
   * while the kept one answers; then it takes the kept one's place with the writes made meanwhile in
   * its small index, and is kept as a snapshot. When the hour changed meanwhile (a build of many
   * millions takes longer than what is left of an hour), it is laid out in the new hour's order
   * first, in steps too.
   */
  async #rebuild(state: HourState): Promise<void> {
    const store = this.#ctx.store;
    let hourStart = state.hourStart;
    let stored = await store.orders.get(hourStart);
    if (!stored) return;
    const revision = await store.listings.revision();
    let main = await buildSearchIndexInSteps({ ...this.#indexSettings(stored.order), listings: pacedRows(store.listings.allListed({ pageSize: REBUILD_PAGE }), store.queriesOnServer), signal: this.#stopping.signal });
    for (let current = this.#state; current && current.hourStart !== hourStart; current = this.#state) {
      hourStart = current.hourStart;
      stored = await store.orders.get(hourStart);
      if (!stored) return;
      main = await runInSteps(main.relaidInSteps(stored.order));
    }
    const index = this.#live(main, revision, revision);
    await index.follow(store.listings);
    const current = this.#state;
    // Every preparation of a next hour started meanwhile waited for this one (prepareNextHour), so none was made from the index replaced.
    if (!current || current.hourStart !== hourStart || this.#ahead || this.#stopping.signal.aborted) return;
    this.#state = { ...current, index };
    this.#mapPlaces(index.main);
    this.rebuilt++;
    this.#writeSnapshot(this.#state, stored.order);
    this.#tidyAfterHeavyWork();
  }

  readonly #stopping = new AbortController();
  /** Gives up a rebuild in the background under way and starts none (the server is closing: it would take minutes at a million listings). */
  stopRebuilding(): void {
    this.#stopping.abort();
  }

  /** How many times the kept index was built again in the background (tests and benchmarks read it). */
  rebuilt = 0;

  /** The rebuild in the background under way, if one is (tests and benchmarks wait for it). */
  get rebuilding(): Promise<void> {
    return this.#rebuilding ?? Promise.resolve();
  }

  async #aheadOf(state: HourState, hourStart: number): Promise<HourAhead | null> {
    const store = this.#ctx.store;
    if (await store.orders.get(hourStart)) return null;
    const rules = rulesInForce(hourStart);
    const revision = await store.listings.revision();
    const checksFrom = await store.evidence.size();
    // The night's reputation the hour will read may not be scored yet (at midnight): this hour's
    // stands in, and every listing whose standing differs at the change is placed again then.
    const standings = state.standings;
    const day = shuffleDay(hourStart);
    const known = state.shuffles.day === day ? state.shuffles : undefined;
    const facts = await this.#factsOf(hourStart, rules, standings, known, true);
    const sorted = await runInSteps(sortedInSteps(facts, rules));
    const from = state.index.main;
    const laidAfter = state.index.seen;
    const laid = await runInSteps(from.relaidInSteps(sorted.seqs()));
    await backgroundTurn();
    const shuffles = known ?? (await runInSteps(DayShuffles.fromRowsInSteps(day, sorted)));
    const placeOf = await runInSteps(placesInSteps(sorted));
    const ranks = await runInSteps(HourRanks.fromRowsInSteps(sorted));
    return { hourStart, rules, revision, checksFrom, standings, sorted, placeOf, ranks, shuffles, from, laid, laidAfter };
  }

  /**
   * The serving index's map of places (which the small index of the listings written since reads),
   * made off the search path in steps; meanwhile each small index finds its places in a pass over the order.
   */
  #mapPlaces(main: SearchIndex): void {
    const making = (this.#placesMade ?? Promise.resolve()).then(() => runInSteps(main.placesInSteps()));
    // Arrays in memory only: should it ever fail, placesOf goes on finding places by the pass over the order.
    this.#placesMade = making.catch(() => undefined);
  }

  #placesMade: Promise<void> | null = null;

  /** Waits for the statements under way (before the store closes), and the tidy after heavy work. */
  async settled(): Promise<void> {
    await this.#offPathDone();
    await this.#tidying;
  }

  async #offPathDone(): Promise<void> {
    await this.#placesMade;
    await this.#rebuilding;
    await this.#preparingAhead;
    await Promise.all([...this.#statements]);
    await this.snapshotWritten;
  }

  /** Calls afterHeavyWork once the work off the search path is done (a snapshot being written, places mapped). */
  #tidyAfterHeavyWork(): void {
    const tidy = this.#afterHeavyWork;
    if (!tidy) return;
    const previous = this.#tidying ?? Promise.resolve();
    const tidying = previous
      .then(() => this.#offPathDone())
      .then(() => {
        if (!this.#stopping.signal.aborted) tidy();
      })
      // A tidy is a saving, never a reason to fail: what failed off the path reported itself.
      .catch(() => undefined)
      .finally(() => {
        if (this.#tidying === tidying) this.#tidying = null;
      });
    this.#tidying = tidying;
  }

  async #prepare(hourStart: number): Promise<HourState> {
    // A preparation still under way when its hour came is nearer its end than a new start would be.
    if (this.#preparingAhead && this.#state?.hourStart === hourStart - HOUR_MS) await this.#preparingAhead;
    const previous = this.#state;
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead && previous && ahead.hourStart === hourStart && ahead.from === previous.index.main && rulesInForce(hourStart).version === ahead.rules.version && previous.index.changedCount <= CARRY_AT_MOST) {
      const carried = await this.#carryAhead(hourStart, previous, ahead);
      if (carried) return carried;
    }
    const state = await this.#prepareAtChange(hourStart);
    this.#tidyAfterHeavyWork();
    return state;
  }

  /**
   * The hour prepared ahead, taken in: the listings written since it was sorted (and any whose
   * standing the night changed) are placed again in its order, which is stored (or the one another
   * node stored is taken), and the index laid out ahead is given those places. Null when the layout
   * does not fit the stored order (the change then does everything, as without it).
   */
  async #carryAhead(hourStart: number, previous: HourState, ahead: HourAhead): Promise<HourState | null> {
    const store = this.#ctx.store;
    const laps = new Laps();
    const standings = await this.#standings(hourStart);
    laps.lap('standings');
    await previous.index.follow(store.listings);
    laps.lap('follow');
    const rules = ahead.rules;
    // Every listing written since the order was sorted, or standing otherwise now, has its facts taken again.
    const suspects = new Set<number>();
    const pinged: { seq: number; at: number }[] = [];
    for (let after = ahead.revision; ; ) {
      const rows = await store.listings.changesSince(after, 1_000);
      for (const row of rows) {
        suspects.add(row.seq);
        if (row.revision > ahead.laidAfter && row.lastPingAt !== null) pinged.push({ seq: row.seq, at: row.lastPingAt });
        after = Math.max(after, row.revision);
      }
      if (rows.length < 1_000) break;
    }
    for (const [seq, standing] of standings) {
      const before = ahead.standings.get(seq) ?? NO_STANDING;
      if (before.ranked !== standing.ranked || before.scoreInt !== standing.scoreInt) suspects.add(seq);
    }
    for (const [seq, before] of ahead.standings) if (before.ranked && !standings.has(seq)) suspects.add(seq);
    const records = await store.listings.bySeqs([...suspects]);
    const checksTo = await store.evidence.size();
    laps.lap('written since');
    const again = new Map<number, RankFacts | null>();
    for (const seq of suspects) {
      const record = records.get(seq);
      const now = record && isListed(record) ? rankFacts(rankInputsOf(record), hourStart, rules, standings.get(seq) ?? NO_STANDING, ahead.shuffles) : null;
      const before = seq < ahead.placeOf.length && ahead.placeOf[seq]! >= 0 ? ahead.sorted.at(ahead.placeOf[seq]!) : undefined;
      if (now && before && samePlaceFacts(now, before)) continue;
      if (!now && !before) continue;
      again.set(seq, now);
    }
    const facts = again.size > 0 ? amendedTable(ahead.sorted, again, rules) : ahead.sorted;
    let order = facts.seqs();
    laps.lap('placed again');
    // Stored unless another node stored the hour first (then its order stands).
    const won = await store.orders.put({ hourStart, rulesVersion: rules.version, order, computedAt: this.#ctx.clock.now() });
    if (won) this.#statementOf(hourStart, rules, facts, { from: ahead.checksFrom, to: checksTo });
    const stored = await store.orders.get(hourStart);
    if (!stored || stored.rulesVersion !== rules.version) return null;
    order = stored.order;
    await store.orders.prune(hourStart - ORDER_RETENTION_MS);
    laps.lap('stored');
    // Pings noted on the kept index after the layout began are noted on the layout too.
    for (const ping of pinged) ahead.laid.notePing(ping.seq, ping.at);
    const moved = new Set<number>([...again.keys(), ...previous.index.changes().keys()]);
    const main = ahead.laid.placedBy(order, moved);
    if (!main) return null;
    laps.lap('layout');
    const placedAgain = new Map<number, ListingRecord | null>();
    for (const seq of again.keys()) if (!previous.index.changes().has(seq)) placedAgain.set(seq, records.get(seq) ?? null);
    const index = previous.index.carriedTo(main, placedAgain);
    laps.lap('small index');
    const ranks = again.size > 0 ? ahead.ranks.amended(again) : ahead.ranks;
    laps.lap('ranks');
    this.#state = { hourStart, rules, index, computedAt: stored.computedAt, shuffles: ahead.shuffles, ranks, standings, preparedAhead: true, changeSteps: laps.steps };
    this.#mapPlaces(main);
    this.origin = { from: 'in place', refused: null, indexMs: (laps.steps.layout ?? 0) + (laps.steps['small index'] ?? 0) };
    // No snapshot: the index holds what the kept one holds, in another order (#writeSnapshot).
    return this.#state;
  }

  /** The hour's order computed (or read) and the index given it, all at the change. */
  async #prepareAtChange(hourStart: number): Promise<HourState> {
    const store = this.#ctx.store;
    const laps = new Laps();
    // Every write after this one is read again by the live index (none is missed while building).
    const revision = await store.listings.revision();
    let stored = await store.orders.get(hourStart);
    let facts: FactTable | null = null;
    let won = false;
    // Ranked businesses sort by the reputation of the night's snapshot (computed first when missing).
    const standings = await this.#standings(hourStart);
    if (!stored) {
      const rules = rulesInForce(hourStart);
      // Every check entry below `from` had its listing written before the read began; those up to `to` may have been read.
      const from = await store.evidence.size();
      const read = await this.#factsOf(hourStart, rules, standings);
      const checks = { from, to: await store.evidence.size() };
      laps.lap('facts');
      facts = sortedTable(read, rules);
      const order = facts.seqs();
      laps.lap('sorted');
      won = await store.orders.put({ hourStart, rulesVersion: rules.version, order, computedAt: this.#ctx.clock.now() });
      // The order this process stored: its signed statement, made from it and its facts (docs/verifiable-order.md).
      if (won) this.#statementOf(hourStart, rules, facts, checks);
      // Another process may have stored the hour first: the stored order is the one that stands.
      stored = (await store.orders.get(hourStart)) ?? { hourStart, rulesVersion: rules.version, order, computedAt: this.#ctx.clock.now() };
      await store.orders.prune(hourStart - ORDER_RETENTION_MS);
    }
    const rules = rulesByVersion(stored.rulesVersion) ?? rulesInForce(hourStart);
    laps.lap('stored');
    const previous = this.#state;
    if (previous) await previous.index.follow(store.listings);
    laps.lap('follow');
    // The kept index takes the new order in place (listings written since it was built stay in its
    // small index, each in its new place): no rebuild at the hour's change while they are few.
    const indexFrom = performance.now();
    const built: { index: LiveIndex; from: IndexOrigin } =
      previous && previous.index.changedCount <= (this.#hourInPlace ? CARRY_AT_MOST : 0)
        ? { index: previous.index.carriedTo(previous.index.main.withOrder(stored.order)), from: 'in place' }
        : ((previous ? null : await this.#fromSnapshot(stored.order, revision)) ?? { index: await this.#buildIndex(stored.order, revision), from: 'database' });
    const index = built.index;
    const indexMs = Math.round(performance.now() - indexFrom);
    laps.lap('layout');
    const day = shuffleDay(hourStart);
    // From the facts of the order just computed, else from every listing's rank inputs, read into a
    // fact table (at 5 M an object per listing made the collector's pauses the change's longest step).
    const kept = previous && previous.shuffles.day === day ? previous.shuffles : undefined;
    const table = facts ?? (await this.#factsOf(hourStart, rules, standings, kept));
    const shuffles = kept ?? DayShuffles.build(day, table);
    const ranks = HourRanks.build(hourStart, rules, table, standings);
    laps.lap('ranks');
    this.#state = { hourStart, rules, index, computedAt: stored.computedAt, shuffles, ranks, standings, preparedAhead: false, changeSteps: laps.steps };
    this.#mapPlaces(index.main);
    this.origin = { from: built.from, refused: built.from === 'database' && !previous ? this.#refused : null, indexMs };
    // Listings read from the database: kept for the nodes starting after this one. An index carried
    // in place or read from a snapshot holds what the kept snapshot holds, in another order (#writeSnapshot).
    if (built.from === 'database') this.#writeSnapshot(this.#state, stored.order);
    return this.#state;
  }

  #refused: string | null = null;

  /**
   * The hour's index from the newest snapshot kept (index-snapshot.ts), with every write since it was built
   * read from the change feed; null (the index is built from the database) when there is none, it
   * cannot be used (SnapshotRefused), or more listings changed since than the small index keeps.
   */
  async #fromSnapshot(order: Int32Array, revision: number): Promise<{ index: LiveIndex; from: IndexOrigin } | null> {
    this.#refused = null;
    if (!this.#snapshots) return null;
    const read = await this.#snapshots.read(order, revision);
    if (read instanceof SnapshotRefused) {
      this.#refused = read.message;
      return null;
    }
    const index = this.#live(read.main, read.builtRevision, read.builtRevision);
    await index.follow(this.#ctx.store.listings);
    if (index.changedCount > CARRY_AT_MOST) {
      this.#refused = `index snapshot not used: ${index.changedCount} listings changed since it was built`;
      return null;
    }
    return { index, from: read.relaid ? 'snapshot re-laid' : 'snapshot' };
  }

  /**
   * Writes the hour's index as a snapshot after the current turn (the hour is served meanwhile); a
   * failure is reported, never thrown. Only an index whose listings were read from the database (a
   * build, a rebuild): one carried to the next hour, or read from a snapshot, holds the same
   * listings at the same revision as the kept snapshot, in another order, and a node starting
   * re-lays the kept one in its hour's order in seconds. Written at every hour's change, it was
   * 1.2 GB and seconds of re-lay on the node's thread an hour at 5 M, beside the hour's statement.
   */
  #writeSnapshot(state: HourState, order: Int32Array): void {
    const snapshots = this.#snapshots;
    if (!snapshots) return;
    const previous = this.#snapshotWrite ?? Promise.resolve();
    const write = previous
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(async () => {
        await snapshots.write(state.index.main, order, state.index.builtRevision, state.hourStart, this.#ctx.clock.now());
      })
      .catch((error: unknown) => this.#onSnapshotFailed?.(error))
      .finally(() => {
        if (this.#snapshotWrite === write) this.#snapshotWrite = null;
      });
    this.#snapshotWrite = write;
  }

  /** The snapshot being written, if one is (tests and benchmarks wait for it). */
  get snapshotWritten(): Promise<void> {
    return this.#snapshotWrite ?? Promise.resolve();
  }

  #onSnapshotFailed: ((error: unknown) => void) | null = null;
  /** Where a failure to write a snapshot is reported (the server's log). */
  reportSnapshotFailures(report: (error: unknown) => void): void {
    this.#onSnapshotFailed = report;
  }

  /** The statement of an order this process stored, made off the search path (HourStatements.get waits for it). */
  #statementOf(hourStart: number, rules: PublishedRules, facts: FactRows, checks: { from: number; to: number }): void {
    const making = this.#orderStored(hourStart, rules, facts, checks);
    this.#statements.add(making);
    void making.finally(() => this.#statements.delete(making));
  }

  /** Hands the order just stored and its facts on (its statement); a failure there is reported and never holds the hour back. */
  async #orderStored(hourStart: number, rules: PublishedRules, facts: FactRows, checks: { from: number; to: number }): Promise<void> {
    if (!this.#onOrder) return;
    try {
      await this.#onOrder(hourStart, rules, facts, checks);
    } catch (error) {
      this.#onOrderFailed?.(error);
    }
  }

  /** Where a failure of onOrder is reported (the server's log). */
  #onOrderFailed: ((error: unknown) => void) | null = null;
  reportOrderFailures(report: (error: unknown) => void): void {
    this.#onOrderFailed = report;
  }

  /**
   * Every listed business's facts as of the hour, in seq order (the day's shuffles taken from
   * `shuffles` where it has them). `inSteps`: off the search path (the next hour prepared), read
   * PREPARE_PAGE rows a query with a turn of the event loop after each.
   */
  async #factsOf(hourStart: number, rules: PublishedRules, standings: ReadonlyMap<number, Standing>, shuffles?: DayShuffles, inSteps = false): Promise<FactTable> {
    const table = new FactTable();
    const store = this.#ctx.store;
    const rows = inSteps ? pacedRows(store.listings.rankRows({ pageSize: PREPARE_PAGE }), store.queriesOnServer) : store.listings.rankRows();
    for await (const row of rows) {
      table.pushInputs(row, hourStart, rules, standings.get(row.seq) ?? NO_STANDING, shuffles);
      if (inSteps && table.length % PREPARE_PAGE === 0) await backgroundTurn();
    }
    return table;
  }

  /** The hour's index with what was written since it was built. */
  #live(main: SearchIndex, builtRevision: number, seen: number): LiveIndex {
    return new LiveIndex(main, builtRevision, seen, (listings, order, places, end) =>
      buildSearchIndex({ listings, order, places, placesEnd: end, keepRecords: false, categoryKeysOf: this.#vocab.categoryKeysOf, categoryWordsOf: this.#vocab.categoryWordsOf, listed: isListed }),
    );
  }

  /** How the kept index is built in `order` (records are not kept: a million kept objects would make the garbage collector pause for seconds). */
  #indexSettings(order: Int32Array) {
    return { order, keepRecords: false, categoryKeysOf: this.#vocab.categoryKeysOf, categoryWordsOf: this.#vocab.categoryWordsOf, listed: isListed };
  }

  async #buildIndex(order: Int32Array, revision: number): Promise<LiveIndex> {
    // One streamed pass: the index keeps typed arrays only.
    const store = this.#ctx.store.listings;
    const settings = this.#indexSettings(order);
    let index: SearchIndex;
    const readSync = store.allListedSync;
    if (readSync) {
      // SQLite: one row at a time from the driver, no waits.
      index = buildSearchIndex({ ...settings, listings: readSync() });
    } else {
      // PostgreSQL: pages of rows read in turn; the same index of the same listings.
      index = await buildSearchIndexFrom({ ...settings, listings: store.allListed() });
    }
    return this.#live(index, revision, revision);
  }

  async search(raw: RawSearch, options: { cursor?: string | undefined; limit: number }) {
    const started = performance.now();
    this.#onSearch?.();
    // The hour's state is ready on all but the first search of an hour: no deadline timer for those.
    const ready = this.#state;
    const state = ready && ready.hourStart === hourStartOf(this.#ctx.clock.now()) ? ready : await withDeadline(this.hour(), this.#deadlineMs);
    const nowMs = this.#ctx.clock.now();
    const search = normaliseSearch(raw, state.rules);
    const hash = searchHash(search);
    const after = decodeSearchCursor(options.cursor, hash, state.hourStart) ?? (search.order === 'rank' ? -1 : 0);
    if (search.emptyPage) return { businesses: [], next_cursor: null };
    const cacheKey = `${state.hourStart}|${hash}|${after}|${options.limit}`;
    const cached = this.#answers.get(cacheKey, nowMs);
    if (cached) {
      // Kept while no listing's content changed since it was searched, through this node or another.
      await this.#followForCache(state);
      if (this.#answerKeys.get(cached)?.content === state.index.contentSeen) return cached;
    }
    // What was written since the index was built (a listing's new hours, a door now failing).
    await state.index.follow(this.#ctx.store.listings);
    this.#rebuildWhenMany(state);
    const content = state.index.contentSeen;

    let page;
    try {
      // Absent filters as undefined rather than spread in: on Node 20 conditional spreads take V8's slow path.
      page = state.index.search({
        words: search.words,
        softwareNameException: search.softwareNameException,
        kinds: search.kinds,
        categoryKeys: search.categoryKeys,
        tag: search.tag,
        itemType: search.itemType,
        language: search.language,
        openAt: search.openNow ? nowMs : undefined,
        reportOpenAt: nowMs,
        // a member's own inbox is a live door while it answers (listings/answering.ts)
        answeringSince: nowMs - state.rules.numbers.answeringHours * HOUR_MS,
        near: search.near,
        attributes: search.attributes,
        country: search.country,
        priceBand: search.priceBand,
        accepts: search.accepts,
        requestable: search.requestable,
        doorTypes: search.doorTypes,
        minLevel: search.minLevel,
        hasInbox: search.hasInbox,
        sources: search.sources,
        order: search.order,
        after,
        limit: options.limit,
        deadlineMs: started + this.#deadlineMs,
      });
    } catch (error) {
      if (error instanceof SearchTimeout) throw searchTimeout();
      throw error;
    }

    const nextCursor = page.next === null ? null : encodeSearchCursor({ v: 1, h: state.hourStart / HOUR_MS, s: hash, a: page.next });
    const answer = renderedAnswer(await this.#answerBytes(page.hits, state, nowMs, nextCursor));
    this.#answers.set(cacheKey, answer, nowMs, search.openNow ? OPEN_NOW_ANSWER_TTL_MS : ANSWER_TTL_MS);
    this.#answerKeys.set(answer, { key: cacheKey, hourStart: state.hourStart, content });
    return answer;
  }

  /**
   * Reads the writes made since the index last did, for an answer about to be served from the
   * cache: each time where that costs microseconds (SQLite), at most every FOLLOW_EVERY_MS where
   * it is a round trip to the database shared with other nodes (PostgreSQL).
   */
  #followForCache(state: HourState): Promise<void> | undefined {
    const listings = this.#ctx.store.listings;
    if (listings.changesSeenLocally) return state.index.follow(listings);
    const now = performance.now();
    // This process's own writes at once; other processes' at most every FOLLOW_EVERY_MS.
    // A read under way (started by a replay's check) is waited for: it may hold this process's write.
    if (listings.committedHere === this.#followedCommits && now - this.#followedAt < FOLLOW_EVERY_MS) return state.index.following ?? undefined;
    this.#followedAt = now;
    this.#followedCommits = listings.committedHere;
    return state.index.follow(listings);
  }

  /**
   * Whether search() would hand `answer` back now for the search it answered, known without
   * waiting: the same hour, the answer still cached and not expired (a search's cursor, words and
   * rules all belong to its hour). A page drawn from it is replayed in front of the framework
   * (shared answer-replay.ts) only while this holds.
   */
  answerHolds(answer: object): boolean {
    const kept = this.#answerKeys.get(answer);
    if (!kept) return false;
    const nowMs = this.#ctx.clock.now();
    const state = this.#state;
    if (!state || state.hourStart !== kept.hourStart || hourStartOf(nowMs) !== kept.hourStart || this.#answers.peek(kept.key, nowMs) !== answer) return false;
    // Without waiting: the writes read so far decide, and those not read yet are asked for on the way.
    const listings = this.#ctx.store.listings;
    if (listings.changesSeenLocally) {
      // SQLite: the kept revision says at no cost whether anything was written since the index read.
      const top = listings.peekRevision();
      if (top === null || top > state.index.seen) {
        // Read it (and keep the revision again), so the next request knows; this one takes the route.
        void state.index
          .follow(listings)
          .then(() => listings.revision())
          .catch(() => undefined);
        return false;
      }
    } else {
      const ownWrite = listings.committedHere !== this.#followedCommits;
      void this.#followForCache(state)?.catch(() => undefined);
      // A write of this process not read yet: this request takes the route (which waits for the read).
      if (ownWrite) return false;
    }
    return kept.content === state.index.contentSeen;
  }

  /**
   * The answer's JSON: each listing from its stored page with this answer's moment sections, on an
   * answer worker when there is one. Here, a listing the hour's tables do not know (added since) is
   * placed from its page's inputs, and one without a current page (not rendered yet) is rendered
   * from its document.
   */
  async #answerBytes(hits: readonly SearchHit[], state: HourState, nowMs: number, nextCursor: string | null): Promise<Buffer> {
    const rules = state.rules;
    const moment = this.#answerMoment(rules, nowMs);
    const listings: PlacedListing[] = hits.map((hit) => {
      const facts = this.#tableFacts(state, hit.seq);
      return { seq: hit.seq, rankPos: hit.rankPos, distanceKm: hit.distanceKm, openNow: hit.openNow ?? null, placement: facts ? this.#placement(facts) : undefined };
    });
    const plan: AnswerPlan = { moment, listings, nextCursor };
    const placedByTables = listings.every((listing) => listing.placement !== undefined);
    // An empty page has nothing to assemble.
    if (this.#assembler && placedByTables && listings.length > 0) {
      const bytes = await this.#assembler.assemble(plan);
      if (bytes) return bytes;
    }
    const store = this.#ctx.store.listings;
    const pages = await store.pagesBySeqs(hits.map((h) => h.seq));
    const whole = placedByTables ? assembleAnswer(plan, pages) : null;
    if (whole) return whole.toBuffer();

    const unrendered = hits.filter((h) => !pages.has(h.seq)).map((h) => h.seq);
    const records = unrendered.length > 0 ? await store.bySeqs(unrendered) : new Map<number, ListingRecord>();
    const out = new JsonBytes();
    writeAnswerHead(out);
    let first = true;
    for (const listing of listings) {
      const page = pages.get(listing.seq);
      const record = page ? undefined : records.get(listing.seq);
      if (!page && !record) continue;
      if (!first) out.text(',');
      first = false;
      if (page) {
        const placement = listing.placement ?? this.#placement(this.#placementFacts(state, listing.seq, () => ({ ...page.inputs, seq: listing.seq })));
        assembleListingBytes(page.fixed, page, momentOfListing(moment, listing, placement), out);
      } else if (record) {
        out.text(JSON.stringify(this.view(record, state, nowMs, { rankPos: listing.rankPos, distanceKm: listing.distanceKm, detail: false })));
      }
    }
    writeAnswerTail(out, nextCursor);
    return out.toBuffer();
  }

  /** The shuffle key and the facts the listing's why is written from, at the moment of the answer (listings/why-now.ts). */
  #placement(facts: PlacementFacts): { shuffle: string; facts: PlacementFacts } {
    return { shuffle: facts.shuffle, facts };
  }

  #answerMoment(rules: PublishedRules, nowMs: number): AnswerMoment {
    return { nowMs, answeringHours: rules.numbers.answeringHours, rulesVersion: rules.version, rulesUrl: `${this.#ctx.settings.baseUrl}/v1/ranking?version=${rules.version}` };
  }

  view(record: ListingRecord, state: HourState | null, nowMs: number, options: { rankPos: number | null; distanceKm?: number | undefined; detail: boolean }) {
    return listingView(record, {
      categoryPath: this.#vocab.categoryPath,
      detail: options.detail,
      baseUrl: this.#ctx.settings.baseUrl,
      ...this.#moment(rankInputsOf(record), isOpenAt(record.hours, nowMs), state, nowMs, options),
    });
  }

  /** What a view shows of this moment: answering, open now, the place in the hour's order and why. */
  #moment(
    rank: RankInputs,
    openNow: boolean | null,
    state: HourState | null,
    nowMs: number,
    options: { rankPos: number | null; distanceKm?: number | undefined },
  ): MomentViewOptions {
    const rules = state?.rules ?? rulesInForce(nowMs);
    const placement = state && options.rankPos !== null ? this.#placement(this.#placementFacts(state, rank.seq, () => rank)) : undefined;
    // Without a place in the order (rankPos null) no placement is shown, so its rankPos is never read.
    return momentOfListing(this.#answerMoment(rules, nowMs), { seq: rank.seq, rankPos: options.rankPos ?? 0, distanceKm: options.distanceKm, openNow }, placement);
  }

  /** The facts the hour's order was made from, from the hour's tables; null for a listing they do not know (added since). */
  #tableFacts(state: HourState, seq: number): PlacementFacts | null {
    return state.ranks.has(seq) && state.shuffles.has(seq) ? state.ranks.placement(seq, state.shuffles.known(seq)) : null;
  }

  /**
   * The facts the hour's order was made from, which a listing's place and why explain: from the
   * hour's tables, or for a listing added since (not in them) from its rank inputs.
   */
  #placementFacts(state: HourState, seq: number, inputs: () => RankInputs): PlacementFacts {
    return this.#tableFacts(state, seq) ?? rankFacts(inputs(), state.hourStart, state.rules, state.standings.get(seq) ?? NO_STANDING, state.shuffles);
  }
}

export function searchTimeout(): Problem {
  return new Problem('search_timeout', 'The search ran out of time; try again in a minute.', {
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(searchTimeout()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Hashes of searches asked before, by their canonical JSON (most searches are asked again and again). */
const searchHashes = new Map<string, string>();

export function searchHash(search: NormalisedSearch): string {
  const text = canonicalJson(search);
  const known = searchHashes.get(text);
  if (known !== undefined) return known;
  const hash = sha256Hex(text).slice(0, 16);
  if (searchHashes.size >= 10_000) searchHashes.clear();
  if (text.length <= 2_048) searchHashes.set(text, hash);
  return hash;
}

export function encodeSearchCursor(body: CursorBody): string {
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** The resume position in a cursor; 400 when it is not one of ours, 410 when it belongs to another search or hour. */
export function decodeSearchCursor(cursor: string | undefined, hash: string, hourStart: number): number | null {
  if (cursor === undefined) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = null;
  }
  const c = body as Partial<CursorBody> | null;
  if (!c || c.v !== 1 || typeof c.h !== 'number' || typeof c.s !== 'string' || typeof c.a !== 'number' || !Number.isInteger(c.a)) {
    throw new Problem('bad_request', 'cursor is not one this directory gave out.', {
      fields: [{ path: 'cursor', problem: 'invalid', message: 'Use next_cursor of the previous page as it was given.' }],
    });
  }
  if (c.h !== hourStart / HOUR_MS) {
    throw new Problem('cursor_expired', 'This cursor belongs to an earlier hour\'s order; start the search again from the first page.');
  }
  if (c.s !== hash) throw new Problem('cursor_expired', 'This cursor belongs to another search; start this search from its first page.');
  return c.a;
}
