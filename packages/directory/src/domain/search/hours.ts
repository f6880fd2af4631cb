/**
 * Opening hours, made fast enough to test a million listings in one query.
 *
 * A listing's weekly hours compile once into week-minute ranges (Monday 00:00 = 0, a week = 10080);
 * a query computes each time zone's local week minute and local date once (lazily, per zone it meets)
 * and each listing then costs a few integer comparisons.
 *
 * Rules (spec §2 Hours, §4 open_now):
 * - a window [opens, closes) is local wall-clock time; `closes <= opens` runs past midnight into the
 *   next day (`22:00`–`02:00`; `09:00`–`09:00` is 24 hours); `24:00` closes at midnight;
 * - a closure covers whole local days, both ends included, and wins over the hours: closed all of
 *   that local date, and a window opened on a closed day does not carry past its midnight either;
 * - no hours → not open (the caller shows `open_now: null`; an open_now search leaves it out);
 * - an unknown time zone never counts as open.
 */
import type { Hours, Weekday } from '../listings/listing.js';

export const WEEK_MINUTES = 7 * 1440;
const DAY_INDEX: Record<Weekday, number> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 };
const CARRY = 1 << 15;

/** Compiled weekly hours: `ranges` packs `end << 16 | carry << 15 | start`; `closures` holds [from, to] date numbers (yyyymmdd). */
export interface CompiledHours {
  zone: string;
  ranges: Int32Array;
  closures: Int32Array;
}

function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** `HH:MM` (or `H:MM`) → minutes of the day, 0..1440 (`24:00` only); null when malformed. */
function parseClock(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const s = value.length === 5 ? value : value.trim();
  const colon = s.length - 3;
  if ((colon !== 1 && colon !== 2) || s.charCodeAt(colon) !== 58) return null;
  const h1 = digit(s, 0);
  const h2 = colon === 2 ? digit(s, 1) : 0;
  const m1 = digit(s, colon + 1);
  const m2 = digit(s, colon + 2);
  if (h1 < 0 || h2 < 0 || m1 < 0 || m2 < 0) return null;
  const h = colon === 2 ? h1 * 10 + h2 : h1;
  const min = m1 * 10 + m2;
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) return null;
  return h * 60 + min;
}

/** `2026-03-29` → 20260329; null when it is not a date. */
export function dateNumber(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!m) return null;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return Number(m[1]) * 10000 + month * 100 + day;
}

/** Week-minute ranges of the weekly hours (see CompiledHours), in no particular order. */
export function compileWeekly(weekly: Hours['weekly'] | null | undefined): number[] {
  const out: number[] = [];
  if (!weekly || typeof weekly !== 'object') return out;
  for (const [dayName, windows] of Object.entries(weekly)) {
    const day = DAY_INDEX[dayName as Weekday];
    if (day === undefined || !Array.isArray(windows)) continue;
    const base = day * 1440;
    for (const w of windows) {
      if (!Array.isArray(w)) continue;
      const opens = parseClock(w[0]);
      const closes = parseClock(w[1]);
      if (opens === null || closes === null || opens >= 1440) continue;
      if (closes > opens) {
        out.push(((base + closes) << 16) | (base + opens));
      } else {
        out.push(((base + 1440) << 16) | (base + opens));
        if (closes > 0) {
          const next = ((day + 1) % 7) * 1440;
          out.push(((next + closes) << 16) | CARRY | next);
        }
      }
    }
  }
  return out;
}

export function compileClosures(closures: Hours['closures'] | null | undefined): number[] {
  const out: number[] = [];
  if (!Array.isArray(closures)) return out;
  for (const c of closures) {
    const from = dateNumber(c?.from);
    const to = dateNumber(c?.to ?? c?.from);
    if (from === null || to === null || to < from) continue;
    out.push(from, to);
  }
  return out;
}

export function compileHours(hours: Hours): CompiledHours {
  return {
    zone: hours.timezone,
    ranges: Int32Array.from(compileWeekly(hours.weekly)),
    closures: Int32Array.from(compileClosures(hours.closures)),
  };
}

/** A time zone's local clock at one instant. */
export interface ZoneNow {
  /** Minutes since local Monday 00:00. */
  weekMinute: number;
  /** Local date and the day before, as yyyymmdd. */
  today: number;
  yesterday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      });
    } catch {
      f = null;
    }
    formatters.set(zone, f);
  }
  return f;
}

/** Each zone's reading of the last UTC minute asked about, with that minute's bounds. */
const minuteReadings = new Map<string, { from: number; to: number; now: ZoneNow }>();

