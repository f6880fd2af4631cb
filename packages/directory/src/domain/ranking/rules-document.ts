/**
 * The ranking rules document served at GET /v1/ranking?version=n (directory spec §4): every number the
 * order uses, how reputation is computed (the arithmetic the nightly snapshot runs), the changelog and
 * what comes next. Kept apart from rules.ts, which answer workers load without the shared package.
 */
import { OUTCOME_CODES } from '@svc/shared';
import { REPUTATION_RULES } from '../reputation/arithmetic.js';
import { PUBLISHED_RULES, TEXT_REVISIONS, announcedRules, firstInstantAfter, rulesStatus, type PublishedRules } from './rules.js';

type RulesDocument = ReturnType<typeof drawRulesDocument>;

/**
 * Documents already drawn, by all the moment changes in them: the version's status, the version
 * announced next and how many versions are published. The same document is the same object, so a
 * page drawn from it is recognised by identity (public-pages.ts) instead of by its JSON each time.
 */
const drawn = new Map<string, RulesDocument>();

/** The document served at GET /v1/ranking?version=n: every number the order uses, the changelog, what comes next. */
export function rulesDocument(rules: PublishedRules, nowMs: number, baseUrl: string): RulesDocument {
  const published = PUBLISHED_RULES.filter((r) => Date.parse(r.publishedAt) <= nowMs).length;
  const key = `${rules.version} ${rulesStatus(rules, nowMs)} ${announcedRules(nowMs)?.version ?? '-'} ${published} ${baseUrl}`;
  const known = drawn.get(key);
  if (known) return known;
  const document = drawRulesDocument(rules, nowMs, baseUrl);
  if (drawn.size >= 64) drawn.clear();
  drawn.set(key, document);
  return document;
}

/**
 * The first instant after `nowMs` at which a rules document can read otherwise: a version
 * published (changelog, what comes next) or coming into force (every status). Infinity while none is announced.
 */
export function rulesDocumentHoldsUntil(nowMs: number): number {
  return firstInstantAfter(
    PUBLISHED_RULES.flatMap((r) => [r.publishedAt, r.effectiveAt]),
    nowMs,
  );
}

function drawRulesDocument(rules: PublishedRules, nowMs: number, baseUrl: string) {
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
      keys: rules.orderKeys,
      rank_shuffle:
        'the first 16 lowercase hexadecimal characters of SHA-256 over the UTF-8 text "<YYYY-MM-DD>:<id>", where <id> is the listing\'s id field in lower case and the date is the UTC date of the snapshot; a string, compared as a string',
      rank_pos: 'the place in this hour\'s order, from 1',
      near: { parameter: 'near', radius_km_default: n.radiusKmDefault, radius_km_max: n.radiusKmMax, order: n.nearest ? 'rank, or distance with order=nearest' : 'rank' },
      nearest: n.nearest ? 'order=nearest (needs near): by distance, then by place in the order' : null,
      category: n.strictCategory
        ? 'a group slug or a place category (with every category below it) by id, slug, label or synonym; anything else is refused with 400 category_unresolved and up to 5 candidates'
        : 'a group slug or a place category (with every category below it) by id, slug, label or synonym; anything else matches tags',
      filters: 'every search parameter only leaves businesses out; none moves anyone',
      cursor: 'opaque; bound to the search and to the hour\'s order: another search\'s cursor, or one from an earlier hour, answers 410 cursor_expired',
    },
    score: scoreRules(n.rankedFrom),
    never_used: [
      'anything a business profile says (its name, description, categories or claims)',
      'payment of any kind: a place cannot be bought',
      'how well a query matches: matching only leaves businesses out',
      'distance, unless order=nearest is asked for',
    ],
    text_revisions: TEXT_REVISIONS,
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

/**
 * How reputation is computed (docs/reputation.md), every number from REPUTATION_RULES, which the
 * nightly snapshot runs: the same for every rules version published so far.
 */
