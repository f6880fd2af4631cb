/**
 * Integration keys get about ten calls a second each (inbox spec §8): an in-memory token bucket per
 * key, refilled continuously. The owner's keys and the owner's AI are never limited, so the runner
 * asks only for integration callers. In memory on purpose: one process serves an instance, and a
 * restart merely refills every bucket. Time comes from the injected clock, so tests are exact.
 */
import type { Clock } from '../types.js';

/** Calls a key may make at once after a quiet spell. */
export const KEY_BURST = 10;
/** Calls a second a key gets back. */
export const KEY_REFILL_PER_SECOND = 10;
/** Above this many buckets, full ones (idle keys) are dropped: they hold nothing a new bucket would not. */
const MAX_TRACKED_KEYS = 10_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

/** Where a key stands after a call: what the RateLimit headers say (shared rate-limit-headers.ts). */
export interface RateStanding {
  /** The bucket's size, refilled whole in `windowSec`. */
  quota: number;
  windowSec: number;
  /** Whole calls left. */
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSec: number;
}

export type RateDecision = ({ allowed: true } | { allowed: false; retryAfterSec: number }) & { standing: RateStanding };

export class KeyRateLimiter {
  readonly #clock: Clock;
  readonly #burst: number;
  readonly #perMs: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(clock: Clock, burst = KEY_BURST, refillPerSecond = KEY_REFILL_PER_SECOND) {
    this.#clock = clock;
    this.#burst = burst;
    this.#perMs = refillPerSecond / 1000;
  }

  /** Takes one call from the key's bucket, or says how many whole seconds to wait (at least 1). */
  take(keyId: string): RateDecision {
    const nowMs = this.#clock.now();
    const bucket = this.#refilled(keyId, nowMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, standing: this.#standing(bucket) };
    }
    const waitMs = (1 - bucket.tokens) / this.#perMs;
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)), standing: this.#standing(bucket) };
  }

  #standing(bucket: Bucket): RateStanding {
    return {
      quota: this.#burst,
      windowSec: Math.max(1, Math.ceil(this.#burst / (this.#perMs * 1000))),
      remaining: Math.floor(bucket.tokens),
      resetSec: Math.ceil((this.#burst - bucket.tokens) / this.#perMs / 1000),
    };
  }

  #refilled(keyId: string, nowMs: number): Bucket {
    let bucket = this.#buckets.get(keyId);
    if (!bucket) {
      if (this.#buckets.size >= MAX_TRACKED_KEYS) this.#dropFull(nowMs);
      bucket = { tokens: this.#burst, atMs: nowMs };
      this.#buckets.set(keyId, bucket);
      return bucket;
    }
    // A clock set backwards (tests, NTP) refills nothing rather than taking tokens away.
    const elapsedMs = Math.max(0, nowMs - bucket.atMs);
    bucket.tokens = Math.min(this.#burst, bucket.tokens + elapsedMs * this.#perMs);
    bucket.atMs = nowMs;
    return bucket;
  }

  #dropFull(nowMs: number): void {
    for (const [keyId, bucket] of this.#buckets) {
      if (bucket.tokens + Math.max(0, nowMs - bucket.atMs) * this.#perMs >= this.#burst) this.#buckets.delete(keyId);
    }
  }
}
