import { describe, expect, it } from 'vitest';
import { compileClosures, compileWeekly } from '../src/domain/search/hours.js';
import type { HoursTable } from '../src/domain/search/index-core.js';
import { OpenAnswers } from '../src/domain/search/open-answers.js';

const WEEKDAYS_9_TO_5 = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] } as never;
const ZONES = ['Europe/Lisbon', 'America/New_York'];

/** Two distinct hours, 9 to 5 on weekdays, one in Lisbon and one in New York; the second closed 2026-12-07. */
function table(): HoursTable {
  const lisbon = compileWeekly(WEEKDAYS_9_TO_5);
  const newYork = compileWeekly(WEEKDAYS_9_TO_5);
  const closed = compileClosures([{ from: '2026-12-07', to: '2026-12-07' }]);
  return {
    zone: Int32Array.from([0, 1]),
    hrOff: Int32Array.from([0, lisbon.length, lisbon.length + newYork.length]),
    hr: Int32Array.from([...lisbon, ...newYork]),
    clOff: Int32Array.from([0, 0, closed.length]),
    cl: Int32Array.from(closed),
  };
}
// Positions: Lisbon, New York, no hours, Lisbon again.
const HOURS_OF = Int32Array.from([0, 1, -1, 0]);
const openAt = (answers: OpenAnswers, iso: string) => {
  const test = answers.testAt(Date.parse(iso), HOURS_OF);
  return [0, 1, 2, 3].map((pos) => test(pos));
};

describe('open-now answers kept from search to search', () => {
  it('answers each instant by its own zone, however many searches came before', () => {
    const answers = new OpenAnswers(table(), ZONES);
    // Tuesday 2026-12-08: 10:00 in Lisbon is 05:00 in New York; 15:00 UTC is 10:00 there.
    expect(openAt(answers, '2026-12-08T10:00:00Z')).toEqual([true, false, false, true]);
    expect(openAt(answers, '2026-12-08T15:00:00Z')).toEqual([true, true, false, true]);
    expect(openAt(answers, '2026-12-08T20:00:00Z')).toEqual([false, true, false, false]);
    // Monday 2026-12-07, New York's closure.
    expect(openAt(answers, '2026-12-07T15:00:00Z')).toEqual([true, false, false, true]);
    expect(openAt(answers, '2026-12-08T10:00:00Z')).toEqual([true, false, false, true]);
  });

  it('keeps two tests of one search apart (open at one instant, reported at another)', () => {
    const answers = new OpenAnswers(table(), ZONES);
    const morning = answers.testAt(Date.parse('2026-12-08T10:00:00Z'), HOURS_OF);
    expect(morning(1)).toBe(false);
    const afternoon = answers.testAt(Date.parse('2026-12-08T15:00:00Z'), HOURS_OF);
    expect(afternoon(1)).toBe(true);
    expect(morning(1)).toBe(false);
    expect(afternoon(1)).toBe(true);
    expect(morning(0)).toBe(true);
  });

  it('answers right across the end of its stamps, where they start again', () => {
    const answers = new OpenAnswers(table(), ZONES, 0xffff_fffd);
    expect(openAt(answers, '2026-12-08T10:00:00Z')).toEqual([true, false, false, true]); // the last stamp
    // The stamps start again (never at 0, which every cleared entry holds).
    expect(openAt(answers, '2026-12-08T20:00:00Z')).toEqual([false, true, false, false]);
    expect(openAt(answers, '2026-12-08T10:00:00Z')).toEqual([true, false, false, true]);
    expect(answers.byteLength).toBe(2 * 5 + 2 * 16);
  });
});
