/**
 * What availability already rules out, refused before a booking is stored (docs/items.md, "When a
 * booking is refused"): a start in the past or before the service's notice, a start on a closure
 * day, a booking outside opening hours, and a slot already full of confirmed bookings (a party
 * larger than the service takes is refused by createBooking, since maxPartySize never exceeds
 * capacity). A start in the past is bad input (422 `invalid_input`); every other time availability
 * does not offer is 409 `slot_taken` (issue 19 settled the choice
 * issue 12 left open): the problem names the field to change in `fields` (`payload.startTime`, or
 * `payload.endTime` when the one given runs past closing) and what an agent can act on: `next_free`,
 * the nearest free starts (the same computation as check_availability), and `availability`, the
 * check_availability call that lists more. Before any of that, refuseImpossibleLength refuses an end
 * before the start or more than the availability window after it (422 on `payload.endTime`).
 */
import { Problem, type FieldProblem } from '@svc/shared';
import { DateTime } from 'luxon';
import { loadProfile, readSchedule, type DomainContext } from '../context.js';
import type { Closure, OpeningHoursRange, Service } from '../types.js';
import { MAX_WINDOW_DAYS } from './check-availability.js';
import { computeFreeStarts, isWithinOpeningHours, localDateInZone, type FreeStart } from './free-starts.js';

