/**
 * Sends a network the receipts waiting for it (docs/receipts.md "Publication"): one signed
 * `POST /v1/receipts {receipt, ack?}` per receipt, in the order issued, a batch per run. What the
 * network answers decides each row:
 *
 * - 2xx: taken (published; or taken and still waiting when an acknowledgement came meanwhile);
 * - 409 (it has not verified this inbox yet) or 404 (it does not know this inbox, or takes no
 *   receipts yet): held, tried again later;
 * - 401 (our signature: clock, key rotation, our manifest unreachable from there), 408, 425, 429,
 *   5xx, timeouts and network errors: the network is failing, try again later;
 * - any other 4xx: refused for good, with the network's reason kept.
 *
 * Held and failing stop the batch and back the whole network off (PUBLISH_RETRY, or Retry-After),
 * so a network that is down is asked a few times a day and never loses a receipt: rows stay until
 * taken or refused. The job never fails itself; it asks for itself again when more is waiting.
 */
import { PublicFetchError, type JobRecord } from '@svc/shared';
import { loadSettings } from '../domain/context.js';
import { publishJob } from '../domain/receipts/publication-queue.js';
import type { PublicationChange, PublicationToSend } from '../store/receipt-publication-store.js';
import type { InboxStore } from '../store/store.js';
import { fewWords } from './instance-status.js';
import { PUBLISH_RETRY, retryDelayMs } from './retry-delay.js';
import { networkUrl, parseJson, postSigned, problemOf, retryAfterMs, type NetworkCaller } from './signed-requests.js';

/** Receipts sent per run; the job asks for itself again at once when more wait. */
export const PUBLISH_BATCH = 25;
/** A run stops taking more once it has spent this long, well inside the job's 60 s lease. */
const PUBLISH_RUN_BUDGET_MS = 20_000;
/** The longest a network's Retry-After is followed. */
const MAX_RETRY_AFTER_MS = PUBLISH_RETRY.capMs;
/** Statuses that say "not now" rather than "not this receipt". */
const TRY_AGAIN_STATUSES = new Set([401, 408, 425, 429]);

type Attempt =
  | { kind: 'taken'; state: string | null; counted: boolean | null; withAck: boolean }
  | { kind: 'held'; reason: string }
  | { kind: 'failing'; reason: string; retryAfterMs: number | null }
  | { kind: 'refused'; reason: string; withAck: boolean };

interface Sent {
  receiptId: string;
  attempt: Attempt;
}

type Prepared = { kind: 'disabled' } | { kind: 'idle' } | { kind: 'sent'; results: Sent[]; at: number };

/** Reads a 2xx answer tolerantly: the state and counted when it says them. */
function takenAnswer(body: string, withAck: boolean): Attempt {
  const value = parseJson(body);
  const doc = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const state = doc.state === 'issued' || doc.state === 'acknowledged' ? doc.state : null;
  return { kind: 'taken', state, counted: typeof doc.counted === 'boolean' ? doc.counted : null, withAck };
}

function reasonOf(status: number, body: string): string {
  const problem = problemOf(body);
  if (!problem) return `HTTP ${status}`;
  const word = problem.signatureError ? `${problem.code} (${problem.signatureError})` : problem.code;
  return fewWords(problem.detail ? `${word}: ${problem.detail}` : word);
}

async function publishOne(caller: NetworkCaller, origin: string, row: PublicationToSend): Promise<Attempt> {
  const withAck = row.ackJws !== null;
  let answer;
  try {
    answer = await postSigned(caller, networkUrl(origin, '/v1/receipts'), withAck ? { receipt: row.receiptJws, ack: row.ackJws } : { receipt: row.receiptJws });
  } catch (error) {
    const reason = error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error);
    return { kind: 'failing', reason: fewWords(reason), retryAfterMs: null };
  }
  const { status, body } = answer;
  if (status >= 200 && status < 300) return takenAnswer(body, withAck);
  if (status === 409 || status === 404) return { kind: 'held', reason: reasonOf(status, body) };
  if (status >= 500 || TRY_AGAIN_STATUSES.has(status)) {
    return { kind: 'failing', reason: reasonOf(status, body), retryAfterMs: retryAfterMs(answer.headers['retry-after'], caller.clock.now()) };
  }
  return { kind: 'refused', reason: reasonOf(status, body), withAck };
}

