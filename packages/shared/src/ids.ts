/**
 * Identifiers: ULIDs (48-bit time in ms, 80 random bits, Crockford base32), monotonic within one
 * process so ids sort in creation order: an id made in the same millisecond as the last one (or
 * with an earlier time) is the last one plus one. The random part comes from the pooled CSPRNG
 * bytes (random-pool.ts); the ulid package drew one call per character, a few percent of a
 * create's CPU.
 */
import { decodeTime } from 'ulid';
import { pooledRandomBytes } from './random-pool.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_DIGITS = 10;
const RANDOM_DIGITS = 16;
const MAX_TIME = 2 ** 48 - 1;

let lastTime = -1;
let lastTimeText = '';
/** The random part of the last id, as digit values 0–31. */
const lastRandom = new Uint8Array(RANDOM_DIGITS);

function encodeTime(ms: number): string {
  let text = '';
  for (let i = 0, rest = ms; i < TIME_DIGITS; i++, rest = Math.floor(rest / 32)) text = ALPHABET[rest % 32] + text;
  return text;
}

/** A fresh random part: one random byte per base32 digit (its low five bits). */
function drawRandom(): void {
  const bytes = pooledRandomBytes(RANDOM_DIGITS);
  for (let i = 0; i < RANDOM_DIGITS; i++) lastRandom[i] = bytes[i]! & 31;
}

function incrementRandom(): void {
  for (let i = RANDOM_DIGITS - 1; i >= 0; i--) {
    if (lastRandom[i]! < 31) {
      lastRandom[i]! += 1;
      return;
    }
    lastRandom[i] = 0;
  }
  throw new Error('ULID random part exhausted within one millisecond');
}

export function newId(nowMs: number = Date.now()): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME) throw new Error(`a ULID time is a whole number of ms from 0 to 2^48-1, not ${nowMs}`);
  if (nowMs <= lastTime) {
    incrementRandom();
  } else {
    lastTime = nowMs;
    lastTimeText = encodeTime(nowMs);
    drawRandom();
  }
  let text = lastTimeText;
  for (let i = 0; i < RANDOM_DIGITS; i++) text += ALPHABET[lastRandom[i]!];
  return text;
}

export function isUlid(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value);
}

export function ulidTimeMs(id: string): number {
  return decodeTime(id);
}
