/** Instants shown to people and agents: ISO 8601, in the business's zone where it matters. */
import { DateTime } from 'luxon';

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoInZone(ms: number, timeZone: string): string {
  return DateTime.fromMillis(ms, { zone: timeZone }).toISO({ suppressMilliseconds: false }) ?? isoUtc(ms);
}

export function parseInstant(value: string): number {
  return DateTime.fromISO(value, { setZone: true }).toMillis();
}