/**
 * The local clock of `zone` at `instantMs`; null for a zone the runtime does not know. Formatting
 * is costly (a search or a page meets hundreds of zones), so a zone's reading is kept for its UTC
 * minute when the reading is the same at both ends of the minute (always, unless the zone's offset
 * changes within that very minute, which is then read exactly).
 */
export function zoneNow(zone: string, instantMs: number): ZoneNow | null {
  const kept = minuteReadings.get(zone);
  if (kept && instantMs >= kept.from && instantMs < kept.to) return kept.now;
  const from = Math.floor(instantMs / 60_000) * 60_000;
  const first = readZone(zone, from);
  if (!first) return null;
  const last = readZone(zone, from + 59_999);
  if (!last || last.weekMinute !== first.weekMinute || last.today !== first.today) return readZone(zone, instantMs);
  minuteReadings.set(zone, { from, to: from + 60_000, now: first });
  return first;
}

/**
 * Until when the local clock of `zone` (its week minute and date) reads as it does at `instantMs`:
 * the end of that UTC minute, or the next millisecond when the zone's reading changes within the
 * minute (an offset that is not whole minutes: nothing that depends on it can be kept). A zone the
 * runtime does not know is read as UTC dates, which hold for the minute too.
 */
export function zoneReadingHoldsUntil(zone: string, instantMs: number): number {
  const minuteEnd = Math.floor(instantMs / 60_000) * 60_000 + 60_000;
  if (zoneNow(zone, instantMs) === null) return minuteEnd;
  const kept = minuteReadings.get(zone);
  return kept && instantMs >= kept.from && instantMs < kept.to ? kept.to : instantMs + 1;
}

function readZone(zone: string, instantMs: number): ZoneNow | null {
  const f = formatterFor(zone);
  if (!f) return null;
  let y = 0;
  let mo = 0;
  let d = 0;
  let h = 0;
  let mi = 0;
  for (const p of f.formatToParts(instantMs)) {
    switch (p.type) {
      case 'year':
        y = Number(p.value);
        break;
      case 'month':
        mo = Number(p.value);
        break;
      case 'day':
        d = Number(p.value);
        break;
      case 'hour':
        h = Number(p.value) % 24;
        break;
      case 'minute':
        mi = Number(p.value);
        break;
      default:
        break;
    }
  }
  const dayStart = Date.UTC(y, mo - 1, d);
  const weekday = (new Date(dayStart).getUTCDay() + 6) % 7; // Monday = 0
  const prev = new Date(dayStart - 86_400_000);
  return {
    weekMinute: weekday * 1440 + h * 60 + mi,
    today: y * 10000 + mo * 100 + d,
    yesterday: prev.getUTCFullYear() * 10000 + (prev.getUTCMonth() + 1) * 100 + prev.getUTCDate(),
  };
}

/**
 * Open at a local clock reading, given ranges[rFrom, rTo) and closure pairs closures[cFrom, cTo).
 * Works on flat arrays so the index can keep every listing's hours in two typed arrays.
 */
export function openInRanges(
  ranges: Int32Array,
  rFrom: number,
  rTo: number,
  closures: Int32Array,
  cFrom: number,
  cTo: number,
  weekMinute: number,
  today: number,
  yesterday: number,
): boolean {
  let yesterdayClosed = false;
  for (let i = cFrom; i < cTo; i += 2) {
    const from = closures[i]!;
    const to = closures[i + 1]!;
    if (today >= from && today <= to) return false;
    if (yesterday >= from && yesterday <= to) yesterdayClosed = true;
  }
  for (let i = rFrom; i < rTo; i++) {
    const r = ranges[i]!;
    const start = r & 0x3fff;
    if (weekMinute < start || weekMinute >= r >>> 16) continue;
    if ((r & CARRY) !== 0 && yesterdayClosed) continue;
    return true;
  }
  return false;
}

const compiledCache = new WeakMap<Hours, CompiledHours>();

/**
 * Whether a listing with these hours is open at `instantMs` (the listing's `open_now`): null when
 * it published no hours.
 */
export function isOpenAt(hours: Hours | null | undefined, instantMs: number): boolean | null {
  if (!hours) return null;
  let c = compiledCache.get(hours);
  if (!c) {
    c = compileHours(hours);
    compiledCache.set(hours, c);
  }
  return isOpenCompiled(c, instantMs);
}

/** The same, of hours compiled before. */
export function isOpenCompiled(c: CompiledHours, instantMs: number): boolean {
  const now = zoneNow(c.zone, instantMs);
  if (!now) return false;
  return openInRanges(c.ranges, 0, c.ranges.length, c.closures, 0, c.closures.length, now.weekMinute, now.today, now.yesterday);
}
