/**
 * The `directory` block of GET /v1/stats: counts only, never a name or domain, taken when the search
 * index is built (at most hourly, so never more often than every ten minutes).
 */
import { answersNow, doorsNow } from '../listings/answering.js';
import { levelRank, listingLevel, type Door, type ListingRecord } from '../listings/listing.js';

export const CAPABILITIES = ['message', 'book', 'order', 'cancel', 'change', 'negotiate', 'catalogue', 'availability', 'pay', 'track', 'return'] as const;
export const COUNTED_DOORS = ['inbox', 'mcp', 'a2a', 'openapi', 'ucp', 'acp', 'webmcp'] as const;

export interface DirectoryCounts {
  checked: number;
  agent_ready: number;
  software_and_ai: number;
  capabilities: Record<(typeof CAPABILITIES)[number], number>;
  doors: Record<(typeof COUNTED_DOORS)[number], number>;
  as_of: string;
}

export function emptyCounts(): DirectoryCounts {
  return {
    checked: 0,
    agent_ready: 0,
    software_and_ai: 0,
    capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, 0])) as DirectoryCounts['capabilities'],
    doors: Object.fromEntries(COUNTED_DOORS.map((d) => [d, 0])) as DirectoryCounts['doors'],
    as_of: '0001-01-01T00:00:00Z',
  };
}

/** What a business can do through its live doors (as they stand now), as far as its declarations and item types tell. */
function capabilitiesOf(listing: ListingRecord, doors: readonly Door[]): Set<(typeof CAPABILITIES)[number]> {
  const live = doors.filter((d) => d.status === 'live');
  const kinds = new Set(live.flatMap((d) => d.kinds));
  const caps = new Set<(typeof CAPABILITIES)[number]>();
  if (kinds.has('ask')) caps.add('message');
  if (kinds.has('book')) caps.add('book');
  if (kinds.has('order')) caps.add('order');
  if (kinds.has('pay')) caps.add('pay');
  if (kinds.has('quote')) caps.add('negotiate');
  if (live.some((d) => d.type === 'inbox')) {
    // An inbox lets a customer cancel what it made, and publishes its catalogue and availability.
    caps.add('cancel');
    caps.add('catalogue');
    if (listing.itemTypes.includes('booking')) caps.add('availability');
  }
  return caps;
}

/**
 * What one listing adds to the counts, as bits: checked, agent ready, software and AI, then one bit
 * per capability and one per counted door. A business that is not a member adds the same at every
 * moment (only a member's own inbox follows the clock), so its bits can be kept and taken back.
 */
const CHECKED = 1;
const READY = 2;
const SOFTWARE = 4;
const CAPABILITY_BIT = 3;
const DOOR_BIT = CAPABILITY_BIT + CAPABILITIES.length;

function contributionOf(listing: ListingRecord, nowMs: number, answeringHours: number): number {
  const member = listing.source === 'member';
  let bits = member ? 0 : CHECKED;
  const ready = levelRank(listingLevel(listing.doors)) >= levelRank('askable');
  if (!ready && !member) return bits;
  bits |= READY;
  if (listing.kind === 'software_and_ai') bits |= SOFTWARE;
  const doors = doorsNow(listing, answersNow(listing, nowMs, answeringHours));
  const caps = capabilitiesOf(listing, doors);
  CAPABILITIES.forEach((cap, i) => {
    if (caps.has(cap)) bits |= 1 << (CAPABILITY_BIT + i);
  });
  const types = new Set(doors.filter((d) => d.status === 'live').map((d) => d.type));
  COUNTED_DOORS.forEach((door, i) => {
    if (types.has(door)) bits |= 1 << (DOOR_BIT + i);
  });
  return bits;
}

/** Counts listings one at a time (so they can be streamed past it). */
export class DirectoryCounter {
  readonly #counts = emptyCounts();
  readonly #nowMs: number;
  readonly #answeringHours: number;
  /** What each listing counted with `keep` added (by seq, its bits + 1; 0: none), so a later version can replace it. */
  #kept: Int32Array = new Int32Array(0);

