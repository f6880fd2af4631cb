/**
 * One business's view (GET /v1/businesses/{domain}, its page and get_business over MCP), kept
 * between reads: reading the listing, parsing its document and drawing its view cost most of a
 * business page (docs/web.md "Budgets"). A kept view is served while all it was drawn from holds:
 *
 * - the listings' revision, read before the listing (every write of any listing moves it: a ping,
 *   an owner's update, a receipt, a reputation, a door's check; kept in memory until a write on
 *   SQLite, read from the table on each call on PostgreSQL, so another process's write counts too).
 *   When it moved, the listing's own revision (one indexed read, no document) and its place in the
 *   hour's order say whether the write was of another listing: then the view still holds;
 * - the hour's state it was placed with (its place and why; none while the hour is being prepared);
 * - the moment, up to `validUntilMs`: the earliest instant any part drawn from the clock can read
 *   otherwise (momentHoldsUntil below).
 *
 * Bounded: at most MAX_KEPT views and MAX_KEPT_BYTES of their JSON; the oldest go first. A kept view
 * is a frozen copy of the one drawn (its JSON parsed back), so no caller can change what the next
 * one gets, and its JSON bytes go with it to the HTTP door (rendered-answer.ts).
 */
import { BoundedKeep, deepFreeze } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import { answersNow } from '../listings/answering.js';
import type { ListingRecord } from '../listings/listing.js';
import { HOUR_MS, hourStartOf } from '../ranking/hourly-order.js';
import { PUBLISHED_RULES, firstInstantAfter, rulesInForce, type PublishedRules } from '../ranking/rules.js';
import { zoneReadingHoldsUntil } from './hours.js';
import { keepRenderedBytes } from './rendered-answer.js';
import type { DirectorySearch, HourState } from './search-service.js';

const MAX_KEPT = 1_000;
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

export type BusinessView = Readonly<Record<string, unknown>>;

interface KeptView {
  /** The listings' revision it was last found true at. */
  revision: number;
  /** Its own listing's (revisionOf), read before the listing. */
  listingRevision: number | null;
  seq: number;
  rankPos: number | null;
  /** The hour's state it was placed with (stateIdOf; 0: none), by number: a kept view must not hold an old hour's index. */
  stateId: number;
  /** The view holds from the moment it was drawn (a clock set back draws it again) until before validUntilMs. */
  fromMs: number;
  validUntilMs: number;
  view: BusinessView;
  bytes: number;
}

export class BusinessViews {
  readonly #ctx: DirectoryContext;
  readonly #search: DirectorySearch;
  readonly #kept = new BoundedKeep<KeptView>({ maxEntries: MAX_KEPT, maxSize: MAX_KEPT_BYTES, sizeOf: (kept) => kept.bytes });

  constructor(ctx: DirectoryContext, search: DirectorySearch) {
    this.#ctx = ctx;
    this.#search = search;
  }

