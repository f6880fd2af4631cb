/**
 * Free booking starts for a service, computed from opening hours, closures and confirmed bookings.
 *
 * Pure: no clock, no storage. Everything is evaluated on the business's local wall clock (opening
 * hours and closures are local), while durations, the window, notice and overlaps are real elapsed
 * time (UTC milliseconds). The two meet in {@link OffsetTimeline}, which turns local wall-clock
 * times into instants for one IANA zone, including across DST changes.
 */
import { DateTime, IANAZone } from 'luxon';
import type { Closure, OpeningHoursRange, Service } from '../types.js';

/** A confirmed booking of this service, in UTC milliseconds. */
export interface BusyInterval {
  startAt: number;
  endAt: number;
  partySize: number;
}

export interface FreeStartsQuery {
  service: Service;
  /** IANA zone of the business, e.g. 'Europe/Lisbon'. */
  timeZone: string;
  /** Local 'HH:MM'; `closes` may be '24:00'; `closes <= opens` runs past midnight into the next day. */
  openingHours: readonly OpeningHoursRange[];
  /** Inclusive local dates on which no slot may start. */
  closures: readonly Closure[];
  busy: readonly BusyInterval[];
  /** Window of acceptable starts, [fromMs, toMs) in UTC milliseconds; callers keep it to 14 days or less. */
  fromMs: number;
  toMs: number;
  partySize: number;
  nowMs: number;
}

