/**
 * The hour's search index kept true to every write since it was built (directory spec §4: "a cached
 * answer may be a few minutes old", never an hour). The index is built when the hour's order is
 * prepared; a listing written since (a manifest checked again with new hours, a door marked failing,
 * a new member) is read again from storage and searched in a small second index laid out in the same
 * order, while the big one leaves it out; a ping only moves the member's last ping, which the big
 * index keeps in place. Each search first reads what was written since the last one (the store's
 * change feed, a few microseconds when nothing was), so a listing's detail view and a fresh search
 * page say the same thing about it at once. The order itself stays frozen for the hour: a listing
 * keeps its place, and one added since comes after every listing of the order.
 */
import type { ListingRecord } from '../listings/listing.js';
import type { ListingStore } from '../../store/store.js';
import type { Exclusion, SearchHit, SearchIndex, SearchIndexStats, SearchPage, SearchQuery } from './search-index.js';

/** Change feed rows read per round. */
const FEED_ROUND = 1_000;

/** Builds an index of a few listings in their sequence of the hour's order, each at its place there, those it lacks after `end` (SearchIndex.placesOf). */
export type SmallIndexBuilder = (listings: ListingRecord[], order: Int32Array, places: Int32Array, end: number) => SearchIndex;

export class LiveIndex {
  /** The index built with the hour's state. */
  readonly main: SearchIndex;
  /** Writes whose content revision is above this are not in `main`. */
  readonly builtRevision: number;
  readonly #build: SmallIndexBuilder;
  #seen: number;
  /** The last write applied that changed what search reads (pings and receipts do not): what cached answers are kept by. */
  #contentSeen: number;
  /** Listings written since `main` was built: their current record, or null when it is no longer stored. */
  readonly #changed = new Map<number, ListingRecord | null>();
  #overlay: SearchIndex | null = null;
  #exclusion: Exclusion | null = null;
  #following: Promise<void> | null = null;

  /** `seen`: the last write already applied (the big index's, or one read since). */
  constructor(main: SearchIndex, builtRevision: number, seen: number, build: SmallIndexBuilder) {
    this.main = main;
    this.builtRevision = builtRevision;
    this.#seen = seen;
    this.#contentSeen = builtRevision;
    this.#build = build;
  }

  /** The last write applied. */
  get seen(): number {
    return this.#seen;
  }

  /**
   * The last content change applied: an answer computed at one mark still says what a fresh one
   * would (but for pings, receipts and the moment, which the contract lets it lag) while the mark holds.
   */
  get contentSeen(): number {
    return this.#contentSeen;
  }

  /** Whether a listing's content changed since `main` was built. */
  get changed(): boolean {
    return this.#changed.size > 0;
  }

  get size(): number {
    return this.main.size;
  }

  /** The big index's figures (the small one holds only the listings written since). */
  stats(): SearchIndexStats {
    return this.main.stats();
  }

  /** Bytes of the big index's typed arrays by field, and of the small one's in all (`overlay`). */
  memory(): Record<string, number> {
    const out = this.main.memory();
    let overlay = 0;
    for (const bytes of Object.values(this.#overlay?.memory() ?? {})) overlay += bytes;
    out.overlay = overlay;
    return out;
  }

  /** The read of the change feed under way, if one is. */
  get following(): Promise<void> | null {
    return this.#following;
  }

  /** Applies every write made since the last call (one call at a time; a second waits for the first). */
  follow(store: ListingStore): Promise<void> {
    this.#following ??= this.#follow(store).finally(() => {
      this.#following = null;
    });
    return this.#following;
  }