  /**
   * The detail view of the business at `domain` (already in its normal form) at this moment;
   * `admit` refuses a listing that is not shown (it throws) and is asked on every drawing.
   */
  async read(domain: string, admit: (listing: ListingRecord | null) => ListingRecord): Promise<BusinessView> {
    const listings = this.#ctx.store.listings;
    const nowMs = this.#ctx.clock.now();
    // Read before the listing: a write landing after them leaves revisions no later read equals.
    const revision = await listings.revision();
    const state = await this.#search.current(nowMs);
    const stateId = stateIdOf(state);
    const kept = this.#kept.get(domain);
    let listingRevision: number | null | undefined;
    if (kept && kept.stateId === stateId && nowMs >= kept.fromMs && nowMs < kept.validUntilMs) {
      if (kept.revision === revision) return kept.view;
      // Another listing was written (a member's ping, somewhere): this view holds if its own listing
      // was not, and its place in the hour's order is the one it shows.
      listingRevision = await listings.revisionOf(domain);
      if (listingRevision === kept.listingRevision && (state ? state.index.rankPosOf(kept.seq) : null) === kept.rankPos) {
        kept.revision = revision;
        return kept.view;
      }
    }

    // Read once per call, before the listing, whichever way it got here.
    if (listingRevision === undefined) listingRevision = await listings.revisionOf(domain);
    const listing = admit(await listings.byDomain(domain));
    const rankPos = state ? state.index.rankPosOf(listing.seq) : null;
    const json = JSON.stringify(this.#search.view(listing, state, nowMs, { rankPos, detail: true }));
    const view = deepFreeze(JSON.parse(json) as Record<string, unknown>);
    const bytes = Buffer.from(json, 'utf8');
    keepRenderedBytes(view, bytes);
    const rules = state?.rules ?? rulesInForce(nowMs);
    const validUntilMs = momentHoldsUntil(listing, state, rules, nowMs);
    this.#kept.set(domain, { revision, listingRevision, seq: listing.seq, rankPos, stateId, fromMs: nowMs, validUntilMs, view, bytes: bytes.length });
    return view;
  }

  /**
   * Whether read(domain) would hand `view` back now, known without waiting: the listings' revision
   * kept in memory unchanged (never on PostgreSQL), the same hour's state, the moment within the
   * view's. A page replayed in front of the framework (shared answer-replay.ts) is replayed only
   * while this holds; when another listing was written, read() decides again.
   */
  holds(domain: string, view: object): boolean {
    const kept = this.#kept.get(domain);
    if (kept?.view !== view) return false;
    const nowMs = this.#ctx.clock.now();
    if (nowMs < kept.fromMs || nowMs >= kept.validUntilMs) return false;
    if (this.#ctx.store.listings.peekRevision() !== kept.revision) return false;
    const state = this.#search.peek();
    return stateIdOf(state && state.hourStart === hourStartOf(nowMs) ? state : null) === kept.stateId;
  }
}

/**
 * The earliest instant after `nowMs` at which a part of the view drawn from the clock can read
 * otherwise (listing-view.ts, why-now.ts):
 * - its place and why belong to the hour's order (and `why` names the hour); without the hour's
 *   state, the rules in force by date name the reputation's rules;
 * - open now and the closures still shown (the local date) read the business's zone at the minute;
 * - a member answering (with its doors, level and why) stops the instant its last ping leaves the
 *   answering window. One not answering answers again only with a ping: a write.
 * Nothing else in the view reads the clock: its dates are the listing's own (last ping, checks,
 * facts) and `not_answering_since` is drawn from them.
 */
export function momentHoldsUntil(listing: ListingRecord, state: HourState | null, rules: PublishedRules, nowMs: number): number {
  let until = state ? state.hourStart + HOUR_MS : Math.min(hourStartOf(nowMs) + HOUR_MS, nextRulesAt(nowMs));
  if (listing.hours) until = Math.min(until, zoneReadingHoldsUntil(listing.hours.timezone, nowMs));
  const windowMs = rules.numbers.answeringHours * HOUR_MS;
  if (listing.lastPingAt !== null && answersNow(listing, nowMs, rules.numbers.answeringHours)) until = Math.min(until, listing.lastPingAt + windowMs + 1);
  return until;
}

/** When the next published rules come into force (Infinity when none is announced). */
function nextRulesAt(nowMs: number): number {
  return firstInstantAfter(
    PUBLISHED_RULES.map((rules) => rules.effectiveAt),
    nowMs,
  );
}

/** A number for each hour's state this process made: a new state (a new hour, or one prepared again) gets a new one. */
const stateIds = new WeakMap<HourState, number>();
let lastStateId = 0;

function stateIdOf(state: HourState | null): number {
  if (!state) return 0;
  let id = stateIds.get(state);
  if (id === undefined) stateIds.set(state, (id = ++lastStateId));
  return id;
}
