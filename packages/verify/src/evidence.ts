/**
 * The entries of a network's evidence log (docs/verifiable-order.md): what the reputation is
 * computed from, one JSON object per entry, kept and served as the exact bytes that were hashed.
 * Every entry has `v`, `kind` and `at` (when it reached the network, ms since the epoch; never
 * lower than the entry before it). Nothing personal enters: a receipt carries a pairwise customer
 * pseudonym, an acknowledgement is logged as the hash of its bytes (its agent key is not shown).
 *
 * - `receipt`: a receipt the network counts, the compact JWS as the inbox published it;
 * - `ack`: the customer's acknowledgement of a receipt held (`iss`, `receipt_id`), as its SHA-256;
 * - `member`: an inbox verified as a member (`domain`, `origin`): scoring counts from here;
 * - `night`: the nightly scoring began; every entry after it came after that midnight;
 * - `check`: a check's result as the hour's order reads it, written when it lists, changes or withdraws
 *   a found listing: `site` (SHA-256 of the registrable domain, base64url, so a site its owner hides or
 *   the operator suppresses is never named), `listing` (the listing's id while it is listed, else
 *   null) and each door of the listing with its level and whether it is live.
 */
import { createHash } from 'node:crypto';

/** Readiness levels, in rank order (listed 0 … payable 4). */
export const DOOR_LEVELS = ['listed', 'readable', 'askable', 'bookable', 'payable'] as const;
export type DoorLevel = (typeof DOOR_LEVELS)[number];

export interface CheckedDoor {
  /** The door's type (`inbox`, `mcp`, `a2a`, `openapi`, …). */
  type: string;
  level: DoorLevel;
  status: 'live' | 'failing';
}

export type EvidenceEntry =
  | { v: 1; kind: 'receipt'; at: number; jws: string }
  | { v: 1; kind: 'ack'; at: number; iss: string; receipt_id: string; ack_sha256: string }
  | { v: 1; kind: 'member'; at: number; domain: string; origin: string }
  | { v: 1; kind: 'night'; at: number; night: string }
  | { v: 1; kind: 'check'; at: number; site: string; listing: string | null; doors: CheckedDoor[] };

export type EvidenceKind = EvidenceEntry['kind'];

/** The entry's bytes: keys in a fixed order, no spaces. */
export function encodeEntry(entry: EvidenceEntry): string {
  switch (entry.kind) {
    case 'receipt':
      return JSON.stringify({ v: 1, kind: 'receipt', at: entry.at, jws: entry.jws });
    case 'ack':
      return JSON.stringify({ v: 1, kind: 'ack', at: entry.at, iss: entry.iss, receipt_id: entry.receipt_id, ack_sha256: entry.ack_sha256 });
    case 'member':
      return JSON.stringify({ v: 1, kind: 'member', at: entry.at, domain: entry.domain, origin: entry.origin });
    case 'night':
      return JSON.stringify({ v: 1, kind: 'night', at: entry.at, night: entry.night });
    case 'check':
      return JSON.stringify({ v: 1, kind: 'check', at: entry.at, site: entry.site, listing: entry.listing, doors: entry.doors.map((d) => ({ type: d.type, level: d.level, status: d.status })) });
  }
}

export class EntryError extends Error {}

const str = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || value.length === 0) throw new EntryError(`${name} is not a string`);
  return value;
};

/** Reads an entry's bytes; refuses any that is not exactly what encodeEntry writes. */
export function parseEntry(bytes: Uint8Array | string): EvidenceEntry {
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8');
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new EntryError('an entry is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || raw.v !== 1 || !Number.isSafeInteger(raw.at) || (raw.at as number) < 0) throw new EntryError('an entry has v 1 and a time');
  const at = raw.at as number;
  let entry: EvidenceEntry;
  switch (raw.kind) {
    case 'receipt':
      entry = { v: 1, kind: 'receipt', at, jws: str(raw.jws, 'jws') };
      break;
    case 'ack':
      entry = { v: 1, kind: 'ack', at, iss: str(raw.iss, 'iss'), receipt_id: str(raw.receipt_id, 'receipt_id'), ack_sha256: str(raw.ack_sha256, 'ack_sha256') };
      break;
    case 'member':
      entry = { v: 1, kind: 'member', at, domain: str(raw.domain, 'domain'), origin: str(raw.origin, 'origin') };
      break;
    case 'night':
      entry = { v: 1, kind: 'night', at, night: str(raw.night, 'night') };
      break;
    case 'check': {
      if (raw.listing !== null && typeof raw.listing !== 'string') throw new EntryError('listing is a string or null');
      if (!Array.isArray(raw.doors)) throw new EntryError('doors is a list');
      const doors = (raw.doors as unknown[]).map((d): CheckedDoor => {
        const door = (d ?? {}) as Record<string, unknown>;
        if (!DOOR_LEVELS.includes(door.level as DoorLevel)) throw new EntryError(`a door's level is one of ${DOOR_LEVELS.join(', ')}`);
        if (door.status !== 'live' && door.status !== 'failing') throw new EntryError('a door\'s status is live or failing');
        return { type: str(door.type, 'type'), level: door.level as DoorLevel, status: door.status };
      });
      entry = { v: 1, kind: 'check', at, site: str(raw.site, 'site'), listing: raw.listing === null ? null : str(raw.listing, 'listing'), doors };
      break;
    }
    default:
      throw new EntryError(`an entry of an unknown kind: ${String(raw.kind)}`);
  }
  if (encodeEntry(entry) !== text) throw new EntryError('an entry is not in its one written form');
  return entry;
}

/** The claims of a receipt's compact JWS, read without checking its signature. */
export function receiptClaimsOf(jws: string): Record<string, unknown> {
  const parts = jws.split('.');
  if (parts.length !== 3) throw new EntryError('a receipt is a compact JWS');
  try {
    return JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new EntryError('a receipt\'s payload is not JSON');
  }
}

/** A site as check entries name it: SHA-256 of its registrable domain (lower case), base64url. */
export function siteOf(domain: string): string {
  return createHash('sha256').update(domain.toLowerCase(), 'utf8').digest('base64url');
}

/**
 * What the hour's order reads of a listing's doors (GET /v1/ranking, rules 7): its level, the highest
 * level of a live door (listed 0 when none), and whether it has a live agent door other than an inbox
 * at askable or above (reach 2 for a business whose inbox did not answer, else 3).
 */
export function doorPlacement(doors: readonly CheckedDoor[]): { level: number; agentDoor: boolean } {
  let level = 0;
  let agentDoor = false;
  for (const d of doors) {
    if (d.status !== 'live') continue;
    const rank = DOOR_LEVELS.indexOf(d.level);
    if (rank > level) level = rank;
    if (d.type !== 'inbox' && rank >= DOOR_LEVELS.indexOf('askable')) agentDoor = true;
  }
  return { level, agentDoor };
}
