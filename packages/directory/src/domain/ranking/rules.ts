/**
 * The published ranking rules (directory spec §4 GET /v1/ranking, §9). Every number the hourly order
 * uses is in these documents; the code reads its numbers from here, so what is published is what runs.
 * Versions are announced at least 15 days before they take effect; any version ever published stays readable.
 */

export interface RulesNumbers {
  /** A member answers when its inbox pinged within this many hours before the snapshot. */
  answeringHours: number;
  /** Reputation score from which a business is ranked (sorted by score before the shuffle). */
  rankedFrom: number;
  rankedFromInt: number;
  /** Default and largest `radius_km` of a near search. */
  radiusKmDefault: number;
  radiusKmMax: number;
  /** Members come before every non-member (until rules 7). */
  membersFirst: boolean;
  /** `category` that resolves to nothing: matches tags (before 7) or is refused (from 7). */
  strictCategory: boolean;
  /** `order=nearest` is available (from 7). */
  nearest: boolean;
}

export interface PublishedRules {
  version: number;
  publishedAt: string;
  effectiveAt: string;
  summary: string;
  numbers: RulesNumbers;
  /** The order in plain words, as published. */
  orderWords: string[];
  /** The same order as sort keys, each naming the listing fields it reads, so a client can recompute a page's order. */
  orderKeys: OrderKey[];
}

/** One sort key of the order: what it reads of a listing as shown, and which way it sorts. */
export interface OrderKey {
  key: string;
  reads: string[];
  sort: string;
}

/** Editorial revisions of the published texts: what a rules document says, never what it does. */
export const TEXT_REVISIONS: readonly { at: string; note: string }[] = Object.freeze([
  {
    at: '2026-11-25',
    note: 'The listing id the shuffle hashes and the last tie-break compares is now shown on every listing as `id`, and the order is also given as sort keys naming the listing fields they read (order.keys). The order itself did not change.',
  },
  {
    at: '2026-11-26',
    note: 'How reputation is computed is now published in full under score: the evidence (signed receipts and their acknowledgements), every weight (outcome, evidence, age, repeat customers), the word cap, the hold after verification, the tiers and the nightly snapshot. Scores are computed from receipts from now on; before, no receipt had reached the network and every score was 0. The order\'s rule (ranked businesses by score, from 0.40) did not change.',
  },
]);

const SHUFFLE_KEY: OrderKey = {
  key: 'rank_shuffle',
  reads: ['rank_shuffle'],
  sort: 'ascending, compared as a string (see order.rank_shuffle for how it is computed from id)',
};
const RANKED_KEY: OrderKey = {
  key: 'reputation',
  reads: ['reputation.ranked', 'reputation.score'],
  sort: 'ranked first (a listing without reputation is not ranked); ranked ones by floor(score × 10000 + 0.5), highest first',
};
const ID_KEY: OrderKey = { key: 'id', reads: ['id'], sort: 'ascending, compared as a string' };
/** Answering at the snapshot, as a listing shows it. */
const ANSWERING = 'source is member and last_ping_at is at most answering_hours (24) before the snapshot (the start of the hour of rank_pos)';

const COMMON = {
  answeringHours: 24,
  rankedFrom: 0.4,
  rankedFromInt: 4000,
  radiusKmDefault: 10,
  radiusKmMax: 1000,
};

export const PUBLISHED_RULES: readonly PublishedRules[] = Object.freeze([
  {
    version: 6,
    publishedAt: '2026-10-07T00:00:00Z',
    effectiveAt: '2026-10-07T00:00:00Z',
    summary:
      'One order for everyone, frozen every hour: members first, members whose inbox answered in the last day before the others, ranked businesses by reputation, everyone else by the day\'s shuffle.',
    numbers: { ...COMMON, membersFirst: true, strictCategory: false, nearest: false },
    orderWords: [
      'members (businesses listed through their own inbox) before every business that is not a member',
      'then members whose inbox answered (pinged) in the 24 hours before the snapshot',
      'then ranked businesses (reputation score at least 0.40) by score, highest first',
      'then by the day\'s shuffle key, ascending',
      'then by listing id (the listing\'s id field)',
    ],
    orderKeys: [
      { key: 'member', reads: ['source'], sort: 'source member first' },
      { key: 'answering', reads: ['source', 'last_ping_at'], sort: `answering first: ${ANSWERING}` },
      RANKED_KEY,
      SHUFFLE_KEY,
      ID_KEY,
    ],
  },
  {
    version: 7,
    publishedAt: '2026-11-20T00:00:00Z',
    effectiveAt: '2026-12-07T00:00:00Z',
    summary:
      'Members and other agent-ready businesses share one order; a category that matches nothing is refused with candidates; order=nearest sorts a near search by distance.',
    numbers: { ...COMMON, membersFirst: false, strictCategory: true, nearest: true },
    orderWords: [
      'businesses that can be reached now first: members whose inbox answered in the last 24 hours, and businesses with a live agent door',
      'among those reached through other doors, the higher readiness level first (payable, then bookable, then askable)',
      'then ranked businesses (reputation score at least 0.40) by score, highest first',
      'then by the day\'s shuffle key, ascending',
      'then members before other listings, then by listing id (the listing\'s id field)',
    ],
    orderKeys: [
      {
        key: 'reach',
        reads: ['source', 'last_ping_at', 'doors'],
        sort: `ascending: 1 when ${ANSWERING}; else 2 when a door has status live, a type other than inbox and level askable or above; else 3`,
      },
      { key: 'level', reads: ['level'], sort: 'for reach 2 only: payable, then bookable, then askable' },
      RANKED_KEY,
      SHUFFLE_KEY,
      { key: 'member', reads: ['source'], sort: 'source member first' },
      ID_KEY,
    ],
  },
]);

/**
 * The first of these instants (ISO texts) after `nowMs`: when what was drawn at `nowMs` from the
 * versions' dates can first read otherwise. Infinity when none is to come.
 */
export function firstInstantAfter(instants: Iterable<string>, nowMs: number): number {
  let first = Number.POSITIVE_INFINITY;
  for (const instant of instants) {
    const at = Date.parse(instant);
    if (at > nowMs && at < first) first = at;
  }
  return first;
}

export function rulesByVersion(version: number): PublishedRules | null {
  return PUBLISHED_RULES.find((r) => r.version === version) ?? null;
}

/** The version in force at an instant: the newest whose effective date has come. */
export function rulesInForce(nowMs: number): PublishedRules {
  let current = PUBLISHED_RULES[0] as PublishedRules;
  for (const rules of PUBLISHED_RULES) if (Date.parse(rules.effectiveAt) <= nowMs && rules.version > current.version) current = rules;
  return current;
}

/** The announced next version (published, not yet in force), if any. */
export function announcedRules(nowMs: number): PublishedRules | null {
  return PUBLISHED_RULES.find((r) => Date.parse(r.publishedAt) <= nowMs && Date.parse(r.effectiveAt) > nowMs) ?? null;
}

export function rulesStatus(rules: PublishedRules, nowMs: number): 'announced' | 'in_force' | 'retired' {
  if (Date.parse(rules.effectiveAt) > nowMs) return 'announced';
  return rulesInForce(nowMs).version === rules.version ? 'in_force' : 'retired';
}
