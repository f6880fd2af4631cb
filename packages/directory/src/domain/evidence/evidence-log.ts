/**
 * Appending to the evidence log (docs/verifiable-order.md "What is logged"), always in the
 * transaction of what the entry records: a receipt counted, an acknowledgement, a member verified,
 * a night's scoring begun, a check's found listing written or withdrawn. An entry's time is when it reached the network, never lower than the
 * entry before it (the log's turn, taken until commit, gives the floor), and the thing it records
 * carries that same time (a receipt's arrival, an acknowledgement's, a member's verification), so
 * the reputation computed from the records is the one computed from the log.
 */
import { encodeEntry, leafHash, siteOf, type CheckedDoor, type EvidenceEntry } from '@svc/verify';
import type { DirectoryStore } from '../../store/store.js';

export const receiptRef = (domain: string, receiptId: string) => `r ${domain} ${receiptId}`;
export const ackRef = (domain: string, receiptId: string) => `a ${domain} ${receiptId}`;
export const memberRef = (domain: string) => `m ${domain}`;
export const nightRef = (night: string) => `n ${night}`;
/** A site's checks are many: each is its own thing, by its place in the log. */
export const checkRef = (site: string, index: number) => `c ${site} ${index}`;

/** The log's next place and the time an entry there carries (at least `candidateAt`); holds the log until the transaction ends. */
export async function evidenceTurn(store: DirectoryStore, candidateAt: number): Promise<{ index: number; at: number }> {
  const next = await store.evidence.next();
  return { index: next.index, at: Math.max(candidateAt, next.minAt) };
}

/** Writes the entry at the turn taken; false when the log records that thing already. */
export async function writeEvidence(store: DirectoryStore, turn: { index: number }, ref: string, entry: EvidenceEntry): Promise<boolean> {
  const text = encodeEntry(entry);
  return store.evidence.append({ index: turn.index, at: entry.at, kind: entry.kind, ref, entry: text, leafHash: leafHash(text) });
}

/** Takes a turn and writes what `make` gives for its time; null when the log records that thing already. */
export async function appendEvidence(store: DirectoryStore, ref: string, candidateAt: number, make: (at: number) => EvidenceEntry): Promise<{ index: number; at: number } | null> {
  const turn = await evidenceTurn(store, candidateAt);
  return (await writeEvidence(store, turn, ref, make(turn.at))) ? turn : null;
}

/** A member verified: its time in the log is its verification time (the hold after verification counts from it). */
export async function recordMember(store: DirectoryStore, domain: string, origin: string, candidateAt: number): Promise<number> {
  const known = await store.evidence.byRef(memberRef(domain));
  if (known) return known.at;
  const turn = await appendEvidence(store, memberRef(domain), candidateAt, (at) => ({ v: 1, kind: 'member', at, domain, origin }));
  return turn ? turn.at : candidateAt;
}

/**
 * The night's scoring begins: an entry after every one that reached the network before its midnight
 * (which have all committed once this one holds the log's turn), so nothing after it can be dated
 * before the midnight (whatever a node's clock says).
 */
export async function recordNightBegun(store: DirectoryStore, night: string, scoringTime: number, nowMs: number): Promise<void> {
  await appendEvidence(store, nightRef(night), Math.max(nowMs, scoringTime), (at) => ({ v: 1, kind: 'night', at, night }));
}

/**
 * A check's result as the hour's order reads it (docs/verifiable-order.md): the found listing of the
 * site (its id and doors) while it is listed, else null. Take the turn (`evidenceTurn`) before the
 * listing is written, so the log's turn is always taken before the listings' (as receipts take it).
 */
export async function writeCheck(store: DirectoryStore, turn: { index: number; at: number }, domain: string, listed: { id: string; doors: readonly CheckedDoor[] } | null): Promise<void> {
  const site = siteOf(domain);
  const doors = listed ? listed.doors.map((d) => ({ type: d.type, level: d.level, status: d.status })) : [];
  await writeEvidence(store, turn, checkRef(site, turn.index), { v: 1, kind: 'check', at: turn.at, site, listing: listed?.id ?? null, doors });
}
