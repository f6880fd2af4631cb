/**
 * A search answer's bytes from the stored pages of its listings and what the search decided for
 * each (its place, why, distance, open now). Written the same way on the server's thread and on an
 * answer worker (workers/), so both give the same bytes.
 */
import { JsonBytes, assembleListingBytes, type StoredListingPage } from '../listings/listing-page.js';
import type { MomentViewOptions } from '../listings/listing-view.js';
import type { PlacementFacts } from '../ranking/hourly-order.js';

/** What every listing of an answer shares: the moment and the rules in force. */
export interface AnswerMoment {
  nowMs: number;
  answeringHours: number;
  rulesVersion: number;
  rulesUrl: string;
}

/** One listing of an answer, with what the search decided for it. */
export interface PlacedListing {
  seq: number;
  rankPos: number;
  distanceKm?: number | undefined;
  openNow: boolean | null;
  /** The day's shuffle key and what the hour's order placed it by (its why is written from them); absent when the hour's tables do not know the listing. */
  placement?: { shuffle: string; facts: PlacementFacts } | undefined;
}

/** An answer that can be assembled from stored pages alone (every listing placed from the hour's tables). */
export interface AnswerPlan {
  moment: AnswerMoment;
  listings: PlacedListing[];
  nextCursor: string | null;
}

/** Assembles answers elsewhere (a worker thread); null when it cannot (a page missing or stale, the worker gone). */
export interface AnswerAssembler {
  assemble(plan: AnswerPlan): Promise<Buffer | null>;
}

export function writeAnswerHead(out: JsonBytes): void {
  out.text('{"businesses":[');
}

export function writeAnswerTail(out: JsonBytes, nextCursor: string | null): void {
  out.text(`],"next_cursor":${JSON.stringify(nextCursor)}}`);
}

/** The moment a listing's view is rendered at, with its place in the order. */
export function momentOfListing(moment: AnswerMoment, listing: PlacedListing, placement = listing.placement): MomentViewOptions {
  // Spelled out: on Node 20 an object spread followed by more properties takes V8's slow path (~5 µs a listing).
  return {
    nowMs: moment.nowMs,
    answeringHours: moment.answeringHours,
    rulesVersion: moment.rulesVersion,
    rulesUrl: moment.rulesUrl,
    openNow: listing.openNow,
    placement: placement ? { rankPos: listing.rankPos, shuffle: placement.shuffle, facts: placement.facts } : undefined,
    distanceKm: listing.distanceKm,
  };
}

/** The whole answer from the listings' pages, written; null when a page is missing (the caller renders that listing from its document). */
export function assembleAnswer(plan: AnswerPlan, pages: ReadonlyMap<number, StoredListingPage>): JsonBytes | null {
  for (const listing of plan.listings) if (!pages.has(listing.seq)) return null;
  const out = new JsonBytes();
  writeAnswerHead(out);
  plan.listings.forEach((listing, i) => {
    if (i > 0) out.text(',');
    const page = pages.get(listing.seq) as StoredListingPage;
    assembleListingBytes(page.fixed, page, momentOfListing(plan.moment, listing), out);
  });
  writeAnswerTail(out, plan.nextCursor);
  return out;
}
