/**
 * The published reputation arithmetic (docs/reputation.md, GET /v1/ranking `score`): how a
 * business's receipts become evidence pieces, how each piece is weighed, and how the pieces become a
 * score, a tier and `ranked`. Pure functions over numbers: the directory's nightly snapshot feeds
 * them, its rules document prints REPUTATION_RULES, and the verifier recomputes every reputation
 * with the same functions from the public evidence log, so what is published is what runs.
 */

/** What each outcome code says of the business (docs/receipts.md "Outcome codes"); null: it speaks of the customer only. */
export const BUSINESS_SIDE: Readonly<Record<string, 'kept' | 'broken' | 'neutral' | null>> = Object.freeze({
  'booking.completed': 'kept',
  'booking.cancelled_by_business': 'broken',
  'booking.cancelled_by_customer': 'neutral',
  'booking.cancelled_late_by_customer': null,
  'booking.no_show_customer': null,
  'order.fulfilled': 'kept',
  'order.not_fulfilled': 'broken',
  'order.cancelled_by_customer': 'neutral',
  'order.payment_failed': null,
  'order.lapsed': 'neutral',
  'order.charged_back': null,
  'refund.honoured': 'kept',
  'refund.late': 'broken',
});

/** What the arithmetic reads of a receipt held by the network (the claims, when it arrived, whether acknowledged by then). */
export interface ScoredReceipt {
  receiptId: string;
  knd: string;
  out: string | null;
  ref: string | null;
  sub: string;
  itm: string;
  /** Claims times, unix seconds. */
  iat: number;
  due: number;
  /** `pay: 1` or `knd: paid`. */
  paid: boolean;
  /** `aut: 1`. */
  aut: boolean;
  /** False for a sandbox receipt (`sbx: 1`). */
  counted: boolean;
  /** When it reached the network (ms). */
  arrivedAt: number;
  acknowledged: boolean;
}

const DAY_SEC = 86_400;

export const REPUTATION_RULES = Object.freeze({
  /** The Wilson lower bound's z (one-sided 90%). */
  z: 1.2816,
  storedDecimals: 6,
  /** score_int = floor(score × 10000 + 0.5); ranked from 4000. */
  scoreIntScale: 10_000,
  rankedFromInt: 4_000,
  tiers: {
    trusted: { minScore: 0.75, minScoreInt: 7_500, distinctCustomers: 10 },
    building: { minScore: 0.4, minScoreInt: 4_000 },
  },
  /** e: how strongly a piece is evidenced (ADR-016 of the notes): acknowledged by the customer's agent, and paid. */
  evidenceWeight: { acknowledgedPaid: 1, acknowledgedUnpaid: 0.7, unacknowledged: 0.4 },
  /** o: a kept outcome nobody vouched for is presumed, and weighs half. */
  presumedFactor: 0.5,
  /** A promise published more than this long after it was made (or after it fell due) is late. */
  latePromiseHours: 24,
  /** A business's cancellation of a booking with at least this much notice weighs half. */
  businessNoticeHours: 24,
  noticeFactor: 0.5,
  /** A broken outcome is dated no earlier than a day before it arrived (backdating does not age it away). */
  brokenDatedArrivalHours: 24,
  /** t: the age of a piece at the scoring time, in days, inclusive. */
  age: [
    { upToDays: 30, t: 1 },
    { upToDays: 182, t: 0.75 },
    { upToDays: 365, t: 0.5 },
    { upToDays: null, t: 0.25 },
  ],
  /** r: m pieces of one customer on one side weigh min(cap, 1 + step·(m − 1)) / m each. */
  repeat: { cap: 3, step: 0.25 },
  /** Unacknowledged pieces count for at most this many fresh units in n (the word cap). */
  wordCapUnits: 50,
  /** Nothing is scored in the first holdDays after verification; then n is capped per full month until day releaseUntilDay. */
  hold: { holdDays: 30, releaseUnitsPerMonth: 30, releaseMonthDays: 30, releaseUntilDay: 90 },
} as const);

export type Tier = 'new' | 'building' | 'trusted';

