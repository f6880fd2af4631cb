/** How long a network call waits after failures in a row (registration, pings, publication). */

/** Registration and pings: 30 s, doubling, at most an hour (a ping is due hourly anyway). */
export const REPORT_RETRY = { baseMs: 30_000, capMs: 3_600_000 } as const;
/** Publication: 30 s, doubling, at most six hours; a network down for days is asked four times a day. */
export const PUBLISH_RETRY = { baseMs: 30_000, capMs: 6 * 3_600_000 } as const;

/**
 * The wait before the next try after `failures` failures in a row: base × 2^(failures−1), capped,
 * plus up to a tenth more so inboxes that failed together do not all come back in the same second.
 */
export function retryDelayMs(failures: number, schedule: { baseMs: number; capMs: number }, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures, 1) - 1, 30);
  const delay = Math.min(schedule.baseMs * 2 ** exponent, schedule.capMs);
  return Math.round(delay * (1 + random() / 10));
}
