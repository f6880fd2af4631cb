/**
 * Bounds how many clients one address may register per window (RFC 7591 §5 leaves abuse to the
 * server). Kept in memory: a restart forgets the counts, which only loosens the limit briefly.
 */
import { REGISTRATIONS_PER_WINDOW, REGISTRATION_WINDOW_MS } from './oauth-limits.js';

/** Addresses tracked at once; the oldest windows are dropped first, so memory stays bounded. */
const MAX_TRACKED_ADDRESSES = 10_000;

export class RegistrationLimiter {
  readonly #windows = new Map<string, { startMs: number; count: number }>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit = REGISTRATIONS_PER_WINDOW, windowMs = REGISTRATION_WINDOW_MS) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts one registration; answers the seconds to wait when over the limit, or 0. */
  take(address: string, nowMs: number): number {
    let window = this.#windows.get(address);
    if (!window || nowMs - window.startMs >= this.#windowMs) {
      window = { startMs: nowMs, count: 0 };
      this.#windows.delete(address);
      if (this.#windows.size >= MAX_TRACKED_ADDRESSES) {
        const oldest = this.#windows.keys().next().value;
        if (oldest !== undefined) this.#windows.delete(oldest);
      }
      this.#windows.set(address, window);
    }
    if (window.count >= this.#limit) return Math.max(1, Math.ceil((window.startMs + this.#windowMs - nowMs) / 1000));
    window.count += 1;
    return 0;
  }
}
