/**
 * A door's status across checks (directory spec §3 "Door status": live, failing; the notes' rule:
 * failing = three failures in seven days, and it then counts for nothing; thirty days failing and it
 * is gone). One check that finds a door silent says little (a restart, a deploy), so:
 * - a door that answers is live, and its failures are forgotten;
 * - a door that answered before and now does not (or is no longer found) stays live on what it last
 *   showed, with the date it last answered, until it has failed three times within seven days; its
 *   site is checked again a day later rather than a week, so three failures can be seen in a week;
 * - a door that never answered here is failing from its first check: there is nothing to keep;
 * - a door failing for thirty days is gone: left out of the result until it answers again;
 * - a door that never answered and is no longer published is forgotten.
 * Pure: the check service reads and writes the history in the check's transaction.
 */
import type { CheckOutcome } from './assess.js';
import type { Evidence, SeenDoor, SiteObservation } from './observation.js';

const DAY = 86_400_000;
export const DOOR_FAILURE_WINDOW_MS = 7 * DAY;
export const DOOR_FAILURES_TO_FAIL = 3;
export const DOOR_GONE_AFTER_MS = 30 * DAY;

/** What is kept of one door between checks. */
export interface DoorHistory {
  door: Omit<SeenDoor, 'status' | 'note'>;
  /** What the door declared when it last answered (carried while it is live on its last answer). */
  evidence: Evidence[];
  /** When it last answered; null when it never did. */
  lastLiveAt: number | null;
  /** When it failed, within the last seven days. */
  failures: number[];
  /** Since when it is failing (three failures in seven days, or never answered). */
  failingSince: number | null;
  /** When it was given up (thirty days failing). */
  goneAt: number | null;
}

/** What a result shows of a door's history beside its status. */
export interface DoorHistoryView {
  /** Failures within the last seven days. */
  failures: number;
  last_live_at: string | null;
  failing_since?: string;
}

export const doorKey = (d: { type: string; url: string }) => `${d.type} ${d.url}`;

export interface ReconciledDoors {
  /** The observation as it is scored: doors with the status their history gives, carried evidence added, gone doors left out. */
  observation: SiteObservation;
  /** The history to keep, by door key (a key missing is forgotten). */
  history: Map<string, DoorHistory>;
  /** What the result shows of each door's history, by key, and its checked_at (when it was last seen answering, for a carried door). */
  views: Map<string, { view: DoorHistoryView; checkedAt: number }>;
  /** A live door failed: check the site again soon, so three failures in seven days can be seen. */
  recheckSoon: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function reconcileDoors(observation: SiteObservation, previous: ReadonlyMap<string, DoorHistory>, nowMs: number): ReconciledDoors {
  const history = new Map<string, DoorHistory>();
  const views = new Map<string, { view: DoorHistoryView; checkedAt: number }>();
  const doors: SeenDoor[] = [];
  const evidence: Evidence[] = [...observation.evidence];
  let recheckSoon = false;
  const seen = new Set<string>();

  const failed = (key: string, door: Omit<SeenDoor, 'status' | 'note'>, note: string) => {
    const before = previous.get(key);
    const failures = [...(before?.failures ?? []).filter((at) => at > nowMs - DOOR_FAILURE_WINDOW_MS), nowMs];
    const lastLiveAt = before?.lastLiveAt ?? null;
    // Live on its last answer: it answered before, is not failing yet, and has failed fewer than three times in seven days.
    if (before && lastLiveAt !== null && before.failingSince === null && failures.length < DOOR_FAILURES_TO_FAIL) {
      history.set(key, { ...before, failures });
      doors.push({ ...before.door, status: 'live', note: `did not answer at this check (${failures.length} of ${DOOR_FAILURES_TO_FAIL} failures in 7 days); live on what it showed when it last answered` });
      evidence.push(...before.evidence);
      views.set(key, { view: { failures: failures.length, last_live_at: iso(lastLiveAt) }, checkedAt: lastLiveAt });
      recheckSoon = true;
      return;
    }
    const failingSince = before?.failingSince ?? nowMs;
    const goneAt = before?.goneAt ?? (nowMs - failingSince >= DOOR_GONE_AFTER_MS ? nowMs : null);
    history.set(key, { door, evidence: before?.evidence ?? [], lastLiveAt, failures, failingSince, goneAt });
    if (goneAt !== null) return;
    doors.push({ ...door, status: 'failing', note });
    views.set(key, { view: { failures: failures.length, last_live_at: lastLiveAt === null ? null : iso(lastLiveAt), failing_since: iso(failingSince) }, checkedAt: nowMs });
  };

  for (const d of observation.doors) {
    const key = doorKey(d);
    if (seen.has(key)) continue;
    seen.add(key);
    const { status, note, ...door } = d;
    if (status === 'live') {
      history.set(key, {
        door,
        evidence: observation.evidence.filter((e) => e.door && doorKey(e.door) === key),
        lastLiveAt: nowMs,
        failures: [],
        failingSince: null,
        goneAt: null,
      });
      doors.push(d);
      views.set(key, { view: { failures: 0, last_live_at: iso(nowMs) }, checkedAt: nowMs });
    } else {
      failed(key, door, note ?? 'did not answer');
    }
  }
  // A door known from earlier checks that this check did not find: a failure too, while it is remembered.
  for (const [key, before] of previous) {
    if (seen.has(key)) continue;
    // Gone, or never answered here: nothing to remember of a door the site no longer publishes.
    if (before.goneAt !== null || before.lastLiveAt === null) continue;
    failed(key, before.door, 'no longer found or did not answer');
  }
  // Evidence of a door left out (gone) counts for nothing; the scorer also counts only live doors' evidence.
  return { observation: { ...observation, doors, evidence }, history, views, recheckSoon };
}

/** The scored outcome with each door's history beside its status, and a carried door dated when it last answered. */
export function withDoorHistory(outcome: CheckOutcome, views: ReconciledDoors['views']): CheckOutcome {
  return {
    ...outcome,
    doors: outcome.doors.map((d) => {
      const seen = views.get(doorKey(d));
      return seen ? { ...d, checked_at: iso(seen.checkedAt), ...seen.view } : d;
    }),
  };
}
