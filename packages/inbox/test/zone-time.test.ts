/**
 * Instants read and printed without luxon on a booking's path (domain/time.ts, issue 11) say exactly
 * what luxon says: the plain ISO form agents send is read to the same millisecond (and anything
 * else is left to luxon), and instants print in a zone as luxon prints them, across DST changes
 * and zones with odd offsets; local dates likewise.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isoInZone, isoUtc, parseInstant } from '../src/domain/time.js';
import { localDateInZone } from '../src/domain/availability/free-starts.js';

const ZONES = [
  'Europe/Lisbon',
  'Europe/Berlin',
  'America/New_York',
  'America/St_Johns',
  'Pacific/Honolulu',
  'Pacific/Kiritimati',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Africa/Casablanca',
  'Etc/UTC',
  'UTC',
  'GMT',
];
const luxonIso = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: false });
const luxonRead = (text: string) => DateTime.fromISO(text, { setZone: true }).toMillis();
/** 1990 to 2060, where bookings live, and the edges of four-digit years. */
const instants = fc.oneof(
  fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }),
  fc.constantFrom(Date.UTC(1000, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10_000, 0, 1), Date.UTC(999, 11, 31)),
);

describe('isoInZone and localDateInZone', () => {
  it('print what luxon prints, in every zone', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...ZONES), (ms, zone) => {
        expect(isoInZone(ms, zone)).toBe(luxonIso(ms, zone));
        expect(localDateInZone(ms, zone)).toBe(DateTime.fromMillis(ms, { zone }).toISODate());
      }),
      { numRuns: 3000 },
    );
  });

  it('print the last and first millisecond around DST changes as luxon does', () => {
    for (const [zone, iso] of [
      ['Europe/Lisbon', '2026-03-29T01:00:00Z'],
      ['Europe/Lisbon', '2026-10-25T01:00:00Z'],
      ['America/St_Johns', '2026-03-08T05:30:00Z'],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
      ['Pacific/Chatham', '2026-04-04T14:00:00Z'],
    ] as const) {
      const at = Date.parse(iso);
      for (const ms of [at - 1, at, at + 1, at - 3_600_000, at + 3_600_000]) expect(isoInZone(ms, zone)).toBe(luxonIso(ms, zone));
    }
  });
});

describe('parseInstant', () => {
  const two = (n: number) => String(n).padStart(2, '0');
  const plain = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 60 }),
      second: fc.option(fc.integer({ min: 0, max: 60 })),
      fraction: fc.option(fc.stringMatching(/^[0-9]{1,4}$/)),
      offset: fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 15 }), fc.constantFrom(0, 15, 30, 45, 59, 60)).map(([s, h, m]) => `${s}${two(h)}:${two(m)}`)),
    })
    .map(
      ({ year, month, day, hour, minute, second, fraction, offset }) =>
        `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}${second === null ? '' : `:${two(second)}${fraction === null ? '' : `.${fraction}`}`}${offset}`,
    );

  it('reads the plain form, valid or not, as luxon does', () => {
    fc.assert(
      fc.property(plain, (text) => {
        expect(Object.is(parseInstant(text), luxonRead(text)), text).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('leaves every other form to luxon', () => {
    for (const text of ['2026-12-01T10:00:00+0100', '2026-12-01T10:00:00.123456+01:00', '2026-W49-2T10:00Z', '2026-12-01', 'tomorrow', '', '2026-12-01T10:00:00 +01:00']) {
      expect(Object.is(parseInstant(text), luxonRead(text)), text).toBe(true);
    }
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (text) => void expect(Object.is(parseInstant(text), luxonRead(text))).toBe(true)));
  });
});

describe('isoUtc', () => {
  it('prints what toISOString prints, for every millisecond of four-digit years and beyond', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const edges = [0, -1, 1, 999, 1_000, Date.UTC(1000, 0, 1), Date.UTC(1000, 0, 1) - 1, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1), -62_198_755_200_000, 8.64e15, -8.64e15];
    for (const ms of edges) expect(isoUtc(ms), String(ms)).toBe(iso(ms));
    fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => void expect(isoUtc(ms)).toBe(iso(ms))));
    fc.assert(fc.property(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }), (ms) => void expect(isoUtc(ms)).toBe(iso(ms))));
    // Not a date: the same RangeError toISOString throws.
    expect(() => isoUtc(Number.NaN)).toThrow(RangeError);
    expect(() => isoUtc(8.64e15 + 1)).toThrow(RangeError);
  });
});
