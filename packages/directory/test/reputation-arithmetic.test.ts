/**
 * The published reputation arithmetic (docs/reputation.md, GET /v1/ranking `score`) against the
 * worked examples of the notes (../shared/design/upstream-directory.md §6 "Reputation"), each
 * computed by hand below, and against each rule on its own: evidence weights, the presumption, a
 * business's notice, the date of a broken outcome, age, repeat customers, the word cap, the hold after
 * verification, the tiers, which outcome stands.
 */
import { describe, expect, it } from 'vitest';
import {
  REPUTATION_RULES,
  ageFactor,
  evidencePieces,
  outcomeStands,
  releaseCap,
  repeatFactor,
  scoreBusiness,
  tierOf,
  wilsonLowerBound,
  type EvidencePiece,
} from '../src/domain/reputation/arithmetic.js';
import type { ReceiptEvidence } from '../src/domain/receipts/held-receipt.js';
import { rulesByVersion } from '../src/domain/ranking/rules.js';
import { openDirectoryStore } from '../src/store/kysely/kysely-directory-store.js';

const DAY = 86_400;
const SCORING = Date.parse('2027-03-01T00:00:00Z') / 1000;
/** Verified long before: no hold. */
const VERIFIED = SCORING - 400 * DAY;

const piece = (overrides: Partial<EvidencePiece> = {}): EvidencePiece => ({ side: 'kept', o: 1, e: 1, dated: SCORING - DAY, customer: 'c0', acknowledged: true, ...overrides });
const many = (count: number, make: (i: number) => Partial<EvidencePiece>) => Array.from({ length: count }, (_, i) => piece(make(i)));

describe('the worked examples of the notes', () => {
  it('20 kept of 20, fresh, 20 customers: K = 20, n = 20, p = 1 → 0.924108, 9241, trusted', () => {
    // Wilson at p = 1: (1 + z²/40 − z·sqrt(z²/1600)) / (1 + z²/20) = 1 / (1 + 1.64249856/20) = 0.9241077…
    const r = scoreBusiness(many(20, (i) => ({ customer: `c${i}` })), SCORING, VERIFIED);
    expect(r).toMatchObject({ score: 0.924108, scoreInt: 9241, ranked: true, tier: 'trusted', kept: 20, broken: 0, customers: 20, verifiedShare: 1, units: 20 });
    expect(r.weightKept).toBe(20);
  });

  it('900 kept, 100 broken on the word (unacknowledged), new customers: f = 50/1000 units, n = 50, p = 0.9 → 0.832284', () => {
    // Unacknowledged pieces weigh e = 0.4: K = 360, B = 40, fresh units 400, f = 50/400, n = 0.125 × 400 = 50; p = 0.9.
    const pieces = many(1000, (i) => ({ side: i < 900 ? 'kept' : 'broken', customer: `c${i}`, acknowledged: false, e: REPUTATION_RULES.evidenceWeight.unacknowledged }));
    const r = scoreBusiness(pieces, SCORING, VERIFIED);
    expect(r.weightKept).toBeCloseTo(360, 9);
    expect(r.weightBroken).toBeCloseTo(40, 9);
    expect(r).toMatchObject({ score: 0.832284, scoreInt: 8323, units: 50, tier: 'trusted', verifiedShare: 0 });
  });

  it('the same two years old: t = 0.25, n = 0.125 × 100 = 12.5 → 0.741247, building', () => {
    const pieces = many(1000, (i) => ({ side: i < 900 ? 'kept' : 'broken', customer: `c${i}`, acknowledged: false, e: 0.4, dated: SCORING - 730 * DAY }));
    const r = scoreBusiness(pieces, SCORING, VERIFIED);
    expect(r).toMatchObject({ score: 0.741247, scoreInt: 7412, units: 12.5, tier: 'building', ranked: true });
  });

  it('one customer, 4 kept and 1 broken: r = 1.75/4, K = 1.75, B = 1, n = 2.75 → 0.286826, new', () => {
    const pieces = [...many(4, () => ({ customer: 'one' })), piece({ side: 'broken', customer: 'one' })];
    const r = scoreBusiness(pieces, SCORING, VERIFIED);
    expect(r.weightKept).toBeCloseTo(1.75, 12);
    expect(r.weightBroken).toBe(1);
    expect(r).toMatchObject({ score: 0.286826, scoreInt: 2868, ranked: false, tier: 'new', kept: 4, broken: 1, customers: 1, units: 2.75 });
  });

  it('a perfect record of n units scores n / (n + z²)', () => {
    for (const n of [1, 3, 10, 42]) {
      const r = scoreBusiness(many(n, (i) => ({ customer: `c${i}` })), SCORING, VERIFIED);
      expect(r.score).toBeCloseTo(n / (n + REPUTATION_RULES.z ** 2), 6);
    }
  });
});

