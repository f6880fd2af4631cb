/**
 * zoneNow keeps each zone's reading for a UTC minute; it must still read every instant exactly as
 * the zone's own clock does, across daylight-saving changes and with half- and quarter-hour offsets.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { zoneNow } from '../src/domain/search/hours.js';

function reference(zone: string, atMs: number) {
  const local = DateTime.fromMillis(atMs, { zone });
  const day = (d: DateTime) => d.year * 10_000 + d.month * 100 + d.day;
  return { weekMinute: (local.weekday - 1) * 1440 + local.hour * 60 + local.minute, today: day(local), yesterday: day(local.minus({ days: 1 })) };
}

/** Instants of offset changes in 2026 (UTC), and zones without any. */
const CHANGES: [string, string][] = [
  ['Europe/Lisbon', '2026-03-29T01:00:00Z'],
  ['Europe/Lisbon', '2026-10-25T01:00:00Z'],
  ['America/New_York', '2026-03-08T07:00:00Z'],
  ['America/New_York', '2026-11-01T06:00:00Z'],
  ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
  ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
  ['Asia/Kathmandu', '2026-06-01T18:14:00Z'],
  ['Pacific/Chatham', '2026-04-04T14:00:00Z'],
];

describe('zoneNow', () => {
  it('reads every instant around offset changes as the zone does, in any order of asking', () => {
    for (const [zone, iso] of CHANGES) {
      const at = Date.parse(iso);
      const instants: number[] = [];
      for (let s = -150; s <= 150; s += 7) instants.push(at + s * 1000 + (s % 3));
      const orders = [instants, [...instants].reverse(), instants.map((x, i) => instants[(i * 17) % instants.length]!)];
      for (const order of orders) {
        for (const instant of order) expect(zoneNow(zone, instant), `${zone} ${new Date(instant).toISOString()}`).toEqual(reference(zone, instant));
      }
    }
  });

  it('gives null for a zone the runtime does not know', () => {
    expect(zoneNow('Not/AZone', Date.parse('2026-11-23T10:15:00Z'))).toBeNull();
  });
});
