import { describe, it, expect } from 'vitest';
import type { Closure, OpeningHoursRange, Service } from '../src/domain/types.js';
import {
  computeFreeStarts,
  isWithinOpeningHours,
  type BusyInterval,
  type FreeStart,
  type FreeStartsQuery,
} from '../src/domain/availability/free-starts.js';

// Calendar used below (2026): Mar 2 Mon, Mar 6 Fri, Mar 8 Sun, Mar 29 Sun, Apr 5 Sun, Jul 6 Mon,
// Oct 4 Sun, Oct 25 Sun, Nov 1 Sun.
// DST changes: Lisbon 01:00Z on Mar 29 (01:00 WET → 02:00 WEST) and Oct 25 (02:00 WEST → 01:00 WET);
// New York 02:00 local on Mar 8 (→ 03:00 EDT) and Nov 1 (02:00 EDT → 01:00 EST);
// Sydney 16:00Z on Apr 4 (03:00 AEDT → 02:00 AEST, Apr 5 local) and Oct 3 (02:00 AEST → 03:00 AEDT, Oct 4 local).

const MON = 1;
const FRI = 5;
const SAT = 6;
const SUN = 7;
const HOUR = 3_600_000;

function service(overrides: Partial<Service> = {}): Service {
  return {
    id: 'svc_1',
    name: 'Haircut',
    description: null,
    durationMinutes: 60,
    priceModel: 'fixed',
    price: 2500,
    priceCurrency: 'EUR',
    capacity: 1,
    maxPartySize: 1,
    slotStepMinutes: 60,
    minNoticeMinutes: 0,
    active: true,
    position: 0,
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}

function hours(dayOfWeek: number, opens: string, closes: string): OpeningHoursRange {
  return { dayOfWeek, opens, closes };
}

function closure(startDate: string, endDate: string = startDate): Closure {
  return { id: `cl_${startDate}`, startDate, endDate, reason: null };
}

/** UTC instant from an ISO string with offset (or Z). */
function at(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test date ${iso}`);
  return ms;
}

interface QueryInput extends Partial<Omit<FreeStartsQuery, 'service' | 'fromMs' | 'toMs' | 'nowMs'>> {
  service?: Partial<Service>;
  from: string;
  to: string;
  now?: string;
}

function query(input: QueryInput): FreeStartsQuery {
  const { service: serviceOverrides, from, to, now, ...rest } = input;
  return {
    timeZone: 'Europe/Lisbon',
    openingHours: [],
    closures: [],
    busy: [],
    partySize: 1,
    ...rest,
    service: service(serviceOverrides),
    fromMs: at(from),
    toMs: at(to),
    // Default clock: well before every window, so notice never interferes unless a test sets it.
    nowMs: at(now ?? '2026-01-01T00:00:00Z'),
  };
}

function starts(q: QueryInput): string[] {
  return computeFreeStarts(query(q)).map((s) => s.start);
}

function pairs(q: QueryInput): [string, string][] {
  return computeFreeStarts(query(q)).map((s): [string, string] => [s.start, s.end]);
}

function elapsedMinutes(slot: FreeStart): number {
  return (at(slot.end) - at(slot.start)) / 60_000;
}

describe('computeFreeStarts: basic weekday slots', () => {
  const monday = { openingHours: [hours(MON, '09:00', '12:00')], from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };

  it('steps through the range from opening while the slot still ends by closing', () => {
    expect(pairs(monday)).toEqual([
      ['2026-03-02T09:00:00.000+00:00', '2026-03-02T10:00:00.000+00:00'],
      ['2026-03-02T10:00:00.000+00:00', '2026-03-02T11:00:00.000+00:00'],
      ['2026-03-02T11:00:00.000+00:00', '2026-03-02T12:00:00.000+00:00'],
    ]);
  });

  it('uses a step shorter than the duration', () => {
    expect(starts({ ...monday, service: { slotStepMinutes: 30 } })).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T09:30:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-02T10:30:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
    ]);
  });

  it('steps from the opening time, not from the hour', () => {
    expect(starts({ ...monday, openingHours: [hours(MON, '09:10', '11:40')], service: { slotStepMinutes: 45, durationMinutes: 30 } })).toEqual([
      '2026-03-02T09:10:00.000+00:00',
      '2026-03-02T09:55:00.000+00:00',
      '2026-03-02T10:40:00.000+00:00',
    ]);
  });

  it('only offers days that have opening hours', () => {
    expect(starts({ ...monday, to: '2026-03-09T00:00:00Z' })).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
    ]);
  });

  it('uses the summer offset in summer', () => {
    expect(pairs({ openingHours: [hours(MON, '09:00', '10:00')], from: '2026-07-06T00:00:00Z', to: '2026-07-07T00:00:00Z' })).toEqual([
      ['2026-07-06T09:00:00.000+01:00', '2026-07-06T10:00:00.000+01:00'],
    ]);
  });

  it('keeps starts in [from, to): from is inclusive, to exclusive', () => {
    expect(starts({ ...monday, from: '2026-03-02T10:00:00Z', to: '2026-03-02T11:00:00Z' })).toEqual(['2026-03-02T10:00:00.000+00:00']);
  });

  it('returns nothing for an empty or inverted window', () => {
    expect(starts({ ...monday, from: '2026-03-02T10:00:00Z', to: '2026-03-02T10:00:00Z' })).toEqual([]);
    expect(starts({ ...monday, from: '2026-03-02T11:00:00Z', to: '2026-03-02T10:00:00Z' })).toEqual([]);
  });

  it('prints a numeric offset even for the UTC zone', () => {
    expect(starts({ ...monday, timeZone: 'UTC' })[0]).toBe('2026-03-02T09:00:00.000+00:00');
  });

  it('handles a half-hour offset zone', () => {
    expect(pairs({ ...monday, timeZone: 'Asia/Kolkata', openingHours: [hours(MON, '09:00', '10:00')], from: '2026-03-01T00:00:00Z' })).toEqual([
      ['2026-03-02T09:00:00.000+05:30', '2026-03-02T10:00:00.000+05:30'],
    ]);
  });
});

describe('computeFreeStarts: minimum notice', () => {
  const monday = {
    openingHours: [hours(MON, '09:00', '12:00')],
    from: '2026-03-02T00:00:00Z',
    to: '2026-03-03T00:00:00Z',
    now: '2026-03-02T08:50:00Z',
  };

  it('drops starts sooner than now plus the notice', () => {
    expect(starts({ ...monday, service: { minNoticeMinutes: 60 } })).toEqual([
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
    ]);
  });

  it('keeps a start exactly at now plus the notice', () => {
    expect(starts({ ...monday, service: { minNoticeMinutes: 70 } })[0]).toBe('2026-03-02T10:00:00.000+00:00');
    expect(starts({ ...monday, service: { minNoticeMinutes: 71 } })[0]).toBe('2026-03-02T11:00:00.000+00:00');
  });

  it('without notice still never offers a start in the past', () => {
    expect(starts({ ...monday, now: '2026-03-02T10:30:00Z' })).toEqual(['2026-03-02T11:00:00.000+00:00']);
  });

  it('gives nothing when the notice reaches past the window', () => {
    expect(starts({ ...monday, service: { minNoticeMinutes: 24 * 60 } })).toEqual([]);
  });
});

describe('computeFreeStarts: closures', () => {
  const weekdays = [MON, 2, 3, 4, FRI].map((d) => hours(d, '09:00', '11:00'));
  const week = { openingHours: weekdays, from: '2026-03-02T00:00:00Z', to: '2026-03-07T00:00:00Z' };
  const dates = (list: string[]) => [...new Set(list.map((s) => s.slice(0, 10)))];

  it('closes a whole day', () => {
    expect(dates(starts({ ...week, closures: [closure('2026-03-03')] }))).toEqual(['2026-03-02', '2026-03-04', '2026-03-05', '2026-03-06']);
  });

  it('closes every day of a multi-day closure, both ends included', () => {
    const result = starts({ ...week, closures: [closure('2026-03-03', '2026-03-05')] });
    expect(result).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-06T09:00:00.000+00:00',
      '2026-03-06T10:00:00.000+00:00',
    ]);
  });

  it('combines several closures', () => {
    expect(dates(starts({ ...week, closures: [closure('2026-03-02'), closure('2026-03-05', '2026-03-06')] }))).toEqual([
      '2026-03-03',
      '2026-03-04',
    ]);
  });

  it('judges the local date of the start, not the UTC date', () => {
    // 00:30 local on Mar 3 in Auckland (+13:00) is still Mar 2 in UTC.
    const result = starts({
      timeZone: 'Pacific/Auckland',
      openingHours: [hours(2, '00:30', '01:30')],
      closures: [closure('2026-03-03')],
      from: '2026-03-01T00:00:00Z',
      to: '2026-03-05T00:00:00Z',
    });
    expect(result).toEqual([]);
  });

  it('in a range past midnight, drops only the starts on the closed date', () => {
    const result = starts({
      openingHours: [hours(FRI, '22:00', '02:00')],
      closures: [closure('2026-03-07')],
      from: '2026-03-06T00:00:00Z',
      to: '2026-03-08T00:00:00Z',
    });
    // The 23:00 slot ends on the closed Saturday, but only starts are judged.
    expect(result).toEqual(['2026-03-06T22:00:00.000+00:00', '2026-03-06T23:00:00.000+00:00']);
  });

  it('rejects a malformed closure date', () => {
    expect(() => starts({ ...week, closures: [closure('2026-02-30')] })).toThrow(RangeError);
  });
});

describe('computeFreeStarts: capacity and party sizes', () => {
  const table = {
    service: { capacity: 4, maxPartySize: 4, slotStepMinutes: 30 },
    openingHours: [hours(MON, '09:00', '11:00')],
    from: '2026-03-02T00:00:00Z',
    to: '2026-03-03T00:00:00Z',
    busy: [
      { startAt: at('2026-03-02T09:00:00Z'), endAt: at('2026-03-02T10:00:00Z'), partySize: 2 },
      { startAt: at('2026-03-02T09:30:00Z'), endAt: at('2026-03-02T10:30:00Z'), partySize: 1 },
    ] satisfies BusyInterval[],
  };

  it('fits a party alongside overlapping bookings up to capacity', () => {
    expect(starts({ ...table, partySize: 1 })).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T09:30:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
    ]);
  });

  it('refuses a slot once the overlapping parties plus this one exceed capacity', () => {
    // 09:00 and 09:30 overlap both bookings (3 places); 10:00 only the second (1 place), since the
    // first ends exactly at 10:00 and intervals are half-open.
    expect(starts({ ...table, partySize: 2 })).toEqual(['2026-03-02T10:00:00.000+00:00']);
    expect(starts({ ...table, partySize: 3 })).toEqual(['2026-03-02T10:00:00.000+00:00']);
    expect(starts({ ...table, partySize: 4 })).toEqual([]);
  });

  it('counts every overlapping booking, even ones that do not overlap each other', () => {
    const result = starts({
      ...table,
      service: { capacity: 2, maxPartySize: 2, slotStepMinutes: 60 },
      openingHours: [hours(MON, '09:00', '10:00')],
      busy: [
        { startAt: at('2026-03-02T09:00:00Z'), endAt: at('2026-03-02T09:20:00Z'), partySize: 1 },
        { startAt: at('2026-03-02T09:40:00Z'), endAt: at('2026-03-02T10:00:00Z'), partySize: 1 },
      ],
    });
    expect(result).toEqual([]);
  });

  it('ignores bookings that only touch the slot or lie outside it', () => {
    const result = starts({
      ...table,
      service: { capacity: 1, maxPartySize: 1, slotStepMinutes: 60 },
      openingHours: [hours(MON, '09:00', '12:00')],
      busy: [
        { startAt: at('2026-03-02T08:00:00Z'), endAt: at('2026-03-02T09:00:00Z'), partySize: 1 },
        { startAt: at('2026-03-02T10:00:00Z'), endAt: at('2026-03-02T11:00:00Z'), partySize: 1 },
        { startAt: at('2026-03-02T11:30:00Z'), endAt: at('2026-03-02T11:30:00Z'), partySize: 1 }, // empty
      ],
    });
    expect(result).toEqual(['2026-03-02T09:00:00.000+00:00', '2026-03-02T11:00:00.000+00:00']);
  });

  it('gives no slots to a party larger than maxPartySize, even with room', () => {
    expect(starts({ ...table, busy: [], service: { capacity: 10, maxPartySize: 4 }, partySize: 5 })).toEqual([]);
  });

  it('gives no slots to a party of zero or fewer', () => {
    expect(starts({ ...table, partySize: 0 })).toEqual([]);
  });
});

describe('computeFreeStarts: ranges past midnight', () => {
  const late = { openingHours: [hours(FRI, '22:00', '02:00')], from: '2026-03-06T00:00:00Z', to: '2026-03-08T00:00:00Z' };

  it('continues into the next day when closing is before opening', () => {
    expect(pairs(late)).toEqual([
      ['2026-03-06T22:00:00.000+00:00', '2026-03-06T23:00:00.000+00:00'],
      ['2026-03-06T23:00:00.000+00:00', '2026-03-07T00:00:00.000+00:00'],
      ['2026-03-07T00:00:00.000+00:00', '2026-03-07T01:00:00.000+00:00'],
      ['2026-03-07T01:00:00.000+00:00', '2026-03-07T02:00:00.000+00:00'],
    ]);
  });

  it("finds the previous day's range when the window starts after midnight", () => {
    expect(starts({ ...late, from: '2026-03-07T00:00:00Z' })).toEqual(['2026-03-07T00:00:00.000+00:00', '2026-03-07T01:00:00.000+00:00']);
  });

  it("closes at '24:00' at the end of the day", () => {
    expect(starts({ ...late, openingHours: [hours(FRI, '22:00', '24:00')] })).toEqual([
      '2026-03-06T22:00:00.000+00:00',
      '2026-03-06T23:00:00.000+00:00',
    ]);
  });

  it('treats equal opening and closing as open around the clock', () => {
    expect(starts({ ...late, openingHours: [hours(SAT, '00:00', '00:00')], service: { slotStepMinutes: 360, durationMinutes: 360 } })).toEqual([
      '2026-03-07T00:00:00.000+00:00',
      '2026-03-07T06:00:00.000+00:00',
      '2026-03-07T12:00:00.000+00:00',
      '2026-03-07T18:00:00.000+00:00',
    ]);
  });
});

describe('computeFreeStarts: two ranges a day', () => {
  const window = { from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };

  it('offers both sides of a lunch break and nothing across it', () => {
    expect(starts({ ...window, openingHours: [hours(MON, '09:00', '12:00'), hours(MON, '13:00', '17:00')] })).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
      '2026-03-02T13:00:00.000+00:00',
      '2026-03-02T14:00:00.000+00:00',
      '2026-03-02T15:00:00.000+00:00',
      '2026-03-02T16:00:00.000+00:00',
    ]);
  });

  it('does not let a slot straddle two back-to-back ranges', () => {
    const result = starts({
      ...window,
      service: { durationMinutes: 90, slotStepMinutes: 30 },
      openingHours: [hours(MON, '09:00', '11:00'), hours(MON, '11:00', '13:00')],
    });
    expect(result).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T09:30:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
      '2026-03-02T11:30:00.000+00:00',
    ]);
  });

  it('lists a start once when overlapping ranges both offer it, sorted regardless of range order', () => {
    expect(starts({ ...window, openingHours: [hours(MON, '11:00', '13:00'), hours(MON, '09:00', '12:00')] })).toEqual([
      '2026-03-02T09:00:00.000+00:00',
      '2026-03-02T10:00:00.000+00:00',
      '2026-03-02T11:00:00.000+00:00',
      '2026-03-02T12:00:00.000+00:00',
    ]);
  });
});

describe('computeFreeStarts: Europe/Lisbon DST', () => {
  it('skips the local times that do not exist on the spring-forward day (2026-03-29)', () => {
    const result = computeFreeStarts(
      query({
        openingHours: [hours(SUN, '00:00', '04:00'), hours(SUN, '10:00', '11:00')],
        service: { slotStepMinutes: 30 },
        from: '2026-03-28T12:00:00Z',
        to: '2026-03-30T00:00:00Z',
      }),
    );
    expect(result.map((s) => [s.start, s.end])).toEqual([
      ['2026-03-29T00:00:00.000+00:00', '2026-03-29T02:00:00.000+01:00'],
      ['2026-03-29T00:30:00.000+00:00', '2026-03-29T02:30:00.000+01:00'],
      // 01:00 and 01:30 do not exist and are not shifted to 02:00/02:30.
      ['2026-03-29T02:00:00.000+01:00', '2026-03-29T03:00:00.000+01:00'],
      ['2026-03-29T02:30:00.000+01:00', '2026-03-29T03:30:00.000+01:00'],
      ['2026-03-29T03:00:00.000+01:00', '2026-03-29T04:00:00.000+01:00'],
      ['2026-03-29T10:00:00.000+01:00', '2026-03-29T11:00:00.000+01:00'],
    ]);
    expect(result.every((s) => elapsedMinutes(s) === 60)).toBe(true);
  });

  it('lets an overnight range cross the spring-forward jump', () => {
    expect(
      starts({ openingHours: [hours(SAT, '22:00', '03:00')], from: '2026-03-28T00:00:00Z', to: '2026-03-30T00:00:00Z' }),
    ).toEqual([
      '2026-03-28T22:00:00.000+00:00',
      '2026-03-28T23:00:00.000+00:00',
      '2026-03-29T00:00:00.000+00:00',
      '2026-03-29T02:00:00.000+01:00',
    ]);
  });

  it('offers a repeated local time once, at its first occurrence, on the fall-back day (2026-10-25)', () => {
    const result = computeFreeStarts(
      query({
        openingHours: [hours(SUN, '00:00', '03:00')],
        service: { slotStepMinutes: 30 },
        from: '2026-10-24T12:00:00Z',
        to: '2026-10-26T00:00:00Z',
      }),
    );
    expect(result.map((s) => [s.start, s.end])).toEqual([
      ['2026-10-25T00:00:00.000+01:00', '2026-10-25T01:00:00.000+01:00'],
      ['2026-10-25T00:30:00.000+01:00', '2026-10-25T01:30:00.000+01:00'],
      ['2026-10-25T01:00:00.000+01:00', '2026-10-25T01:00:00.000+00:00'],
      ['2026-10-25T01:30:00.000+01:00', '2026-10-25T01:30:00.000+00:00'],
      ['2026-10-25T02:00:00.000+00:00', '2026-10-25T03:00:00.000+00:00'],
    ]);
    expect(result.every((s) => elapsedMinutes(s) === 60)).toBe(true);
  });

  it('includes a local day that starts on the previous UTC day', () => {
    // 00:00+01:00 on Oct 25 is 23:00Z on Oct 24.
    expect(starts({ openingHours: [hours(SUN, '00:00', '01:00')], from: '2026-10-24T23:00:00Z', to: '2026-10-25T00:00:00Z' })).toEqual([
      '2026-10-25T00:00:00.000+01:00',
    ]);
  });

  it('keeps the same local hours on either side of a change', () => {
    const result = starts({ openingHours: [hours(SAT, '10:00', '11:00'), hours(SUN, '10:00', '11:00')], from: '2026-03-28T00:00:00Z', to: '2026-03-30T00:00:00Z' });
    expect(result).toEqual(['2026-03-28T10:00:00.000+00:00', '2026-03-29T10:00:00.000+01:00']);
  });
});

describe('computeFreeStarts: America/New_York DST', () => {
  const ny = { timeZone: 'America/New_York' };

  it('skips 02:00–02:59 on 2026-03-08', () => {
    const result = computeFreeStarts(
      query({
        ...ny,
        openingHours: [hours(SUN, '01:00', '04:00')],
        service: { slotStepMinutes: 30, durationMinutes: 30 },
        from: '2026-03-08T00:00:00Z',
        to: '2026-03-09T00:00:00Z',
      }),
    );
    expect(result.map((s) => [s.start, s.end])).toEqual([
      ['2026-03-08T01:00:00.000-05:00', '2026-03-08T01:30:00.000-05:00'],
      ['2026-03-08T01:30:00.000-05:00', '2026-03-08T03:00:00.000-04:00'],
      ['2026-03-08T03:00:00.000-04:00', '2026-03-08T03:30:00.000-04:00'],
      ['2026-03-08T03:30:00.000-04:00', '2026-03-08T04:00:00.000-04:00'],
    ]);
  });

  it('offers 01:00–01:59 once (EDT) on 2026-11-01, with 60 real minutes per slot', () => {
    const result = computeFreeStarts(
      query({
        ...ny,
        openingHours: [hours(SUN, '00:00', '02:00')],
        service: { slotStepMinutes: 30 },
        from: '2026-11-01T00:00:00Z',
        to: '2026-11-02T00:00:00Z',
      }),
    );
    // Closing at 02:00 EST leaves three real hours, so even the 01:30 EDT start fits.
    expect(result.map((s) => [s.start, s.end])).toEqual([
      ['2026-11-01T00:00:00.000-04:00', '2026-11-01T01:00:00.000-04:00'],
      ['2026-11-01T00:30:00.000-04:00', '2026-11-01T01:30:00.000-04:00'],
      ['2026-11-01T01:00:00.000-04:00', '2026-11-01T01:00:00.000-05:00'],
      ['2026-11-01T01:30:00.000-04:00', '2026-11-01T01:30:00.000-05:00'],
    ]);
  });

  it('counts a booking held in the repeated hour against real time', () => {
    // Booked 01:00–02:00 EST (06:00Z–07:00Z), the second 01:00; the first 01:00 (EDT) stays free.
    const result = starts({
      ...ny,
      openingHours: [hours(SUN, '00:00', '03:00')],
      busy: [{ startAt: at('2026-11-01T01:00:00-05:00'), endAt: at('2026-11-01T02:00:00-05:00'), partySize: 1 }],
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
    });
    expect(result).toEqual(['2026-11-01T00:00:00.000-04:00', '2026-11-01T01:00:00.000-04:00', '2026-11-01T02:00:00.000-05:00']);
  });
});

describe('computeFreeStarts: Australia/Sydney DST (southern hemisphere)', () => {
  const sydney = { timeZone: 'Australia/Sydney' };

  it('offers 02:00 once (AEDT) when daylight time ends on 2026-04-05', () => {
    const result = computeFreeStarts(
      query({
        ...sydney,
        openingHours: [hours(SUN, '01:00', '04:00')],
        from: '2026-04-04T00:00:00Z',
        to: '2026-04-06T00:00:00Z',
      }),
    );
    expect(result.map((s) => [s.start, s.end])).toEqual([
      ['2026-04-05T01:00:00.000+11:00', '2026-04-05T02:00:00.000+11:00'],
      ['2026-04-05T02:00:00.000+11:00', '2026-04-05T02:00:00.000+10:00'],
      ['2026-04-05T03:00:00.000+10:00', '2026-04-05T04:00:00.000+10:00'],
    ]);
    expect(result.every((s) => elapsedMinutes(s) === 60)).toBe(true);
  });

  it('skips 02:00–02:59 when daylight time starts on 2026-10-04', () => {
    expect(
      pairs({
        ...sydney,
        openingHours: [hours(SUN, '01:00', '04:00')],
        service: { slotStepMinutes: 30 },
        from: '2026-10-03T00:00:00Z',
        to: '2026-10-05T00:00:00Z',
      }),
    ).toEqual([
      ['2026-10-04T01:00:00.000+10:00', '2026-10-04T03:00:00.000+11:00'],
      ['2026-10-04T01:30:00.000+10:00', '2026-10-04T03:30:00.000+11:00'],
      ['2026-10-04T03:00:00.000+11:00', '2026-10-04T04:00:00.000+11:00'],
    ]);
  });

  it('uses summer time in January and standard time in July', () => {
    const monday10 = [hours(MON, '10:00', '11:00')];
    expect(starts({ ...sydney, openingHours: monday10, from: '2026-01-04T00:00:00Z', to: '2026-01-06T00:00:00Z' })).toEqual([
      '2026-01-05T10:00:00.000+11:00',
    ]);
    expect(starts({ ...sydney, openingHours: monday10, from: '2026-07-05T00:00:00Z', to: '2026-07-07T00:00:00Z' })).toEqual([
      '2026-07-06T10:00:00.000+10:00',
    ]);
  });
});

describe('computeFreeStarts: output and input checks', () => {
  it('covers a full 14-day window every 15 minutes, sorted and unique', () => {
    const everyDay = [1, 2, 3, 4, 5, 6, 7].map((d) => hours(d, '00:00', '24:00'));
    const t0 = performance.now();
    const result = starts({
      openingHours: everyDay,
      service: { durationMinutes: 15, slotStepMinutes: 15 },
      from: '2026-01-05T00:00:00Z',
      to: '2026-01-19T00:00:00Z',
    });
    const elapsedMs = performance.now() - t0;
    expect(result).toHaveLength(14 * 96);
    expect(result[0]).toBe('2026-01-05T00:00:00.000+00:00');
    expect(result.at(-1)).toBe('2026-01-18T23:45:00.000+00:00');
    const instants = result.map(at);
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(new Set(instants).size).toBe(instants.length);
    expect(elapsedMs).toBeLessThan(1000); // generous; it runs in a few milliseconds
  });

  it('rejects an unknown zone, a zero step and malformed hours', () => {
    const base = { openingHours: [hours(MON, '09:00', '12:00')], from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };
    expect(() => starts({ ...base, timeZone: 'Mars/Olympus_Mons' })).toThrow(RangeError);
    expect(() => starts({ ...base, service: { slotStepMinutes: 0 } })).toThrow(RangeError);
    expect(() => starts({ ...base, openingHours: [hours(MON, '9:00', '12:00')] })).toThrow(RangeError);
    expect(() => starts({ ...base, openingHours: [hours(MON, '24:00', '12:00')] })).toThrow(RangeError);
    expect(() => starts({ ...base, openingHours: [hours(0, '09:00', '12:00')] })).toThrow(RangeError);
    expect(() => computeFreeStarts({ ...query(base), toMs: Number.POSITIVE_INFINITY })).toThrow(RangeError);
  });
});

describe('isWithinOpeningHours', () => {
  const lisbon = 'Europe/Lisbon';
  const lunchBreak = [hours(MON, '09:00', '12:00'), hours(MON, '13:00', '17:00')];
  const within = (startIso: string, endIso: string, openingHours: readonly OpeningHoursRange[], closures: Closure[] = [], zone = lisbon) =>
    isWithinOpeningHours(at(startIso), at(endIso), zone, openingHours, closures);

  it('accepts an interval inside one range, up to its edges', () => {
    expect(within('2026-03-02T09:00:00Z', '2026-03-02T12:00:00Z', lunchBreak)).toBe(true);
    expect(within('2026-03-02T14:10:00Z', '2026-03-02T15:20:00Z', lunchBreak)).toBe(true);
  });

  it('rejects an interval that starts before opening, runs past closing, or spans the break', () => {
    expect(within('2026-03-02T08:59:00Z', '2026-03-02T10:00:00Z', lunchBreak)).toBe(false);
    expect(within('2026-03-02T16:30:00Z', '2026-03-02T17:01:00Z', lunchBreak)).toBe(false);
    expect(within('2026-03-02T11:30:00Z', '2026-03-02T13:30:00Z', lunchBreak)).toBe(false);
    expect(within('2026-03-03T09:00:00Z', '2026-03-03T10:00:00Z', lunchBreak)).toBe(false); // Tuesday
  });

  it('rejects an interval starting on a closure date', () => {
    expect(within('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z', lunchBreak, [closure('2026-03-01', '2026-03-02')])).toBe(false);
  });

  it('rejects an empty or inverted interval', () => {
    expect(within('2026-03-02T10:00:00Z', '2026-03-02T10:00:00Z', lunchBreak)).toBe(false);
    expect(within('2026-03-02T11:00:00Z', '2026-03-02T10:00:00Z', lunchBreak)).toBe(false);
  });

  it("accepts the after-midnight part of the previous day's range", () => {
    const late = [hours(FRI, '22:00', '02:00')];
    expect(within('2026-03-07T00:30:00Z', '2026-03-07T02:00:00Z', late)).toBe(true);
    expect(within('2026-03-07T01:30:00Z', '2026-03-07T02:30:00Z', late)).toBe(false);
    expect(within('2026-03-07T00:30:00Z', '2026-03-07T01:30:00Z', late, [closure('2026-03-07')])).toBe(false);
  });

  it('measures ranges in real time across DST changes', () => {
    const night = [hours(SUN, '00:00', '03:00')];
    // Spring forward: 00:00 WET to 03:00 WEST is only two real hours.
    expect(within('2026-03-29T00:00:00+00:00', '2026-03-29T03:00:00+01:00', night)).toBe(true);
    expect(within('2026-03-29T00:00:00+00:00', '2026-03-29T03:30:00+01:00', night)).toBe(false);
    // Fall back: 00:00 WEST to 03:00 WET is four real hours.
    expect(within('2026-10-25T00:00:00+01:00', '2026-10-25T03:00:00+00:00', night)).toBe(true);
    expect(within('2026-10-25T01:30:00+00:00', '2026-10-25T02:30:00+00:00', night)).toBe(true); // the second 01:30
  });

  it('opens a range whose opening time is skipped by the jump when the clock jumps', () => {
    // 01:30 does not exist on 2026-03-29 in Lisbon; the range opens at 02:00 WEST (01:00Z).
    const skipped = [hours(SUN, '01:30', '04:00')];
    expect(within('2026-03-29T02:00:00+01:00', '2026-03-29T03:00:00+01:00', skipped)).toBe(true);
    expect(within('2026-03-29T00:59:00+00:00', '2026-03-29T02:30:00+01:00', skipped)).toBe(false);
  });

  it('agrees with computeFreeStarts for every slot it offers', () => {
    const cases: { zone: string; from: string; openingHours: OpeningHoursRange[] }[] = [
      { zone: lisbon, from: '2026-03-26T00:00:00Z', openingHours: [hours(SAT, '22:00', '03:00'), hours(SUN, '00:00', '04:00'), ...lunchBreak] },
      { zone: lisbon, from: '2026-10-22T00:00:00Z', openingHours: [hours(SAT, '22:00', '03:00'), hours(SUN, '00:30', '02:30')] },
      { zone: 'America/New_York', from: '2026-10-29T00:00:00Z', openingHours: [hours(SAT, '23:00', '03:00'), hours(SUN, '01:00', '02:00')] },
      { zone: 'Australia/Sydney', from: '2026-10-01T00:00:00Z', openingHours: [hours(SAT, '20:00', '04:00'), hours(SUN, '02:30', '05:00')] },
    ];
    for (const c of cases) {
      const q = query({
        timeZone: c.zone,
        openingHours: c.openingHours,
        service: { durationMinutes: 45, slotStepMinutes: 15 },
        from: c.from,
        to: new Date(at(c.from) + 7 * 24 * HOUR).toISOString(),
      });
      const slots = computeFreeStarts(q);
      expect(slots.length).toBeGreaterThan(0);
      for (const slot of slots) {
        expect(isWithinOpeningHours(at(slot.start), at(slot.end), c.zone, c.openingHours, [])).toBe(true);
        expect(elapsedMinutes(slot)).toBe(45);
      }
    }
  });
});