/** ISO 8601 in the business's local offset, e.g. '2026-03-29T10:00:00.000+01:00'. */
export interface FreeStart {
  start: string;
  end: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const MINUTES_PER_DAY = 24 * 60;
/**
 * Extra span around a window for which zone offsets are precomputed: one margin day each side
 * (ranges that open the day before), one more for ranges that run past midnight, and one for
 * the ±1 day probes in {@link OffsetTimeline.instantsAt}.
 */
const TIMELINE_MARGIN_MS = 4 * DAY_MS;

/**
 * A local date and time encoded as milliseconds since 1970-01-01T00:00 *local* (what Date.UTC
 * returns for the same fields). Adding to it is calendar arithmetic, free of any offset; turning
 * it into an instant needs the zone.
 */
type WallMs = number;

/** Whole local days since 1970-01-01 (a WallMs divided by a day). */
type LocalDay = number;

export function computeFreeStarts(q: FreeStartsQuery): FreeStart[] {
  const { service } = q;
  // Non-finite bounds would make the day and offset loops run forever.
  assertFinite([q.fromMs, q.toMs, q.nowMs], 'fromMs, toMs and nowMs');
  assertPositive(service.durationMinutes, 'service.durationMinutes');
  // A zero step would never advance through a range.
  assertPositive(service.slotStepMinutes, 'service.slotStepMinutes');
  if (q.partySize < 1 || q.partySize > service.maxPartySize || q.partySize > service.capacity) return [];

  const earliestMs = Math.max(q.fromMs, q.nowMs + service.minNoticeMinutes * MINUTE_MS);
  if (earliestMs >= q.toMs) return [];

  const timeline = timelineFor(q.timeZone, q.fromMs - TIMELINE_MARGIN_MS, q.toMs + TIMELINE_MARGIN_MS);
  const schedule = Schedule.parse(q.openingHours, q.closures);
  const durationMs = service.durationMinutes * MINUTE_MS;

  const starts = openingStarts(schedule, timeline, q.fromMs, q.toMs, service.slotStepMinutes * MINUTE_MS, durationMs)
    .filter((startMs) => startMs >= earliestMs && startMs < q.toMs);

  const busy = relevantBusy(q.busy, earliestMs, q.toMs + durationMs);
  const free: FreeStart[] = [];
  for (const startMs of starts) {
    const endMs = startMs + durationMs;
    if (placesTaken(busy, startMs, endMs) + q.partySize <= service.capacity) {
      free.push({ start: timeline.formatIso(startMs), end: timeline.formatIso(endMs) });
    }
  }
  return free;
}

/**
 * Does [startMs, endMs) lie wholly inside a single opening range (local hours, DST-aware), with the
 * start not on a closure date? For validating or pricing a requested booking; it does not check
 * slot alignment, notice or capacity. An empty or inverted interval is never within hours.
 */
export function isWithinOpeningHours(
  startMs: number,
  endMs: number,
  timeZone: string,
  openingHours: readonly OpeningHoursRange[],
  closures: readonly Closure[],
): boolean {
  assertFinite([startMs, endMs], 'startMs and endMs');
  if (endMs <= startMs) return false;
  // Only ranges opening the day before or on the start's day can contain it, so the timeline need
  // only cover the start; anything far beyond is past every candidate close anyway.
  const timeline = timelineFor(timeZone, startMs - TIMELINE_MARGIN_MS, startMs + TIMELINE_MARGIN_MS);
  const schedule = Schedule.parse(openingHours, closures);
  const startDay = localDayOf(timeline.wallAt(startMs));
  if (schedule.isClosed(startDay)) return false;

  // Yesterday's range may run past midnight and still be open.
  for (const day of [startDay - 1, startDay]) {
    for (const range of schedule.rangesOn(day)) {
      const opensAt = timeline.firstInstantAtOrAfter(range.opensWall(day));
      const closesAt = timeline.firstInstantAtOrAfter(range.closesWall(day));
      if (opensAt <= startMs && endMs <= closesAt) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Slot generation

/**
 * Every start that fits in an opening range, for each local day covering the window plus one day
 * each side, sorted and without duplicates (overlapping ranges can propose the same start).
 * Not yet filtered by window, notice or capacity.
 */
function openingStarts(
  schedule: Schedule,
  timeline: OffsetTimeline,
  fromMs: number,
  toMs: number,
  stepMs: number,
  durationMs: number,
): number[] {
  const firstDay = localDayOf(timeline.wallAt(fromMs)) - 1;
  const lastDay = localDayOf(timeline.wallAt(toMs)) + 1;
  const starts = new Set<number>();
  for (let day = firstDay; day <= lastDay; day++) {
    for (const range of schedule.rangesOn(day)) {
      addRangeStarts(starts, range, day, schedule, timeline, stepMs, durationMs);
    }
  }
  return [...starts].sort((a, b) => a - b);
}

/**
 * Steps through one range on the wall clock from its opening time. A wall time skipped by a DST
 * jump has no instant and is dropped (not shifted); a repeated one uses its first occurrence. The
 * slot must then end, in real elapsed time, by the range's close.
 */
function addRangeStarts(
  starts: Set<number>,
  range: ParsedRange,
  day: LocalDay,
  schedule: Schedule,
  timeline: OffsetTimeline,
  stepMs: number,
  durationMs: number,
): void {
  const closesWall = range.closesWall(day);
  const closesAt = timeline.firstInstantAtOrAfter(closesWall);
  for (let wall = range.opensWall(day); wall < closesWall; wall += stepMs) {
    // A range running past midnight may reach a closed date; the start's own date decides.
    if (schedule.isClosed(localDayOf(wall))) continue;
    const startMs = timeline.instantsAt(wall)[0];
    if (startMs === undefined) continue;
    if (startMs + durationMs <= closesAt) starts.add(startMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Capacity

/** Drops bookings that cannot overlap any candidate slot, and empty ones, which take no time. */
function relevantBusy(busy: readonly BusyInterval[], fromMs: number, toMs: number): BusyInterval[] {
  return busy.filter((b) => b.endAt > b.startAt && b.startAt < toMs && b.endAt > fromMs);
}

/**
 * Places held by bookings overlapping [startMs, endMs) (half-open: a booking ending exactly at the
 * start does not count). Summed over every overlapping booking, even ones that do not overlap each
 * other, which errs on the side of never overbooking.
 */
function placesTaken(busy: readonly BusyInterval[], startMs: number, endMs: number): number {
  let taken = 0;
  for (const b of busy) {
    if (b.startAt < endMs && b.endAt > startMs) taken += b.partySize;
  }
  return taken;
}

// ---------------------------------------------------------------------------------------------
// Opening hours and closures on the local calendar

interface ParsedRange {
  opensWall(day: LocalDay): WallMs;
  closesWall(day: LocalDay): WallMs;
}

class Schedule {
  private constructor(
    private readonly byWeekday: ReadonlyMap<number, readonly ParsedRange[]>,
    private readonly closedDays: readonly { first: LocalDay; last: LocalDay }[],
  ) {}

  static parse(openingHours: readonly OpeningHoursRange[], closures: readonly Closure[]): Schedule {
    const byWeekday = new Map<number, ParsedRange[]>();
    for (const range of openingHours) {
      if (!Number.isInteger(range.dayOfWeek) || range.dayOfWeek < 1 || range.dayOfWeek > 7) {
        throw new RangeError(`dayOfWeek must be 1 (Monday) to 7 (Sunday), got ${range.dayOfWeek}`);
      }
      const list = byWeekday.get(range.dayOfWeek) ?? [];
      list.push(parseRange(range));
      byWeekday.set(range.dayOfWeek, list);
    }
    const closedDays = closures.map((c) => ({ first: parseLocalDate(c.startDate), last: parseLocalDate(c.endDate) }));
    return new Schedule(byWeekday, closedDays);
  }

  rangesOn(day: LocalDay): readonly ParsedRange[] {
    return this.byWeekday.get(isoWeekday(day)) ?? [];
  }

  isClosed(day: LocalDay): boolean {
    return this.closedDays.some((c) => c.first <= day && day <= c.last);
  }
}

function parseRange(range: OpeningHoursRange): ParsedRange {
  const opens = parseClockMinutes(range.opens, false);
  let closes = parseClockMinutes(range.closes, true);
  // Closing at or before opening means closing on the following day (e.g. 22:00–02:00).
  if (closes <= opens) closes += MINUTES_PER_DAY;
  return {
    opensWall: (day) => day * DAY_MS + opens * MINUTE_MS,
    closesWall: (day) => day * DAY_MS + closes * MINUTE_MS,
  };
}

/** 'HH:MM' to minutes after local midnight; '24:00' (end of day) only where a close is meant. */
function parseClockMinutes(text: string, isClose: boolean): number {
  const match = /^(\d{2}):(\d{2})$/.exec(text);
  const hours = Number(match?.[1]);
  const minutes = Number(match?.[2]);
  const valid = match !== null && minutes < 60 && (hours < 24 || (isClose && hours === 24 && minutes === 0));
  if (!valid) throw new RangeError(`Invalid ${isClose ? 'closing' : 'opening'} time '${text}', expected HH:MM`);
  return hours * 60 + minutes;
}

function parseLocalDate(text: string): LocalDay {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Round-tripping rejects dates Date.UTC would silently roll over, such as 2026-02-30.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new RangeError(`Invalid closure date '${text}', expected YYYY-MM-DD`);
  }
  return ms / DAY_MS;
}

function localDayOf(wall: WallMs): LocalDay {
  return Math.floor(wall / DAY_MS);
}

/** 1 Monday … 7 Sunday; local day 0 (1970-01-01) was a Thursday. */
function isoWeekday(day: LocalDay): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

// ---------------------------------------------------------------------------------------------
// Wall clock ↔ instant for one zone

/**
 * The zone's UTC offsets over a span, found once by sampling and bisecting to the exact change,
 * so converting thousands of slot times costs arithmetic rather than an Intl call each.
 * Sampling every few hours assumes no zone changes offset twice within that time, which holds
 * for every real zone. Lookups outside the span ask the zone directly, so they stay correct.
 */
class OffsetTimeline {
  private static readonly SAMPLE_MS = 6 * HOUR_MS;

  private constructor(
    private readonly zone: IANAZone,
    /** Ascending; from `at` on (until the next entry) the offset is `offset` minutes. */
    private readonly changes: readonly { at: number; offset: number }[],
    private readonly spanEnd: number,
  ) {}

  static build(zone: IANAZone, fromMs: number, toMs: number): OffsetTimeline {
    let previousMs = fromMs;
    let previousOffset = zone.offset(fromMs);
    const changes = [{ at: fromMs, offset: previousOffset }];
    while (previousMs < toMs) {
      const sampleMs = Math.min(previousMs + OffsetTimeline.SAMPLE_MS, toMs);
      const offset = zone.offset(sampleMs);
      if (offset !== previousOffset) {
        const at = firstChange(previousMs, sampleMs, (ms) => zone.offset(ms) !== previousOffset);
        changes.push({ at, offset });
      }
      previousMs = sampleMs;
      previousOffset = offset;
    }
    return new OffsetTimeline(zone, changes, toMs);
  }

  /** Offset in minutes east of UTC at an instant. */
  offsetAt(ms: number): number {
    const first = this.changes[0];
    if (first === undefined || ms < first.at || ms > this.spanEnd) return this.zone.offset(ms);
    for (let i = this.changes.length - 1; i >= 0; i--) {
      const change = this.changes[i];
      if (change !== undefined && change.at <= ms) return change.offset;
    }
    return first.offset;
  }

  wallAt(ms: number): WallMs {
    return ms + this.offsetAt(ms) * MINUTE_MS;
  }

  /**
   * The instants whose local clock reads `wall`, ascending: none in a spring-forward gap, two in a
   * fall-back overlap, one otherwise. Any real instant for it lies within 14 hours of `wall` read
   * as UTC, so the offsets a day either side are the only ones it can have.
   */
  instantsAt(wall: WallMs): number[] {
    const before = this.offsetAt(wall - DAY_MS);
    const after = this.offsetAt(wall + DAY_MS);
    if (before === after) return [wall - before * MINUTE_MS];
    const instants: number[] = [];
    for (const offset of [before, after]) {
      const ms = wall - offset * MINUTE_MS;
      if (this.offsetAt(ms) === offset) instants.push(ms);
    }
    return instants.sort((a, b) => a - b);
  }

  /**
   * The first instant at which the local clock reads `wall` or later: its first occurrence, or,
   * when a spring-forward jump skips it, the moment of the jump. Used for range bounds, so that a
   * range closing at a skipped time closes when the clock jumps past it.
   */
  firstInstantAtOrAfter(wall: WallMs): number {
    const first = this.instantsAt(wall)[0];
    if (first !== undefined) return first;
    const before = this.offsetAt(wall - DAY_MS);
    const after = this.offsetAt(wall + DAY_MS);
    // Reading `wall` with the later offset lands before the jump, with the earlier one after it.
    return firstChange(wall - after * MINUTE_MS, wall - before * MINUTE_MS, (ms) => this.offsetAt(ms) !== before);
  }

  /** ISO 8601 with the local offset, always '±HH:MM' (luxon would print 'Z' for the 'UTC' zone). */
  formatIso(ms: number): string {
    const offset = this.offsetAt(ms);
    const local = new Date(ms + offset * MINUTE_MS).toISOString().slice(0, 23);
    const sign = offset < 0 ? '-' : '+';
    const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
    const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
    return `${local}${sign}${hours}:${minutes}`;
  }
}

/** Smallest ms in (lo, hi] where `changed` holds, given it is false at lo and true at hi. */
function firstChange(lo: number, hi: number, changed: (ms: number) => boolean): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (changed(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Zone names luxon reads as a fixed offset, not an IANA zone (it prints `Z` for UTC then): left to luxon. */
const LUXON_FIXED_ZONE = /^(?:utc|gmt|local|system|default)(?:[+-].*)?$/i;
/** Instants whose local year has four digits in any zone (luxon and Date print others differently). */
const FOUR_DIGIT_YEARS: readonly [number, number] = [Date.UTC(1000, 0, 2), Date.UTC(9999, 11, 30)];

/**
 * What `DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: false })` prints, from the
 * zone's kept offsets instead of an Intl call (each booking formatted its start and end so); undefined
 * where luxon would read the zone otherwise or the year has not four digits.
 */
export function formatInZone(ms: number, timeZone: string): string | undefined {
  if (LUXON_FIXED_ZONE.test(timeZone) || !(ms >= FOUR_DIGIT_YEARS[0] && ms <= FOUR_DIGIT_YEARS[1])) return undefined;
  const timeline = timelineFor(timeZone, ms - TIMELINE_MARGIN_MS, ms + TIMELINE_MARGIN_MS);
  // Local mean times of old had offsets in seconds, which luxon cuts to whole minutes.
  return Number.isInteger(timeline.offsetAt(ms)) ? timeline.formatIso(ms) : undefined;
}

/** The local date (YYYY-MM-DD) of an instant in a zone, from its kept offsets. */
export function localDateInZone(ms: number, timeZone: string): string {
  assertFinite([ms], 'ms');
  if (!(ms >= FOUR_DIGIT_YEARS[0] && ms <= FOUR_DIGIT_YEARS[1])) return DateTime.fromMillis(ms, { zone: timeZone }).toISODate() ?? '';
  const wall = timelineFor(timeZone, ms - TIMELINE_MARGIN_MS, ms + TIMELINE_MARGIN_MS).wallAt(ms);
  return new Date(wall).toISOString().slice(0, 10);
}

/** Timelines by zone and aligned span; a zone's offsets never change, so a timeline can be reused. */
const timelines = new Map<string, OffsetTimeline>();
const TIMELINES_KEPT = 64;
const TIMELINE_BLOCK_MS = 7 * DAY_MS;

/**
 * The zone's offsets over a span covering [fromMs, toMs], widened to whole weeks so nearby requests
 * share one: building a timeline asks the zone for its offset through Intl hundreds of times, which
 * was a fifth of a booking's CPU (isWithinOpeningHours builds one per booking). A wider span answers
 * the same offsets.
 */
function timelineFor(timeZone: string, fromMs: number, toMs: number): OffsetTimeline {
  const alignedFrom = Math.floor(fromMs / TIMELINE_BLOCK_MS) * TIMELINE_BLOCK_MS;
  const alignedTo = Math.ceil(toMs / TIMELINE_BLOCK_MS) * TIMELINE_BLOCK_MS;
  const key = `${timeZone}|${alignedFrom}|${alignedTo}`;
  let timeline = timelines.get(key);
  if (!timeline) {
    timeline = OffsetTimeline.build(loadZone(timeZone), alignedFrom, alignedTo);
    if (timelines.size >= TIMELINES_KEPT) timelines.delete(timelines.keys().next().value as string);
    timelines.set(key, timeline);
  }
  return timeline;
}

function loadZone(timeZone: string): IANAZone {
  const zone = IANAZone.create(timeZone);
  if (!zone.isValid) throw new RangeError(`Unknown time zone '${timeZone}'`);
  return zone;
}

function assertFinite(values: readonly number[], names: string): void {
  if (!values.every(Number.isFinite)) throw new RangeError(`${names} must be finite numbers`);
}

function assertPositive(value: number, name: string): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
}