/** How many free starts a refusal offers. */
export const NEXT_FREE_COUNT = 5;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const WEEKDAYS = ['Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];

export interface BookingTimeRequest {
  service: Service;
  timeZone: string;
  startAt: number;
  endAt: number;
  partySize: number;
  /** Whether the request named its own end (a refusal for running past closing then names payload.endTime). */
  endTimeGiven: boolean;
  /** A sandbox booking never takes a real slot, so a full slot does not refuse it (the other checks do). */
  sandbox: boolean;
}

/**
 * The longest booking taken: the availability window (14 days) from its start. A fixed-price
 * service booked for longer than it lasts still comes in and waits for the business to price it;
 * a length no business offers (a 45-minute haircut for ten years) is bad input (issue 19).
 */
export const MAX_BOOKING_LENGTH_MS = MAX_WINDOW_DAYS * DAY_MS;

/** Throws 422 on payload.endTime for an end at or before the start, or past the longest booking. */
export function refuseImpossibleLength(startAt: number, endAt: number): void {
  if (endAt <= startAt) throw badTime('payload.endTime', 'endTime must be after startTime.');
  if (endAt - startAt > MAX_BOOKING_LENGTH_MS) {
    throw badTime('payload.endTime', `A booking lasts at most ${MAX_WINDOW_DAYS} days (the availability window); send an endTime at most that long after startTime.`);
  }
}

/** Throws the refusal for a booking availability rules out; returns when the time can be requested. */
export async function refuseUnbookableTime(ctx: DomainContext, request: BookingTimeRequest): Promise<void> {
  const { service, timeZone, startAt, endAt, partySize } = request;
  const nowMs = ctx.clock.now();
  const { openingHours, closures } = await readSchedule(ctx.store);
  const offer = (fromMs: number) => nextFree(ctx, { service, timeZone, openingHours, closures, partySize, fromMs, nowMs });
  // Alternatives from the start of the asked day (or now, when that is later), so an agent sees the same day first.
  const sameDayOn = () => Math.max(nowMs, DateTime.fromMillis(startAt, { zone: timeZone }).startOf('day').toMillis());

  const noticeMs = service.minNoticeMinutes * MINUTE_MS;
  if (startAt <= nowMs) {
    // The past is no time at all: bad input, not a taken slot.
    throw badTime('payload.startTime', 'startTime is in the past; book a later time.', await offer(nowMs));
  }
  if (startAt < nowMs + noticeMs) {
    throw refusal('payload.startTime', `${service.name} needs ${notice(service.minNoticeMinutes)} notice; book a later time.`, await offer(nowMs));
  }

  const startDate = localDateInZone(startAt, timeZone);
  const closure = closures.find((c) => c.startDate <= startDate && startDate <= c.endDate);
  if (closure) {
    const reason = closure.reason ? ` (${closure.reason})` : '';
    const span = closure.startDate === closure.endDate ? `on ${closure.startDate}` : `from ${closure.startDate} to ${closure.endDate}`;
    throw refusal('payload.startTime', `The business is closed ${span}${reason}; pick another day.`, await offer(sameDayOn()));
  }

  if (!isWithinOpeningHours(startAt, endAt, timeZone, openingHours, closures)) {
    const startsInHours = isWithinOpeningHours(startAt, startAt + 1, timeZone, openingHours, closures);
    const path = startsInHours && request.endTimeGiven ? 'payload.endTime' : 'payload.startTime';
    const what = startsInHours ? 'That booking runs past closing time' : 'That time is outside opening hours';
    throw refusal(path, `${what}: ${hoursOn(startAt, timeZone, openingHours)}.`, await offer(sameDayOn()));
  }

  if (!request.sandbox) {
    const taken = await slotProblem(ctx, service.id, startAt, endAt, partySize, null);
    if (taken) {
      const free = await offer(sameDayOn());
      throw new Problem(taken.code, taken.message, { extensions: free });
    }
  }
}

/** A time availability does not offer. */
function refusal(path: string, message: string, extensions?: Record<string, unknown>): Problem {
  const fields: FieldProblem[] = [{ path, problem: 'invalid', message }];
  return new Problem('slot_taken', message, { fields, ...(extensions ? { extensions } : {}) });
}

/** A time that cannot be a booking's at all. */
function badTime(path: string, message: string, extensions?: Record<string, unknown>): Problem {
  const fields: FieldProblem[] = [{ path, problem: 'invalid', message }];
  return new Problem('invalid_input', message, { fields, ...(extensions ? { extensions } : {}) });
}

function notice(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? 'a day\u2019s' : `${minutes / 1440} days\u2019`;
  if (minutes % 60 === 0) return minutes === 60 ? 'an hour\u2019s' : `${minutes / 60} hours\u2019`;
  return `${minutes} minutes\u2019`;
}

/** "open 09:30–13:00 and 14:00–19:30 on Tuesdays (Europe/Lisbon)", or "closed on Mondays". */
function hoursOn(startAt: number, timeZone: string, openingHours: readonly OpeningHoursRange[]): string {
  const weekday = DateTime.fromMillis(startAt, { zone: timeZone }).weekday;
  const ranges = openingHours.filter((r) => r.dayOfWeek === weekday).map((r) => `${r.opens}\u2013${r.closes}`);
  const day = WEEKDAYS[weekday - 1] ?? 'that day';
  return ranges.length === 0 ? `closed on ${day} (${timeZone})` : `open ${ranges.join(' and ')} on ${day} (${timeZone})`;
}

/**
 * The next free starts from `fromMs`, looking ahead up to the availability window (14 days), and the
 * check_availability call for the same days (`next_free` is empty when they have none).
 */
async function nextFree(
  ctx: DomainContext,
  q: { service: Service; timeZone: string; openingHours: readonly OpeningHoursRange[]; closures: readonly Closure[]; partySize: number; fromMs: number; nowMs: number },
): Promise<{ next_free: FreeStart[]; availability: string }> {
  const toMs = q.fromMs + MAX_WINDOW_DAYS * DAY_MS;
  const busy = await ctx.store.items.confirmedBookings(q.service.id, q.fromMs - DAY_MS, toMs + DAY_MS);
  const slots = computeFreeStarts({ ...q, busy, toMs });
  const day = (ms: number) => DateTime.fromMillis(ms, { zone: q.timeZone }).toISODate() ?? '';
  // 13 days, the last inclusive: within the 14-day limit even across a fall-back night.
  const params = new URLSearchParams({ service: q.service.id, from: day(q.fromMs), to: day(q.fromMs + (MAX_WINDOW_DAYS - 2) * DAY_MS) });
  if (q.partySize !== 1) params.set('party_size', String(q.partySize));
  return { next_free: slots.slice(0, NEXT_FREE_COUNT), availability: `/v1/availability?${params.toString()}` };
}

/**
 * A full slot's refusal when the business confirms (or a customer accepts) a booking: the same
 * `next_free` and `availability` as a refused request (docs/items.md), from the start of the
 * booking's day or from now, so the owner can propose one of them in one step (docs/web.md "A full slot").
 */
export async function slotTakenWithNextFree(ctx: DomainContext, taken: Problem, service: Service, startAt: number, partySize: number): Promise<Problem> {
  const free = await nextFreeAround(ctx, service, startAt, partySize);
  return new Problem(taken.code, 'That time is full: the service\u2019s places are taken by confirmed bookings. Propose one of next_free instead.', { extensions: free });
}

/** The next free starts from the start of the booking's local day (or from now, when later). */
export async function nextFreeAround(ctx: DomainContext, service: Service, startAt: number, partySize: number): Promise<{ next_free: FreeStart[]; availability: string }> {
  const nowMs = ctx.clock.now();
  const [{ profile }, { openingHours, closures }] = await Promise.all([loadProfile(ctx.store), readSchedule(ctx.store)]);
  const timeZone = profile.timeZone;
  const fromMs = Math.max(nowMs, DateTime.fromMillis(startAt, { zone: timeZone }).startOf('day').toMillis());
  return nextFree(ctx, { service, timeZone, openingHours, closures, partySize, fromMs, nowMs });
}

/**
 * For the owner app: when a booking still waiting for the business asks for a time its service's
 * confirmed bookings already fill (so Confirm is not offered), the next free starts to propose
 * instead; null when the slot is not full (or the item is no such booking).
 */
export async function fullSlotOf(ctx: DomainContext, itemId: string): Promise<FreeStart[] | null> {
  const item = await ctx.store.items.get(itemId);
  if (!item || item.type !== 'booking' || !item.serviceId || item.startAt === null || item.endAt === null) return null;
  if (item.state !== 'requested' && item.state !== 'needs_info') return null;
  const taken = await slotProblem(ctx, item.serviceId, item.startAt, item.endAt, item.partySize ?? 1, item.id);
  if (taken?.code !== 'slot_taken') return null;
  const service = await ctx.store.catalogue.getService(item.serviceId);
  return service ? (await nextFreeAround(ctx, service, item.startAt, item.partySize ?? 1)).next_free : [];
}

/** Whether a booking of `partySize` fits among the service's confirmed (non-sandbox) bookings. */
export async function slotProblem(
  ctx: DomainContext,
  serviceId: string,
  startAt: number,
  endAt: number,
  partySize: number,
  excludeItemId: string | null,
): Promise<Problem | null> {
  const service = await ctx.store.catalogue.getService(serviceId);
  if (!service) return new Problem('guard_failed', 'The service no longer exists.');
  const busy = await ctx.store.items.confirmedBookings(serviceId, startAt, endAt);
  const taken = busy.filter((b) => b.itemId !== excludeItemId).reduce((sum, b) => sum + b.partySize, 0);
  return taken + partySize <= service.capacity ? null : new Problem('slot_taken', 'That time is no longer free; check availability for another.');
}
