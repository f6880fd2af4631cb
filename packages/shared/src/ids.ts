/** Identifiers: ULIDs, monotonic within one process so ids sort in creation order. */
import { monotonicFactory, decodeTime } from 'ulid';

const nextUlid = monotonicFactory();

export function newId(nowMs?: number): string {
  return nextUlid(nowMs);
}

export function isUlid(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value);
}

export function ulidTimeMs(id: string): number {
  return decodeTime(id);
}
