/**
 * Reporting to directory networks (inbox spec §1; docs/receipts.md "Signed instance requests"): for
 * each network enabled in settings, the inbox registers its domain (POST /v1/instances) and then pings
 * every hour with its software version, last day's counts and the SHA-256 of the manifest it
 * publishes now. Both are signed (svc-instance/1, the receipt key) and durable jobs. A failure never
 * ends them: it is recorded for get_networks and the job comes back after a growing wait (at most an
 * hour), so a network down for a day is still registered and pinged once it is back. A ping's answer
 * carries the owner's standing there, kept until the next signed ping says otherwise.
 *
 * A change to what the inbox publishes (profile, hours, closures, services, products, keys) is told
 * to every enabled network within CHANGE_WINDOW_MS (docs/directory.md "A member's change"): the write
 * queues a change job in its own transaction (announcePublishedChange), changes within one window are
 * one job, and the job is a ping like the hourly one, so the network sees the new hash and reads the
 * manifest again. When the network says when it will, the inbox asks again just after, to learn when
 * it read it (a few times at most).
 */
import { canonicalJson, newId, PublicFetchError, sha256Hex, type JobRecord } from '@svc/shared';
import { buildManifest } from '../doors/rest/manifest.js';
import { loadSettings } from '../domain/context.js';
import { CHANGE_JOB } from '../domain/publishing/published-change.js';
import { wakePublisher } from '../domain/receipts/publication-queue.js';
import type { InboxStore } from '../store/store.js';
import type { NetworkStatusChange, PingSignatureState } from '../store/network-status-store.js';
import { fewWords, invalidSignatureReason, parseInstanceStatus, parsePingAnswer, registrationStatus, type InstanceStatus, type PingAnswer } from './instance-status.js';
import { logCheckJob } from './log-check-job.js';
import { REPORT_RETRY, retryDelayMs } from './retry-delay.js';
import { getJson, inboxDomain, networkUrl, postSigned, problemOf, type NetworkCaller } from './signed-requests.js';

export { inboxDomain, type NetworkReporting } from './signed-requests.js';
export { CHANGE_JOB, announcePublishedChange } from '../domain/publishing/published-change.js';

export const REGISTER_JOB = 'network.register';
export const PING_JOB = 'network.ping';
export const PING_EVERY_MS = 3_600_000;
/** After the network says when it reads the manifest again, the inbox asks this much later, and at most this often in a row. */
const FOLLOW_UP_AFTER_MS = 5_000;
const MAX_FOLLOW_UPS = 3;

/** Why a call did not go through, in a few words, and what became of its signature when the network said. */
interface Failed {
  failed: string;
  signature?: { state: PingSignatureState; reason: string | null };
}

type RegisterOutcome = { verification: InstanceStatus['status'] | null } | Failed | 'disabled';

type PingOutcome =
  | {
      /** The status read after the ping, when readable (a failure there does not undo the ping). */
      status: InstanceStatus | null;
      statusError: string | null;
      answer: PingAnswer | null;
      signature: { state: PingSignatureState; reason: string | null };
    }
  | Failed
  | 'unknown'
  | 'disabled';

/** Queues registration with every enabled network (one pending job per network), and the publication of what waits for it. */
export async function scheduleNetworkRegistrations(store: InboxStore, nowMs: number): Promise<number> {
  const { settings } = await loadSettings(store);
  let queued = 0;
  for (const [origin, entry] of Object.entries(settings.networks)) {
    if (!entry.enabled) continue;
    await store.jobs.enqueue(registerJob(origin, nowMs, nowMs), nowMs);
    queued += 1;
  }
  // Receipts queued before a restart, or for a network turned on again, go out without waiting for a new one.
  for (const network of await store.receiptPublications.networksWithPending()) {
    if (settings.networks[network]?.enabled) await wakePublisher({ store, clock: { now: () => nowMs } }, network);
  }
  return queued;
}

/** How often the inbox looks for items new since its last ping; a network's activity counts are at most about this old. */
export const ACTIVITY_CHECK_EVERY_MS = 5 * 60_000;

/**
 * A chore of the job runner (every ACTIVITY_CHECK_EVERY_MS): a network whose last ping is older than
 * that, and that has items since it it has not counted, is pinged now instead of at the hour, so its
 * day's activity (/v1/stats) is minutes old rather than up to an hour (issue 38: 13 bookings showed
 * as 0). A quiet inbox still pings hourly; a busy one at most every few minutes.
 */
export async function pingAfterActivity(store: InboxStore, nowMs: number): Promise<void> {
  const { settings } = await loadSettings(store);
  const statuses = new Map((await store.networkStatus.list()).map((status) => [status.origin, status]));
  for (const [origin, entry] of Object.entries(settings.networks)) {
    const lastPingAt = statuses.get(origin)?.lastPingAt ?? null;
    if (!entry.enabled || lastPingAt === null || nowMs - lastPingAt < ACTIVITY_CHECK_EVERY_MS) continue;
    const since = await store.items.countCreatedSince(lastPingAt);
    if (Object.values(since).some((n) => (n ?? 0) > 0)) await store.jobs.enqueue(pingJob(origin, nowMs, nowMs), nowMs);
  }
}