describe('each rule on its own', () => {
  it('evidence weight e: acknowledged and paid 1, acknowledged unpaid 0.7, unacknowledged 0.4', () => {
    const base = { ver: 2, iss: 'https://s.example', domain: 's.example', kid: 'k', sha256: 's', typ: 'booking', prv: null, itm: 'i', end: null, aut: false, counted: true } as const;
    const at = (s: number) => s * 1000;
    const promise = (id: string, itm: string, acknowledged = false): ReceiptEvidence => ({ ...base, receiptId: id, itm, knd: 'confirmed', out: null, ref: null, sub: 'c', iat: SCORING - 10 * DAY, due: SCORING - 5 * DAY, paid: false, arrivedAt: at(SCORING - 10 * DAY), acknowledged });
    const outcome = (id: string, ref: string, itm: string, acknowledged: boolean, paid = false): ReceiptEvidence => ({
      ...base,
      receiptId: id,
      itm,
      knd: 'outcome',
      out: 'booking.completed',
      ref,
      sub: 'c',
      iat: SCORING - 5 * DAY,
      due: SCORING - 5 * DAY,
      paid,
      arrivedAt: at(SCORING - 5 * DAY),
      acknowledged,
    });
    const pieces = evidencePieces(
      [
        promise('p1', 'i1'),
        outcome('o1', 'p1', 'i1', true, true),
        promise('p2', 'i2'),
        outcome('o2', 'p2', 'i2', true),
        promise('p3', 'i3'),
        outcome('o3', 'p3', 'i3', false),
        // acknowledged on its promise only, paid by another receipt of the item
        promise('p4', 'i4', true),
        { ...promise('pay4', 'i4'), knd: 'paid', paid: true },
        outcome('o4', 'p4', 'i4', false),
      ],
      at(SCORING),
    );
    expect(pieces.map((p) => p.e)).toEqual([1, 0.7, 0.4, 1]);
    expect(pieces.map((p) => p.acknowledged)).toEqual([true, true, false, true]);
  });

  it('a kept outcome nobody vouched for is presumed (o × 0.5): decided by nobody, its promise unpublished, late or after due', () => {
    const base = { iss: 'https://s.example', domain: 's.example', kid: 'k', sha256: 's', typ: 'booking', prv: null, end: null, counted: true, paid: false, sub: 'c' } as const;
    const promise = (id: string, arrivedLate: 'no' | 'day' | 'due'): ReceiptEvidence => ({
      ...base,
      receiptId: id,
      itm: id,
      knd: 'confirmed',
      out: null,
      ref: null,
      iat: SCORING - 10 * DAY,
      due: SCORING - 3 * DAY,
      aut: false,
      arrivedAt: (arrivedLate === 'no' ? SCORING - 10 * DAY + 3600 : arrivedLate === 'day' ? SCORING - 9 * DAY + 1 : SCORING - 3 * DAY + 1) * 1000,
      acknowledged: false,
    });
    const outcome = (ref: string, aut: boolean, acknowledged = false): ReceiptEvidence => ({
      ...base,
      receiptId: `o-${ref}`,
      itm: ref,
      knd: 'outcome',
      out: 'booking.completed',
      ref,
      iat: SCORING - 2 * DAY,
      due: SCORING - 3 * DAY,
      aut,
      arrivedAt: (SCORING - 2 * DAY) * 1000,
      acknowledged,
    });
    const pieces = evidencePieces(
      [promise('a', 'no'), outcome('a', false), promise('b', 'no'), outcome('b', true), outcome('c', false), promise('d', 'day'), outcome('d', false), promise('e', 'due'), outcome('e', false), promise('f', 'no'), outcome('f', true, true)],
      SCORING * 1000,
    );
    expect(pieces.map((p) => p.o)).toEqual([1, 0.5, 0.5, 0.5, 0.5, 1]);
  });

  it('a business that cancels a booking with at least 24 h notice: o = 0.5; a broken outcome is dated no earlier than a day before it arrived', () => {
    const base = { iss: 'https://s.example', domain: 's.example', kid: 'k', sha256: 's', typ: 'booking', prv: null, end: null, counted: true, paid: false, sub: 'c', knd: 'outcome', aut: false, acknowledged: false } as const;
    const cancelled = (id: string, noticeSec: number): ReceiptEvidence => ({ ...base, receiptId: id, itm: id, ref: `p-${id}`, out: 'booking.cancelled_by_business', iat: SCORING - DAY, due: SCORING - DAY + noticeSec, arrivedAt: (SCORING - DAY) * 1000 });
    const backdated: ReceiptEvidence = { ...base, receiptId: 'old', itm: 'old', ref: 'p-old', out: 'order.not_fulfilled', typ: 'order', iat: SCORING - 400 * DAY, due: SCORING - 400 * DAY, arrivedAt: (SCORING - 3 * DAY) * 1000 };
    const pieces = evidencePieces([cancelled('notice', 24 * 3600), cancelled('short', 24 * 3600 - 1), backdated], SCORING * 1000);
    expect(pieces.map((p) => [p.side, p.o])).toEqual([
      ['broken', 0.5],
      ['broken', 1],
      ['broken', 1],
    ]);
    expect(pieces[2]!.dated).toBe(SCORING - 4 * DAY);
  });

  it('only counted receipts that arrived before the scoring time are evidence; neutral and customer-only outcomes are not pieces', () => {
    const base = { iss: 'https://s.example', domain: 's.example', kid: 'k', sha256: 's', typ: 'booking', prv: null, end: null, paid: false, sub: 'c', knd: 'outcome', aut: false, acknowledged: true, iat: SCORING - DAY, due: SCORING - DAY } as const;
    const pieces = evidencePieces(
      [
        { ...base, receiptId: 'a', itm: 'a', ref: 'pa', out: 'booking.completed', counted: true, arrivedAt: SCORING * 1000 - 1 },
        { ...base, receiptId: 'b', itm: 'b', ref: 'pb', out: 'booking.completed', counted: true, arrivedAt: SCORING * 1000 },
        { ...base, receiptId: 'c', itm: 'c', ref: 'pc', out: 'booking.completed', counted: false, arrivedAt: 0 },
        { ...base, receiptId: 'd', itm: 'd', ref: 'pd', out: 'booking.cancelled_by_customer', counted: true, arrivedAt: 0 },
        { ...base, receiptId: 'e', itm: 'e', ref: 'pe', out: 'booking.no_show_customer', counted: true, arrivedAt: 0 },
      ],
      SCORING * 1000,
    );
    expect(pieces).toHaveLength(1);
  });

  it('which outcome stands: the latest by iat then receipt id, except that a business\'s broken outcome is final', () => {
    const kept = (iat: number, receiptId: string) => ({ iat, receiptId, businessBroken: false });
    const broken = (iat: number, receiptId: string) => ({ iat, receiptId, businessBroken: true });
    expect(outcomeStands(kept(2, 'a'), kept(1, 'z'))).toBe(true);
    expect(outcomeStands(kept(1, 'b'), kept(1, 'a'))).toBe(true);
    expect(outcomeStands(kept(1, 'a'), kept(1, 'b'))).toBe(false);
    expect(outcomeStands(kept(9, 'z'), broken(1, 'a'))).toBe(false);
    expect(outcomeStands(broken(1, 'a'), kept(9, 'z'))).toBe(true);
    expect(outcomeStands(broken(2, 'a'), broken(1, 'a'))).toBe(true);
    expect(outcomeStands(kept(1, 'a'), null)).toBe(true);
  });

  it('the store keeps the outcome that stands by that rule, whatever order outcomes arrive in', async () => {
    const store = await openDirectoryStore(':memory:');
    try {
      let seed = 7;
      const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
      for (let promise = 0; promise < 60; promise++) {
        const ref = `ref-${promise}`;
        let expected: { iat: number; receiptId: string; businessBroken: boolean } | null = null;
        for (let i = 0; i < 1 + Math.floor(rand() * 5); i++) {
          const candidate = { ref, receiptId: `r${Math.floor(rand() * 4)}${i}`, code: 'x', iat: 1_000 + Math.floor(rand() * 3), businessBroken: rand() < 0.3 };
          await store.receipts.offerOutcome('shop.example', candidate);
          if (outcomeStands(candidate, expected)) expected = candidate;
        }
        expect(await store.receipts.standingOutcome('shop.example', ref)).toMatchObject(expected!);
      }
    } finally {
      await store.close();
    }
  });

  it('age t, bounds included in seconds: 30, 182, 365 days', () => {
    expect([0, 2_592_000, 2_592_001, 15_724_800, 15_724_801, 31_536_000, 31_536_001, 10 * 31_536_000, -5].map(ageFactor)).toEqual([1, 1, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 1]);
  });

  it('repeat r = min(3, 1 + 0.25 (m − 1)) / m', () => {
    expect([1, 2, 4, 9, 10, 20].map(repeatFactor)).toEqual([1, 1.25 / 2, 1.75 / 4, 3 / 9, 3 / 10, 3 / 20]);
  });

  it('the hold: nothing in the first 30 days after verification, then 30 units a full month until day 90', () => {
    expect([0, 29, 30, 59, 60, 89, 90, 400].map(releaseCap)).toEqual([0, 0, 30, 30, 60, 60, Infinity, Infinity]);
    const fifty = many(50, (i) => ({ customer: `c${i}` }));
    expect(scoreBusiness(fifty, SCORING, SCORING - 29 * DAY)).toMatchObject({ score: 0, units: 0, tier: 'new', kept: 50 });
    expect(scoreBusiness(fifty, SCORING, SCORING - 45 * DAY).units).toBe(30);
    expect(scoreBusiness(fifty, SCORING, SCORING - 75 * DAY).units).toBe(50);
  });

  it('tiers: trusted from 0.75 with 10 distinct customers, building from 0.40 (= ranked), new otherwise', () => {
    expect(tierOf(7500, 10)).toBe('trusted');
    expect(tierOf(7500, 9)).toBe('building');
    expect(tierOf(7499, 50)).toBe('building');
    expect(tierOf(4000, 0)).toBe('building');
    expect(tierOf(3999, 50)).toBe('new');
    expect(scoreBusiness([], SCORING, VERIFIED)).toMatchObject({ score: 0, scoreInt: 0, ranked: false, tier: 'new', kept: 0, broken: 0, customers: 0, verifiedShare: 0 });
  });

  it('the published numbers are the ones that run', () => {
    const z = REPUTATION_RULES.z;
    expect(wilsonLowerBound(1, 20, z)).toBeCloseTo(0.924108, 6);
    for (const version of [6, 7]) expect(rulesByVersion(version)!.numbers.rankedFromInt).toBe(REPUTATION_RULES.rankedFromInt);
  });
});
