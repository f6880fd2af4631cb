/** Instants shown to people and agents: ISO 8601, in the business's zone where it matters. */
import { DateTime } from 'luxon';
import { formatInZone } from './availability/free-starts.js';

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
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