/** The SHA-256 of the manifest as published now, over its canonical JSON (what the network hashes of the one it read). */
export async function publishedManifestSha256(caller: NetworkCaller, nowMs: number): Promise<string> {
  // The same answer as the manifest door gives: it can sign when its receipt key opens (app.ts networkSigner).
  const canSign = () =>
    caller.signing.keys.active(caller.store).then(
      () => true,
      () => false,
    );
  const manifest = await buildManifest(caller.store, { publicBaseUrl: caller.reporting.publicBaseUrl, softwareVersion: caller.reporting.softwareVersion }, nowMs, canSign);
  return sha256Hex(canonicalJson(manifest));
}

const registerJob = (origin: string, runAt: number, nowMs: number) => ({ id: newId(nowMs), kind: REGISTER_JOB, payload: { origin }, runAt, dedupeKey: `register:${origin}` });
const pingJob = (origin: string, runAt: number, nowMs: number) => ({ id: newId(nowMs), kind: PING_JOB, payload: { origin }, runAt, dedupeKey: `ping:${origin}` });

async function stillEnabled(store: InboxStore, origin: string): Promise<boolean> {
  const { settings } = await loadSettings(store);
  return settings.networks[origin]?.enabled === true;
}

function failureMessage(error: unknown): string {
  return error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error);
}

/** A non-2xx answer in a few words: the status and the problem's code and detail when it sent one. */
function answerFailure(status: number, body: string): Failed {
  const problem = problemOf(body);
  const words = problem ? `the network answered HTTP ${status} ${problem.code}${problem.detail ? `: ${problem.detail}` : ''}` : `the network answered HTTP ${status}`;
  if (status !== 401) return { failed: words };
  // 401 is about the signature: the network says which part when it sends a problem document.
  return { failed: words, signature: { state: 'refused', reason: problem?.signatureError ?? problem?.code ?? null } };
}

/** Records a failure and asks for the job again after the wait its failure run calls for. */
async function retryLater(tx: InboxStore, origin: string, what: string, failed: Failed, job: (origin: string, runAt: number, nowMs: number) => ReturnType<typeof pingJob>, nowMs: number) {
  const failures = ((await tx.networkStatus.get(origin))?.pingFailures ?? 0) + 1;
  const change: NetworkStatusChange = { lastError: fewWords(`${what}: ${failed.failed}`), lastErrorAt: nowMs, pingFailures: failures };
  if (failed.signature) Object.assign(change, { pingSignature: failed.signature.state, pingSignatureReason: failed.signature.reason, pingSignatureAt: nowMs });
  await tx.networkStatus.record(origin, change, nowMs);
  await tx.jobs.enqueue(job(origin, nowMs + retryDelayMs(failures, REPORT_RETRY), nowMs), nowMs);
}