export function publishHandler(caller: NetworkCaller) {
  const { store, clock } = caller;
  return {
    prepare: async (job: JobRecord): Promise<Prepared> => {
      const origin = String(job.payload.origin);
      const { settings } = await loadSettings(store);
      // A network turned off keeps its rows waiting; turning it on again sends them.
      if (settings.networks[origin]?.enabled !== true) return { kind: 'disabled' };
      const due = await store.receiptPublications.due(origin, PUBLISH_BATCH);
      if (due.length === 0) return { kind: 'idle' };
      const results: Sent[] = [];
      const started = performance.now();
      for (const row of due) {
        const attempt = await publishOne(caller, origin, row);
        results.push({ receiptId: row.record.receiptId, attempt });
        if (attempt.kind === 'held' || attempt.kind === 'failing') break;
        if (performance.now() - started > PUBLISH_RUN_BUDGET_MS) break;
      }
      return { kind: 'sent', results, at: clock.now() };
    },
    commit: async (job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const origin = String(job.payload.origin);
      const outcome = prepared as Prepared;
      if (outcome.kind !== 'sent') return;
      const nowMs = clock.now();
      let stopped: Attempt | null = null;
      for (const { receiptId, attempt } of outcome.results) {
        const row = await tx.receiptPublications.get(origin, receiptId);
        if (!row) continue;
        const change: PublicationChange = { attempts: row.attempts + 1, lastAttemptAt: outcome.at };
        if (attempt.kind === 'taken') {
          const ackSentAt = attempt.withAck ? outcome.at : row.ackSentAt;
          // An acknowledgement that came while this was on its way still has to go.
          const owesAck = row.ackWanted && ackSentAt === null;
          Object.assign(change, {
            state: owesAck ? 'waiting' : 'published',
            acceptedAt: row.acceptedAt ?? outcome.at,
            ackSentAt,
            networkState: attempt.state,
            counted: attempt.counted,
            lastError: null,
          });
        } else if (attempt.kind === 'refused') {
          Object.assign(change, { state: 'refused', refusal: attempt.withAck && row.acceptedAt !== null ? `acknowledgement: ${attempt.reason}` : attempt.reason, refusedAt: outcome.at, lastError: null });
        } else {
          stopped = attempt;
          Object.assign(change, { state: attempt.kind === 'held' ? 'held' : row.state === 'held' ? 'waiting' : row.state, lastError: attempt.reason });
        }
        await tx.receiptPublications.update(origin, receiptId, change, nowMs);
      }

      if (stopped) {
        const failures = ((await tx.networkStatus.get(origin))?.publishFailures ?? 0) + 1;
        const backoff = retryDelayMs(failures, PUBLISH_RETRY);
        const retryAfter = stopped.kind === 'failing' ? stopped.retryAfterMs : null;
        const askedToWait = retryAfter !== null;
        const wait = retryAfter !== null ? Math.min(Math.max(retryAfter, 1_000), MAX_RETRY_AFTER_MS) : backoff;
        const retryAt = nowMs + wait;
        const what = stopped.kind === 'held' ? 'publication held' : 'publication';
        await tx.networkStatus.record(
          origin,
          {
            publishFailures: failures,
            publishRetryAt: retryAt,
            publishWait: stopped.kind === 'held' ? 'held' : askedToWait ? 'retry_after' : 'failing',
            lastError: fewWords(`${what}: ${stopped.reason}`),
            lastErrorAt: nowMs,
          },
          nowMs,
        );
        await tx.jobs.enqueue(publishJob(origin, retryAt, nowMs), nowMs);
        return;
      }
      await tx.networkStatus.record(origin, { publishFailures: 0, publishRetryAt: null, publishWait: null }, nowMs);
      // More waiting (a full batch, or acknowledgements that came meanwhile): the next run goes at once.
      if ((await tx.receiptPublications.due(origin, 1)).length > 0) await tx.jobs.enqueue(publishJob(origin, nowMs, nowMs), nowMs);
    },
  };
}
