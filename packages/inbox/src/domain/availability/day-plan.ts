/**
 * The owner's day and week (docs/web.md "Today", "The calendar"): which local days a date names in
 * the business's zone, and how a day's bookings sit in lanes. A service with capacity n has n lanes
 * (one per place: a chair, a seat); a booking that holds places (confirmed, and the outcomes after
 * it) takes as many lanes as its party, the first free ones; a booking still waiting for the
 * business (requested, details asked, a time proposed) holds no place (inbox spec: the place is
 * claimed at confirm), so it goes into a lane of requests beside them. Pure: no clock, no storage.
 */
import { DateTime } from 'luxon';
import type { Closure, ItemRecord, OpeningHoursRange, Service } from '../types.js';

/** States of a booking that hold places of its service. */
export const HOLDS_PLACES: ReadonlySet<string> = new Set(['confirmed', 'completed', 'no_show']);
/** States of a booking still waiting on the business or the customer: shown, holding nothing. */
export const WAITING: ReadonlySet<string> = new Set(['requested', 'needs_info', 'proposed']);

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local date (YYYY-MM-DD) as given, when it is a real date between 2000 and 2100; else null. */
export function parseLocalDate(text: string | undefined, timeZone: string): DateTime | null {
  if (text === undefined) return null;
  const match = ISO_DATE.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  if (year < 2000 || year > 2100) return null;
  const day = DateTime.fromISO(text, { zone: timeZone });
  return day.isValid && day.toISODate() === text ? day.startOf('day') : null;
}

/** The local day holding `nowMs` in the zone. */
export function todayIn(nowMs: number, timeZone: string): DateTime {
  return DateTime.fromMillis(nowMs, { zone: timeZone }).startOf('day');
}

/** [start, end) of a local day in UTC milliseconds (23 or 25 hours across a change of offset). */
export function dayBounds(day: DateTime): { fromMs: number; toMs: number } {
  return { fromMs: day.startOf('day').toMillis(), toMs: day.plus({ days: 1 }).startOf('day').toMillis() };
}

/** The Monday that starts the week holding `day` (ISO weeks, as in Portugal and the UK). */
export function weekStart(day: DateTime): DateTime {
  return day.startOf('day').minus({ days: day.weekday - 1 });
}

/** A lane of the calendar: one place of a service, or one lane of requests waiting for the business. */
export interface Lane {
  kind: 'place' | 'requests' | 'over';
  serviceId: string | null;
  serviceName: string | null;
  /** 1-based place of the service (lanes of requests and over capacity count on their own). */
  place: number;
  /** The bookings in this lane, by start. */
  bookings: ItemRecord[];
}

function overlaps(a: ItemRecord, b: ItemRecord): boolean {
  return (a.startAt ?? 0) < (b.endAt ?? 0) && (b.startAt ?? 0) < (a.endAt ?? 0);
}

function fits(lane: Lane, booking: ItemRecord): boolean {
  return lane.bookings.every((other) => !overlaps(other, booking));
}

/**
 * Lanes for the bookings of a span (a day): the places of every service given (in their order),
 * then lanes over capacity where confirmed bookings exceed it (a capacity lowered later), then as
 * many lanes of requests as overlapping requests need. Bookings in other states (cancelled,
 * declined, expired) are left out: they hold no time.
 */
export function laneLayout(services: readonly Service[], bookings: readonly ItemRecord[]): Lane[] {
  const sorted = [...bookings].sort((a, b) => (a.startAt ?? 0) - (b.startAt ?? 0) || a.id.localeCompare(b.id));
  const places = new Map<string, Lane[]>();
  const over = new Map<string, Lane[]>();
  const lanes: Lane[] = [];
  for (const service of services) {
    const own: Lane[] = [];
    for (let place = 1; place <= Math.max(1, service.capacity); place += 1) {
      own.push({ kind: 'place', serviceId: service.id, serviceName: service.name, place, bookings: [] });
    }
    places.set(service.id, own);
    lanes.push(...own);
  }
  const requests: Lane[] = [];
  for (const booking of sorted) {
    if (booking.startAt === null || booking.endAt === null) continue;
    if (WAITING.has(booking.state)) {
      let lane = requests.find((candidate) => fits(candidate, booking));
      if (!lane) {
        lane = { kind: 'requests', serviceId: null, serviceName: null, place: requests.length + 1, bookings: [] };
        requests.push(lane);
      }
      lane.bookings.push(booking);
      continue;
    }
    if (!HOLDS_PLACES.has(booking.state) || booking.serviceId === null) continue;
    const own = places.get(booking.serviceId) ?? [];
    const free = own.filter((lane) => fits(lane, booking)).slice(0, Math.max(1, booking.partySize ?? 1));
    if (free.length > 0) {
      for (const lane of free) lane.bookings.push(booking);
      continue;
    }
    const extra = over.get(booking.serviceId) ?? [];
    let lane = extra.find((candidate) => fits(candidate, booking));
    if (!lane) {
      const name = own[0]?.serviceName ?? booking.serviceId;
      lane = { kind: 'over', serviceId: booking.serviceId, serviceName: name, place: extra.length + 1, bookings: [] };
      extra.push(lane);
      over.set(booking.serviceId, extra);
    }
    lane.bookings.push(booking);
  }
  for (const extra of over.values()) lanes.push(...extra);
  lanes.push(...requests);
  return lanes;
}

/** The opening periods of a local day as local times ("09:30", "13:00"), none on a closure day. */
export function openingOn(day: DateTime, openingHours: readonly OpeningHoursRange[], closures: readonly Closure[]): { opens: string; closes: string }[] {
  const date = day.toISODate() ?? '';
  if (closures.some((closure) => closure.startDate <= date && date <= closure.endDate)) return [];
  return openingHours
    .filter((range) => range.dayOfWeek === day.weekday)
    .map((range) => ({ opens: range.opens, closes: range.closes }))
    .sort((a, b) => a.opens.localeCompare(b.opens));
}

/** The closure a local day falls in, if any. */
export function closureOn(day: DateTime, closures: readonly Closure[]): Closure | null {
  const date = day.toISODate() ?? '';
  return closures.find((closure) => closure.startDate <= date && date <= closure.endDate) ?? null;
}