export function registerHandler(caller: NetworkCaller) {
  const { store, clock, reporting } = caller;
  return {
    prepare: async (job: JobRecord): Promise<RegisterOutcome> => {
      const origin = String(job.payload.origin);
      if (!(await stillEnabled(store, origin))) return 'disabled';
      try {
        const answer = await postSigned(caller, networkUrl(origin, '/v1/instances'), { domain: inboxDomain(reporting.publicBaseUrl) });
        if (answer.status !== 202 && answer.status !== 200) return answerFailure(answer.status, answer.body);
        return { verification: registrationStatus(answer.body) };
      } catch (error) {
        return { failed: failureMessage(error) };
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const origin = String(job.payload.origin);
      const nowMs = clock.now();
      const outcome = prepared as RegisterOutcome;
      if (outcome === 'disabled') return;
      if ('failed' in outcome) return retryLater(tx, origin, 'registration', outcome, registerJob, nowMs);
      const { verification } = outcome;
      await tx.networkStatus.record(origin, { registeredAt: nowMs, pingFailures: 0, ...(verification === null ? {} : { verification, statusCheckedAt: nowMs }) }, nowMs);
      // The first ping follows soon after the network has had a moment to verify us.
      await tx.jobs.enqueue(pingJob(origin, nowMs + 2_000, nowMs), nowMs);
    },
  };
}

/** What became of a ping's signature, read off an answer the network took. */
function signatureOfAnswer(answer: PingAnswer | null, svcSignature: string | string[] | undefined): { state: PingSignatureState; reason: string | null } {
  if (answer) return { state: 'verified', reason: null };
  const invalid = invalidSignatureReason(svcSignature);
  return invalid ? { state: 'invalid', reason: invalid } : { state: 'not_checked', reason: null };
}

export function pingHandler(caller: NetworkCaller) {
  const { store, clock, reporting } = caller;
  const domain = () => encodeURIComponent(inboxDomain(reporting.publicBaseUrl));
  return {
    prepare: async (job: JobRecord): Promise<PingOutcome> => {
      const origin = String(job.payload.origin);
      if (!(await stillEnabled(store, origin))) return 'disabled';
      const counts = await store.items.countCreatedSince(clock.now() - 86_400_000);
      const manifestSha256 = await publishedManifestSha256(caller, clock.now());
      let answer: PingAnswer | null;
      let signature: { state: PingSignatureState; reason: string | null };
      try {
        const sent = await postSigned(caller, networkUrl(origin, `/v1/instances/${domain()}/ping`), {
          version: reporting.softwareVersion,
          runtime: `node ${process.versions.node}`,
          counts: { bookings: counts.booking ?? 0, orders: counts.order ?? 0, quotes: counts.quote_request ?? 0, messages: counts.message ?? 0 },
          manifest_sha256: manifestSha256,
        });
        if (sent.status === 404) return 'unknown';
        if (sent.status < 200 || sent.status >= 300) return answerFailure(sent.status, sent.body);
        answer = sent.status === 200 ? parsePingAnswer(sent.body) : null;
        signature = signatureOfAnswer(answer, sent.headers['svc-signature']);
      } catch (error) {
        return { failed: failureMessage(error) };
      }
      // Whether the network verified us is read after each ping; a failure here does not undo the ping.
      try {
        const read = await getJson(caller, networkUrl(origin, `/v1/instances/${domain()}/status`));
        if (read.status !== 200) throw new Error(`the network answered HTTP ${read.status} for our status`);
        return { status: parseInstanceStatus(read.body), statusError: null, answer, signature };
      } catch (error) {
        return { status: null, statusError: failureMessage(error), answer, signature };
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      const origin = String(job.payload.origin);
      const nowMs = clock.now();
      const outcome = prepared as PingOutcome;
      if (outcome === 'disabled') return;
      if (outcome === 'unknown') {
        await tx.networkStatus.record(origin, { verification: null, listed: null, lastError: 'ping: the network no longer knew this inbox; registering again', lastErrorAt: nowMs }, nowMs);
        // The network forgot us: register again.
        await tx.jobs.enqueue(registerJob(origin, nowMs, nowMs), nowMs);
        return;
      }
      if ('failed' in outcome) return retryLater(tx, origin, 'ping', outcome, pingJob, nowMs);
      const { status, statusError, answer, signature } = outcome;
      const before = await tx.networkStatus.get(origin);
      const change: NetworkStatusChange = {
        lastPingAt: nowMs,
        pingFailures: 0,
        pingSignature: signature.state,
        pingSignatureReason: signature.reason,
        pingSignatureAt: nowMs,
        ...(status === null ? {} : { verification: status.status, verifiedAt: status.verifiedAt, listed: status.listed, statusCheckedAt: nowMs }),
        // The standing is kept until a signed ping answers another one.
        ...(answer === null ? {} : { standing: answer.standing, standingAt: nowMs, networkReceipts: answer.receipts, rulesVersion: answer.rules }),
        ...(statusError === null ? {} : { lastError: fewWords(`status: ${statusError}`), lastErrorAt: nowMs }),
        // What the network read of the business: when, and whether it is what we publish now.
        ...(answer?.manifest ? { manifestCurrent: answer.manifest.current, ...(answer.manifest.readAt === null ? {} : { manifestReadAt: answer.manifest.readAt }) } : {}),
        ...(job.kind === CHANGE_JOB && job.payload.followUp === undefined ? { changeSentAt: nowMs } : {}),
      };
      await tx.networkStatus.record(origin, change, nowMs);
      await tx.jobs.enqueue(pingJob(origin, nowMs + PING_EVERY_MS, nowMs), nowMs);
      // The network reads the new manifest later (it spaces its reads): ask again just after, to learn when it did.
      const followUps = Number(job.payload.followUp ?? 0);
      const readAfter = answer?.manifest && !answer.manifest.current ? answer.manifest.readAfter : null;
      if (readAfter !== null && followUps < MAX_FOLLOW_UPS) {
        const runAt = Math.max(nowMs, readAfter) + FOLLOW_UP_AFTER_MS;
        await tx.jobs.enqueue({ id: newId(nowMs), kind: CHANGE_JOB, payload: { origin, followUp: followUps + 1 }, runAt, dedupeKey: `change:${origin}:follow-up` }, nowMs);
      }
      // The network answers: its evidence log is checked a moment later (log-check-job.ts), at most once per ping.
      await tx.jobs.enqueue(logCheckJob(origin, nowMs + 60_000, nowMs), nowMs);
      // The network answers again (it was failing), or verified us at last (it held our receipts):
      // what waits for it goes now, not at the end of its wait. A Retry-After it gave is kept.
      const cameBack = before?.publishWait === 'failing';
      const verifiedNow = status?.status === 'verified' && (before?.verification !== 'verified' || before.publishWait === 'held');
      if ((cameBack || verifiedNow) && (before?.publishRetryAt ?? 0) > nowMs) {
        await tx.networkStatus.record(origin, { publishRetryAt: null, publishWait: null }, nowMs);
        if ((await tx.receiptPublications.networksWithPending()).includes(origin)) await wakePublisher({ store: tx, clock }, origin);
      }
    },
  };
}