/** One promise closed, as the business's score reads it. */
export interface EvidencePiece {
  side: 'kept' | 'broken';
  /** The outcome's weight, after the presumption and notice rules. */
  o: number;
  /** How strongly it is evidenced. */
  e: number;
  /** The date it counts from (unix seconds). */
  dated: number;
  /** The customer's pseudonym (receipt `sub`). */
  customer: string;
  acknowledged: boolean;
}

export interface ReputationResult {
  score: number;
  scoreInt: number;
  ranked: boolean;
  tier: Tier;
  /** Scored pieces on each side (promises, not weights). */
  kept: number;
  broken: number;
  /** Distinct customers among the scored pieces. */
  customers: number;
  /** Share of the evidence weight resting on acknowledged pieces. */
  verifiedShare: number;
  /** Weighted kept (K) and broken (B) evidence, and n (after the word cap and the hold). */
  weightKept: number;
  weightBroken: number;
  units: number;
}

const roundTo = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** t for a piece this many seconds old (boundaries inclusive; a piece dated after the scoring time is fresh). */
export function ageFactor(ageSeconds: number): number {
  for (const band of REPUTATION_RULES.age) if (band.upToDays === null || ageSeconds <= band.upToDays * DAY_SEC) return band.t;
  return 0.25;
}

/** r for each of m pieces of one customer on one side. */
export function repeatFactor(m: number): number {
  const { cap, step } = REPUTATION_RULES.repeat;
  return Math.min(cap, 1 + step * (m - 1)) / m;
}