function scoreRules(rankedFrom: number) {
  const r = REPUTATION_RULES;
  return {
    method: 'lower bound of the Wilson interval of kept promises among kept and broken ones',
    formula: 'score = (p + z²/(2n) − z·sqrt(p(1−p)/n + z²/(4n²))) / (1 + z²/n), p = K / (K + B); 0 when n = 0',
    z: r.z,
    z2: Math.round(r.z * r.z * 1e8) / 1e8,
    stored_decimals: r.storedDecimals,
    score_int: 'floor(score × 10000 + 0.5)',
    ranked_from: rankedFrom,
    ranked_from_int: r.rankedFromInt,
    evidence: 'signed receipts the business published to this network (compact JWS verified against the keys of its own manifest) and the acknowledgements its customers\' agents signed; nothing a profile says, no sandbox receipt',
    pieces:
      'one piece per promise that closed: the outcome that stands for it (a business\'s broken outcome is final; otherwise the latest by iat, then receipt id), when it says the business kept or broke the promise; neutral outcomes and those about the customer only are counted in outcomes but are not pieces',
    piece_weight: 'x = o × e × t × r',
    outcomes: Object.entries(OUTCOME_CODES).map(([code, sides]) => ({
      code,
      business: sides.business,
      customer: sides.customer,
      o: sides.business === 'kept' || sides.business === 'broken' ? 1 : null,
      ...(code === 'booking.cancelled_by_business' ? { o_with_notice: r.noticeFactor, notice_hours: r.businessNoticeHours, notice: 'due − iat of the outcome' } : {}),
    })),
    presumed: {
      factor: r.presumedFactor,
      when: `a kept outcome without an acknowledgement (of the outcome or of its promise) that nobody decided (aut 1), or whose promise was never published here, was published more than ${r.latePromiseHours} hours after its iat, or after it fell due`,
    },
    evidence_weight: {
      acknowledged_paid: r.evidenceWeight.acknowledgedPaid,
      acknowledged_unpaid: r.evidenceWeight.acknowledgedUnpaid,
      unacknowledged: r.evidenceWeight.unacknowledged,
      acknowledged: 'the outcome\'s receipt or its promise\'s carries a customer agent\'s acknowledgement that verified here',
      paid: 'a receipt of the same item records a payment (pay 1, or knd paid)',
    },
    time: r.age.map((band) => ({ up_to_days: band.upToDays, t: band.t })),
    time_from: `the outcome's iat; a broken outcome no earlier than ${r.brokenDatedArrivalHours} hours before it reached the network; ages counted in whole seconds to the scoring time, bounds included`,
    repeat: {
      formula: 'r = min(cap, 1 + step × (m − 1)) / m',
      cap: r.repeat.cap,
      step: r.repeat.step,
      pair: 'm: the pieces of one customer (receipt sub) on one side (kept or broken) with this business',
    },
    word_cap_units: r.wordCapUnits,
    units:
      'n = f × Σx(unacknowledged) + Σx(acknowledged), f = min(1, word_cap_units / Σ(x / t)(unacknowledged)): unacknowledged pieces count for at most 50 fresh units',
    hold: {
      hold_days: r.hold.holdDays,
      release_units_per_month: r.hold.releaseUnitsPerMonth,
      release_month_days: r.hold.releaseMonthDays,
      release_until_day: r.hold.releaseUntilDay,
      rule: 'n is 0 in the first 30 days after verification, then at most 30 units per full 30 days until day 90',
    },
    tiers: {
      trusted: { min_score: r.tiers.trusted.minScore, min_score_int: r.tiers.trusted.minScoreInt, distinct_customers: r.tiers.trusted.distinctCustomers },
      building: { min_score: r.tiers.building.minScore, min_score_int: r.tiers.building.minScoreInt },
      new: 'everything else, including no record',
    },
    distinct_customer: 'one receipt sub (the inbox\'s pseudonym of a customer) among the scored pieces',
    kept_broken: 'the scored pieces on each side (promises, not weights)',
    verified_share: 'Σx(acknowledged) / Σx(all pieces), 4 decimals; 0 without pieces',
    snapshot: {
      nightly: '00:00 UTC',
      scoring_time: 'that midnight: the receipts that reached the network before it, members verified before it',
      rules: 'the rules version in force at the scoring time; every listing\'s reputation names it',
      order: 'each hour\'s order reads the snapshot of its date, computed first when it is missing',
    },
  };
}
