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
}

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
      'then by listing id',
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
      'then members before other listings, then by listing id',
    ],
  },
]);

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

/** The document served at GET /v1/ranking?version=n: every number the order uses, the changelog, what comes next. */
export function rulesDocument(rules: PublishedRules, nowMs: number, baseUrl: string) {
  const next = announcedRules(nowMs);
  const n = rules.numbers;
  return {
    version: rules.version,
    status: rulesStatus(rules, nowMs),
    published_at: rules.publishedAt,
    effective_at: rules.effectiveAt,
    summary: rules.summary,
    order: {
      words: rules.orderWords,
      snapshot: 'The order is computed once an hour at :00 UTC and frozen for that hour; every search pages through it.',
      members_first: n.membersFirst,
      answering_hours: n.answeringHours,
      ranked_from: n.rankedFrom,
      ranked_from_int: n.rankedFromInt,
      rank_score_int: 'floor(score × 10000 + 0.5), from the last nightly reputation snapshot',
      rank_shuffle:
        'the first 16 lowercase hexadecimal characters of SHA-256 over "<YYYY-MM-DD>:<listing id in lower case>", with the UTC date of the snapshot; a string, compared as a string',
      rank_pos: 'the place in this hour\'s order, from 1',
      near: { parameter: 'near', radius_km_default: n.radiusKmDefault, radius_km_max: n.radiusKmMax, order: n.nearest ? 'rank, or distance with order=nearest' : 'rank' },
      nearest: n.nearest ? 'order=nearest (needs near): by distance, then by place in the order' : null,
      category: n.strictCategory
        ? 'a group slug or a place category (with every category below it) by id, slug, label or synonym; anything else is refused with 400 category_unresolved and up to 5 candidates'
        : 'a group slug or a place category (with every category below it) by id, slug, label or synonym; anything else matches tags',
      filters: 'every search parameter only leaves businesses out; none moves anyone',
      cursor: 'opaque; bound to the search and to the hour\'s order: another search\'s cursor, or one from an earlier hour, answers 410 cursor_expired',
    },
    score: {
      method: 'lower bound of the Wilson interval of kept promises among kept and broken ones',
      z: 1.2816,
      ranked_from: n.rankedFrom,
      tiers: { trusted: { min_score: 0.75, distinct_customers: 10 }, building: { min_score: 0.4 }, new: 'everything else, including no record' },
      evidence: 'signed receipts the business published to this network and their outcomes; nothing a profile says',
    },
    never_used: [
      'anything a business profile says (its name, description, categories or claims)',
      'payment of any kind: a place cannot be bought',
      'how well a query matches: matching only leaves businesses out',
      'distance, unless order=nearest is asked for',
    ],
    changelog: PUBLISHED_RULES.filter((r) => Date.parse(r.publishedAt) <= nowMs).map((r) => ({
      version: r.version,
      published_at: r.publishedAt,
      effective_at: r.effectiveAt,
      summary: r.summary,
      url: `${baseUrl}/v1/ranking?version=${r.version}`,
    })),
    next: next && next.version !== rules.version ? { version: next.version, effective_at: next.effectiveAt, url: `${baseUrl}/v1/ranking?version=${next.version}` } : null,
  };
}
