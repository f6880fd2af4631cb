/**
 * Whether a member answers now, and its doors as they stand now (directory spec §2 `answering`, Door
 * `status`, §3 readiness levels, §4 stats: "a member's own inbox counts as an inbox door while it
 * answers, that is pinged in the last 24 hours"). A member's own inbox is a live door while the member
 * answers: it pinged within the answering window and its last manifest check did not fail. Every
 * field that shows or filters on a member's door, level, `answering` or `why` reads these, so they
 * cannot disagree at any moment (the hour's order itself stays frozen).
 */
import { isAnswering } from '../ranking/hourly-order.js';
import type { Door, ListingRecord } from './listing.js';

/** What answering reads of a listing. */
export type AnsweringFields = Pick<ListingRecord, 'source' | 'lastPingAt'> & { readonly doors: readonly Door[] };

/** A member's own inbox: the inbox door of a member (the door its pings and manifest checks are about). */
export function isOwnInbox(listing: Pick<ListingRecord, 'source'>, door: Pick<Door, 'type'>): boolean {
  return listing.source === 'member' && door.type.toLowerCase() === 'inbox';
}

/** The member's own inbox failed its last manifest check (the directory marks it failing until one succeeds). */
export function ownInboxFailing(listing: AnsweringFields): Door | undefined {
  return listing.doors.find((d) => isOwnInbox(listing, d) && d.status === 'failing');
}

/** A member answers now: pinged within the window, and its own inbox not failing its manifest check. */
export function answersNow(listing: AnsweringFields, nowMs: number, answeringHours: number): boolean {
  return isAnswering(listing, nowMs, answeringHours) && ownInboxFailing(listing) === undefined;
}

/** The doors as they stand now: a member's own inbox is live only while the member answers. */
export function doorsNow<D extends Door>(listing: Pick<ListingRecord, 'source'> & { readonly doors: readonly D[] }, answering: boolean): readonly D[] {
  if (listing.source !== 'member' || answering) return listing.doors;
  return listing.doors.map((d) => (isOwnInbox(listing, d) && d.status === 'live' ? { ...d, status: 'failing' as const } : d));
}

/**
 * Since when a member has not answered (null while it answers, and for a business that is not a
 * member): the end of its last ping's window, or when its inbox failed its manifest check when that
 * came first; without a ping, when it was verified or listed.
 */
export function notAnsweringSince(
  listing: AnsweringFields & Pick<ListingRecord, 'verifiedAt' | 'createdAt'>,
  answering: boolean,
  answeringHours: number,
): number | null {
  if (listing.source !== 'member' || answering) return null;
  const pingEnds = listing.lastPingAt !== null ? listing.lastPingAt + answeringHours * 3_600_000 : (listing.verifiedAt ?? listing.createdAt);
  const failing = ownInboxFailing(listing);
  if (!failing) return pingEnds;
  // The door's check date is when it failed; a failing door without one has failed since it was verified.
  const checked = failing.checkedAt ? Date.parse(failing.checkedAt) : Number.NaN;
  return Math.min(pingEnds, Number.isFinite(checked) ? checked : (listing.verifiedAt ?? listing.createdAt));
}
