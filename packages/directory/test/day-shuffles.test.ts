import { describe, expect, it } from 'vitest';
import { DayShuffles, rankShuffle, shuffleDay } from '../src/domain/ranking/hourly-order.js';

describe("the day's shuffle keys kept for every listing", () => {
  const hourStart = Date.parse('2026-12-08T13:00:00Z');
  const listings = Array.from({ length: 200 }, (_, i) => ({ seq: i * 3 + 1, id: `01KTESTLISTING${String(i).padStart(6, '0')}${i % 2 ? 'ab' : 'CD'}` }));

  it('gives what rankShuffle gives, and hashes a listing it does not know', () => {
    const table = DayShuffles.build(shuffleDay(hourStart), listings);
    for (const l of listings) expect(table.get(l.seq, l.id)).toBe(rankShuffle(hourStart, l.id));
    expect(table.get(2, '01KNEWLISTING')).toBe(rankShuffle(hourStart, '01KNEWLISTING'));
    expect(table.get(10_000, '01KNEWLISTING')).toBe(rankShuffle(hourStart, '01KNEWLISTING'));
    // Keys with leading zeros keep them (always 16 lowercase hex characters).
    for (const l of listings) expect(table.get(l.seq, l.id)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('takes keys already computed for the day', () => {
    const withKeys = listings.map((l) => ({ ...l, shuffle: rankShuffle(hourStart, l.id) }));
    const table = DayShuffles.build(shuffleDay(hourStart), withKeys);
    for (const l of withKeys) expect(table.get(l.seq, l.id)).toBe(l.shuffle);
  });
});
