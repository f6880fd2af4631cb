/** Instants shown to people and agents: ISO 8601, in the business's zone where it matters. */
import { DateTime } from 'luxon';
import { formatInZone } from './availability/free-starts.js';

/**
 * `new Date(ms).toISOString()`, written out for the years 1000–9999: V8 formats an ISO date
 * through a printf-style formatter (about 7,000 instructions), and every item view shows two or
 * three of them. Other years, and instants that are no date, go to toISOString itself.
 */
export function isoUtc(ms: number): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  const milliseconds = date.getUTCMilliseconds();
  return `${year}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}

function two(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

/** As luxon prints the instant in the zone (with milliseconds and the offset); from kept offsets where they say the same. */
export function isoInZone(ms: number, timeZone: string): string {
  return formatInZone(ms, timeZone) ?? DateTime.fromMillis(ms, { zone: timeZone }).toISO({ suppressMilliseconds: false }) ?? isoUtc(ms);
}

/** `YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z` or `±HH:MM`: the form agents send, read without luxon. */
const PLAIN_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 instant with its offset, in ms (NaN when it is none), as luxon reads it. The plain form
 * is read directly (luxon's parser was a few percent of a booking); anything else, or a date that
 * does not exist, goes to luxon.
 */
export function parseInstant(value: string): number {
  const match = PLAIN_INSTANT.exec(value);
  if (match) {
    const [year, month, day, hour, minute, second = 0] = match.slice(1, 7).map((part) => (part === undefined ? 0 : Number(part))) as number[];
    const millis = match[7] === undefined ? 0 : Number(match[7].padEnd(3, '0'));
    const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
    const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
    const local = Date.UTC(year!, month! - 1, day!, hour!, minute!, second, millis);
    const back = new Date(local);
    // The same fields back (no 30 February, no 24:00, no two-digit year), and an offset a zone can have.
    const exact =
      back.getUTCFullYear() === year && back.getUTCMonth() === month! - 1 && back.getUTCDate() === day && back.getUTCHours() === hour &&
      back.getUTCMinutes() === minute && back.getUTCSeconds() === second && offsetHours <= 14 && offsetMinutes < 60;
    if (exact) return local - (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  return DateTime.fromISO(value, { setZone: true }).toMillis();
}
