/**
 * A listing's row in the listings table, but its revisions: what every writer of a listing stores,
 * computed from the listing alone (the bulk load computes it on its worker threads too).
 */
import { levelRank, listingLevel, type ListingRecord } from '../../domain/listings/listing.js';
import { isListed } from '../../domain/listings/regulated.js';

export function listingColumns(l: Omit<ListingRecord, 'seq'>) {
  // Not gone, not set aside, and not a non-member in a regulated category (regulated.ts).
  const listed = isListed(l) ? 1 : 0;
  const live = l.doors.filter((d) => d.status === 'live');
  return {
    id: l.id,
    domain: l.domain,
    source: l.source,
    kind: l.kind,
    document: JSON.stringify(l),
    listed,
    delisted_at: l.delistedAt,
    dormant_since: l.dormantSince,
    verified_at: l.verifiedAt,
    last_ping_at: l.lastPingAt,
    level: levelRank(listingLevel(l.doors)),
    agent_door: live.some((d) => d.type !== 'inbox' && levelRank(d.level) >= levelRank('askable')) ? 1 : 0,
    content_at: l.updatedAt,
    updated_at: l.updatedAt,
  };
}

export type ListingColumns = ReturnType<typeof listingColumns>;
