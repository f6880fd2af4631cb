/**
 * The rate-limit headers of draft-ietf-httpapi-ratelimit-headers (structured-field form): the policy
 * a caller is under and where it stands now, on every answer to a limited caller and on its 429
 * beside Retry-After. One helper for every limiter, so limits added later (anonymous callers) speak
 * the same way.
 *
 *   RateLimit-Policy: "key";q=10;w=1     quota 10 per window of 1 second
 *   RateLimit: "key";r=3;t=1             3 left; the quota is whole again in 1 second
 */

export interface RateLimitState {
  /** The policy's name, an sf-string (e.g. `key` for integration keys). */
  policy: string;
  /** Requests the policy allows per window (a token bucket: its size). */
  quota: number;
  /** The window in seconds (a token bucket: the time it takes to refill whole). */
  windowSec: number;
  /** Requests left now, rounded down. */
  remaining: number;
  /** Whole seconds until the quota is whole again (0 when it is). */
  resetSec: number;
}

function sfString(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '').replace(/(["\\])/g, '\\$1')}"`;
}

function whole(value: number): number {
  return Math.max(0, Math.floor(Number.isFinite(value) ? value : 0));
}

/** The two headers for a caller under a limit. */
export function rateLimitHeaders(state: RateLimitState): { 'ratelimit-policy': string; ratelimit: string } {
  const name = sfString(state.policy);
  return {
    'ratelimit-policy': `${name};q=${whole(state.quota)};w=${Math.max(1, Math.ceil(state.windowSec))}`,
    ratelimit: `${name};r=${whole(state.remaining)};t=${Math.max(0, Math.ceil(state.resetSec))}`,
  };
}

/** The headers of a refusal: the two above with nothing left, and Retry-After in whole seconds (at least 1). */
export function rateLimitedHeaders(state: Omit<RateLimitState, 'remaining'>, retryAfterSec: number): Record<string, string> {
  return { ...rateLimitHeaders({ ...state, remaining: 0 }), 'retry-after': String(Math.max(1, Math.ceil(retryAfterSec))) };
}