  constructor(nowMs: number, answeringHours: number) {
    this.#nowMs = nowMs;
    this.#answeringHours = answeringHours;
  }

  add(listing: ListingRecord): void {
    this.#apply(contributionOf(listing, this.#nowMs, this.#answeringHours), 1);
  }

  /** Adds a business that is not a member and keeps what it added, for `replace`. */
  keep(listing: ListingRecord): void {
    const bits = contributionOf(listing, this.#nowMs, this.#answeringHours);
    this.#apply(bits, 1);
    this.#keepBits(listing.seq, bits);
  }

  /**
   * Takes back what the listing of `seq` added (when kept) and adds its current version instead:
   * `listing` null when it is no longer counted (gone, delisted, or a member: members are counted each hour).
   */
  replace(seq: number, listing: ListingRecord | null): void {
    const before = seq < this.#kept.length ? this.#kept[seq]! : 0;
    if (before > 0) this.#apply(before - 1, -1);
    if (seq < this.#kept.length) this.#kept[seq] = 0;
    if (listing) this.keep(listing);
  }

  #keepBits(seq: number, bits: number): void {
    if (seq >= this.#kept.length) {
      const grown = new Int32Array(Math.max(seq + 1, this.#kept.length * 2, 1024));
      grown.set(this.#kept);
      this.#kept = grown;
    }
    this.#kept[seq] = bits + 1;
  }

  #apply(bits: number, sign: 1 | -1): void {
    const counts = this.#counts;
    if (bits & CHECKED) counts.checked += sign;
    if (bits & READY) counts.agent_ready += sign;
    if (bits & SOFTWARE) counts.software_and_ai += sign;
    CAPABILITIES.forEach((cap, i) => {
      if (bits & (1 << (CAPABILITY_BIT + i))) counts.capabilities[cap] += sign;
    });
    COUNTED_DOORS.forEach((door, i) => {
      if (bits & (1 << (DOOR_BIT + i))) counts.doors[door] += sign;
    });
  }

  /** A counter starting from these counts, for another instant (`withKept`: and what each listing added, for `replace`). */
  copy(nowMs: number, withKept = false): DirectoryCounter {
    const next = new DirectoryCounter(nowMs, this.#answeringHours);
    const from = this.#counts;
    const to = next.#counts;
    to.checked = from.checked;
    to.agent_ready = from.agent_ready;
    to.software_and_ai = from.software_and_ai;
    Object.assign(to.capabilities, from.capabilities);
    Object.assign(to.doors, from.doors);
    if (withKept) next.#kept = this.#kept.slice();
    return next;
  }

  result(): DirectoryCounts {
    return { ...this.#counts, as_of: new Date(this.#nowMs).toISOString() };
  }

  /** What a snapshot of the index keeps of the counts (index-snapshot.ts): the totals and what each listing added. */
  parts(): { counts: Omit<DirectoryCounts, 'as_of'>; kept: Int32Array } {
    const { as_of: _asOf, ...counts } = this.#counts;
    return { counts: structuredClone(counts), kept: this.#kept };
  }

  /** The counter parts() gave, for another instant. */
  static fromParts(parts: { counts: Omit<DirectoryCounts, 'as_of'>; kept: Int32Array }, nowMs: number, answeringHours: number): DirectoryCounter {
    const counter = new DirectoryCounter(nowMs, answeringHours);
    const to = counter.#counts;
    const from = parts.counts;
    if (!from || typeof from.checked !== 'number' || !from.capabilities || !from.doors) throw new Error('not directory counts');
    to.checked = from.checked;
    to.agent_ready = from.agent_ready;
    to.software_and_ai = from.software_and_ai;
    for (const cap of CAPABILITIES) to.capabilities[cap] = Number(from.capabilities[cap] ?? 0);
    for (const door of COUNTED_DOORS) to.doors[door] = Number(from.doors[door] ?? 0);
    counter.#kept = parts.kept;
    return counter;
  }
}

export function countDirectory(listings: Iterable<ListingRecord>, nowMs: number, answeringHours: number): DirectoryCounts {
  const counter = new DirectoryCounter(nowMs, answeringHours);
  for (const listing of listings) counter.add(listing);
  return counter.result();
}
