/** The durable job queue both services use: the seam between the runner and its table. */

export interface JobRecord {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  runAt: number;
  dedupeKey: string | null;
  status: 'pending' | 'running' | 'done' | 'dead' | 'cancelled';
  attempts: number;
  lastError: string | null;
}

export interface NewJob {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  runAt: number;
  /** A pending job with the same key is moved to the new time instead of adding a second one. */
  dedupeKey: string | null;
}

export interface JobStore {
  enqueue(job: NewJob, nowMs: number): Promise<void>;
  /** Leases up to `limit` due jobs (pending, or running with an expired lease after a crash). */
  claimDue(nowMs: number, leaseMs: number, limit: number): Promise<JobRecord[]>;
  finish(id: string, nowMs: number): Promise<void>;
  /** Cancels the pending job with this dedupe key, if there is one (what it was for no longer applies). */
  cancel(dedupeKey: string, nowMs: number): Promise<boolean>;
  retry(id: string, runAt: number, error: string, nowMs: number): Promise<void>;
  bury(id: string, error: string, nowMs: number): Promise<void>;
  list(kind?: string): Promise<JobRecord[]>;
  /** When the longest-waiting due job became due (null when none waits): the queue's lag. */
  oldestDueAt(nowMs: number): Promise<number | null>;
  /** Deletes finished jobs last touched before an instant; failed ('dead') ones are kept longer by the caller. */
  prune(status: 'done' | 'dead' | 'cancelled', before: number): Promise<number>;
}