  async #follow(store: ListingStore): Promise<void> {
    const reread = new Set<number>();
    // Moved once the index holds the changes: an answer kept under a mark was searched with them.
    let content = this.#contentSeen;
    for (;;) {
      const rows = await store.changesSince(this.#seen, FEED_ROUND);
      for (const row of rows) {
        if (row.revision > this.#seen) this.#seen = row.revision;
        if (row.contentRevision > content) content = row.contentRevision;
        if (row.contentRevision > this.builtRevision) reread.add(row.seq);
        else if (row.lastPingAt !== null) this.notePing(row.seq, row.lastPingAt);
      }
      if (rows.length < FEED_ROUND) break;
    }
    if (reread.size === 0) return;
    const records = await store.bySeqs([...reread]);
    for (const seq of reread) this.#changed.set(seq, records.get(seq) ?? null);
    const current: ListingRecord[] = [];
    for (const record of this.#changed.values()) if (record) current.push(record);
    this.#overlay = current.length > 0 ? this.#small(this.main, current) : null;
    this.#exclusion = this.main.excluding(this.#changed.keys());
    this.#contentSeen = content;
  }

  /** The listings written since `main` was built, with their current records (null: no longer stored). */
  changes(): ReadonlyMap<number, ListingRecord | null> {
    return this.#changed;
  }

  /** How many listings were written since `main` was built (the small index's share). */
  get changedCount(): number {
    return this.#changed.size;
  }

  /**
   * This index in another hour's order without building it again (the hour's change): `main` is
   * the big index given that order (SearchIndex.withOrder: the same listings re-laid, no text read);
   * the listings written since it was built stay in the small index, laid out in the new order, so
   * each takes its new place. Searches answer as an index built afresh with that order would.
   * `placedAgain`: listings whose content did not change but whose place did (`main` placed by an
   * order prepared ahead, SearchIndex.placedBy): searched in the small index too, at their new place.
   * Call after `follow`, with nothing else following meanwhile.
   */
  carriedTo(main: SearchIndex, placedAgain: ReadonlyMap<number, ListingRecord | null> = new Map()): LiveIndex {
    const next = new LiveIndex(main, this.builtRevision, this.#seen, this.#build);
    next.#contentSeen = this.#contentSeen;
    for (const [seq, record] of this.#changed) next.#changed.set(seq, record);
    for (const [seq, record] of placedAgain) next.#changed.set(seq, record);
    if (next.#changed.size > 0) {
      const current: ListingRecord[] = [];
      for (const record of next.#changed.values()) if (record) current.push(record);
      next.#overlay = current.length > 0 ? next.#small(main, current) : null;
      next.#exclusion = main.excluding(next.#changed.keys());
    }
    return next;
  }

  /** The small index of these listings, each at its place in the big index's order. */
  #small(main: SearchIndex, listings: ListingRecord[]): SearchIndex {
    const { order, places, end } = main.placesOf(listings.map((l) => l.seq));
    return this.#build(listings, order, places, end);
  }

  notePing(seq: number, atMs: number): void {
    this.main.notePing(seq, atMs);
    this.#overlay?.notePing(seq, atMs);
  }

  /** 1-based place of the listing in the hour's order; null when it is not listed. */
  rankPosOf(seq: number): number | null {
    if (this.#changed.has(seq)) return this.#overlay?.rankPosOf(seq) ?? null;
    return this.main.rankPosOf(seq);
  }

  search(query: SearchQuery): SearchPage {
    const overlay = this.#overlay;
    if (this.#exclusion === null) return this.main.search(query);
    const main: SearchQuery = { ...query, exclude: this.#exclusion };
    if (!overlay) return this.main.search(main);
    const fresh: SearchQuery = { ...query, exclude: undefined };
    const limit = Math.max(1, Math.min(100, Math.floor(query.limit) || 1));
    if (query.order === 'nearest') {
      // `after` is an offset into the merged list: both heads, merged by distance then place
      const offset = Math.max(0, Math.floor(query.after));
      const want = offset + limit;
      const a = this.main.search({ ...main, after: 0, limit: want, anyLimit: true });
      const b = overlay.search({ ...fresh, after: 0, limit: want, anyLimit: true });
      const merged = [...a.hits, ...b.hits].sort((x, y) => (x.distanceKm ?? 0) - (y.distanceKm ?? 0) || x.rankPos - y.rankPos);
      const more = merged.length > want || a.next !== null || b.next !== null;
      return { hits: merged.slice(offset, want), next: more ? want : null };
    }
    const a = this.main.search(main);
    const b = overlay.search(fresh);
    const merged: SearchHit[] = [...a.hits, ...b.hits].sort((x, y) => x.rankPos - y.rankPos);
    const hits = merged.slice(0, limit);
    const more = merged.length > limit || a.next !== null || b.next !== null;
    const last = hits[hits.length - 1];
    return { hits, next: more && last ? last.rankPos - 1 : null };
  }
}
