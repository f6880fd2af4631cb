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
 * - `night`: the nightly scoring began; every entry after it came after that midnight.
 */

export type EvidenceEntry =
  | { v: 1; kind: 'receipt'; at: number; jws: string }
  | { v: 1; kind: 'ack'; at: number; iss: string; receipt_id: string; ack_sha256: string }
  | { v: 1; kind: 'member'; at: number; domain: string; origin: string }
  | { v: 1; kind: 'night'; at: number; night: string };

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