/** The lower bound of the Wilson score interval of p over n units. */
export function wilsonLowerBound(p: number, n: number, z: number = REPUTATION_RULES.z): number {
  if (n <= 0) return 0;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/** The most units n may hold this many whole days after verification (the hold and the release). */
export function releaseCap(daysSinceVerification: number): number {
  const { holdDays, releaseUnitsPerMonth, releaseMonthDays, releaseUntilDay } = REPUTATION_RULES.hold;
  if (daysSinceVerification >= releaseUntilDay) return Number.POSITIVE_INFINITY;
  if (daysSinceVerification < holdDays) return 0;
  return Math.floor(daysSinceVerification / releaseMonthDays) * releaseUnitsPerMonth;
}

export function tierOf(scoreInt: number, customers: number): Tier {
  const { trusted, building } = REPUTATION_RULES.tiers;
  if (scoreInt >= trusted.minScoreInt && customers >= trusted.distinctCustomers) return 'trusted';
  if (scoreInt >= building.minScoreInt) return 'building';
  return 'new';
}

/**
 * Which outcome stands for a promise: a business's broken outcome is final (only a later broken one
 * replaces it); otherwise the latest by iat, then by receipt id.
 */
export function outcomeStands(candidate: { iat: number; receiptId: string; businessBroken: boolean }, current: { iat: number; receiptId: string; businessBroken: boolean } | null): boolean {
  if (current === null) return true;
  if (current.businessBroken !== candidate.businessBroken) return candidate.businessBroken;
  return candidate.iat > current.iat || (candidate.iat === current.iat && candidate.receiptId > current.receiptId);
}

/** What an outcome code says of the business: kept, broken, neutral, or null (it speaks of the customer only). */
export function businessSide(code: string | null): 'kept' | 'broken' | 'neutral' | null {
  return code !== null && Object.hasOwn(BUSINESS_SIDE, code) ? (BUSINESS_SIDE[code] ?? null) : null;
}

/**
 * The pieces of evidence in a business's receipts as of `scoringTimeMs`: for each promise, the outcome
 * that stands among the counted receipts that arrived before the scoring time, when it says the
 * business kept or broke it. Neutral outcomes and those about the customer only are not pieces.
 */
export function evidencePieces(receipts: readonly ScoredReceipt[], scoringTimeMs: number): EvidencePiece[] {
  const rules = REPUTATION_RULES;
  const held = receipts.filter((r) => r.counted && r.arrivedAt < scoringTimeMs);
  const promises = new Map<string, ScoredReceipt>();
  const paidItems = new Set<string>();
  const standing = new Map<string, ScoredReceipt>();
  for (const r of held) {
    if (r.paid) paidItems.add(r.itm);
    if (r.knd === 'confirmed' || r.knd === 'accepted') promises.set(r.receiptId, r);
  }
  for (const r of held) {
    if (r.knd !== 'outcome' || r.ref === null) continue;
    const current = standing.get(r.ref) ?? null;
    const key = (x: ScoredReceipt) => ({ iat: x.iat, receiptId: x.receiptId, businessBroken: businessSide(x.out) === 'broken' });
    if (outcomeStands(key(r), current && key(current))) standing.set(r.ref, r);
  }
  const pieces: EvidencePiece[] = [];
  for (const outcome of standing.values()) {
    const side = businessSide(outcome.out);
    if (side !== 'kept' && side !== 'broken') continue;
    const promise = outcome.ref === null ? undefined : promises.get(outcome.ref);
    const acknowledged = outcome.acknowledged || (promise?.acknowledged ?? false);
    const paid = outcome.paid || paidItems.has(outcome.itm);
    const e = acknowledged ? (paid ? rules.evidenceWeight.acknowledgedPaid : rules.evidenceWeight.acknowledgedUnpaid) : rules.evidenceWeight.unacknowledged;
    let o = 1;
    let dated = outcome.iat;
    if (side === 'kept') {
      const latePromise =
        promise === undefined || promise.arrivedAt > (promise.iat + rules.latePromiseHours * 3_600) * 1_000 || promise.arrivedAt > promise.due * 1_000;
      if (!acknowledged && (outcome.aut || latePromise)) o *= rules.presumedFactor;
    } else {
      if (outcome.out === 'booking.cancelled_by_business' && outcome.due - outcome.iat >= rules.businessNoticeHours * 3_600) o *= rules.noticeFactor;
      dated = Math.max(outcome.iat, Math.floor(outcome.arrivedAt / 1_000) - rules.brokenDatedArrivalHours * 3_600);
    }
    pieces.push({ side, o, e, dated, customer: outcome.sub, acknowledged });
  }
  return pieces;
}

/**
 * The score of a business from its pieces at the scoring time (unix seconds), verified at
 * `verifiedAtSec`: x = o × e × t × r for each piece; K and B the kept and broken sums; p = K/(K+B);
 * n = f × (unacknowledged x) + (acknowledged x), with f = min(1, 50 / unacknowledged fresh units),
 * capped by the hold after verification; score = the Wilson lower bound of p over n.
 */
export function scoreBusiness(pieces: readonly EvidencePiece[], scoringTimeSec: number, verifiedAtSec: number): ReputationResult {
  const rules = REPUTATION_RULES;
  const perCustomerSide = new Map<string, number>();
  for (const piece of pieces) {
    const key = `${piece.side}\u0000${piece.customer}`;
    perCustomerSide.set(key, (perCustomerSide.get(key) ?? 0) + 1);
  }
  let weightKept = 0;
  let weightBroken = 0;
  let word = 0;
  let wordFresh = 0;
  let vouched = 0;
  const customers = new Set<string>();
  let kept = 0;
  let broken = 0;
  for (const piece of pieces) {
    const r = repeatFactor(perCustomerSide.get(`${piece.side}\u0000${piece.customer}`) as number);
    const fresh = piece.o * piece.e * r;
    const x = fresh * ageFactor(scoringTimeSec - piece.dated);
    if (piece.side === 'kept') {
      weightKept += x;
      kept += 1;
    } else {
      weightBroken += x;
      broken += 1;
    }
    if (piece.acknowledged) vouched += x;
    else {
      word += x;
      wordFresh += fresh;
    }
    customers.add(piece.customer);
  }
  const f = wordFresh > 0 ? Math.min(1, rules.wordCapUnits / wordFresh) : 1;
  const days = Math.floor((scoringTimeSec - verifiedAtSec) / DAY_SEC);
  const units = Math.min(f * word + vouched, releaseCap(days));
  const total = weightKept + weightBroken;
  const p = total > 0 ? weightKept / total : 0;
  const score = roundTo(units > 0 && total > 0 ? wilsonLowerBound(p, units) : 0, rules.storedDecimals);
  const scoreInt = Math.floor(score * rules.scoreIntScale + 0.5);
  return {
    score,
    scoreInt,
    ranked: scoreInt >= rules.rankedFromInt,
    tier: tierOf(scoreInt, customers.size),
    kept,
    broken,
    customers: customers.size,
    verifiedShare: total > 0 ? roundTo(vouched / total, 4) : 0,
    weightKept,
    weightBroken,
    units: roundTo(units, 6),
  };
}
