/**
 * Reporting to directory networks (inbox spec §1 "reports to directory networks"): for each network
 * enabled in settings, the inbox registers its domain (POST /v1/instances) and then pings every
 * hour with its software version and last day's counts. Both are durable jobs; a network that is
 * down is retried, and never holds up anything else.
 */
import { newId, publicFetch, PublicFetchError, type JobRecord } from '@svc/shared';
import { loadSettings } from '../domain/context.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';
import { fewWords, parseInstanceStatus, registrationStatus, type InstanceStatus } from './instance-status.js';

/** What a ping's prepare step found: sent (with the status read after it, when readable), or why not. */
type PingOutcome = { sent: InstanceStatus | null } | 'unknown' | 'disabled';
/** Registered (with the state the network answered, when it said one), or false when the network was turned off meanwhile. */
type RegisterOutcome = { verification: InstanceStatus['status'] | null } | false;

export const REGISTER_JOB = 'network.register';
export const PING_JOB = 'network.ping';
export const PING_EVERY_MS = 3_600_000;
const NETWORK_TIMEOUT_MS = 5_000;
const NETWORK_MAX_BYTES = 64 * 1024;

export interface NetworkReporting {
  /** This inbox's public origin; its host is the domain it registers. */
  publicBaseUrl: string;
  softwareVersion: string;
  /** Development: networks on 127.0.0.1 over http. Off by default. */
  allowLocalNetworks: boolean;
}

export function inboxDomain(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).host;
}

/** Queues registration with every enabled network (idempotent: one pending job per network). */
export async function scheduleNetworkRegistrations(store: InboxStore, nowMs: number): Promise<number> {
  const { settings } = await loadSettings(store);
  let queued = 0;
  for (const [origin, entry] of Object.entries(settings.networks)) {
    if (!entry.enabled) continue;
    await store.jobs.enqueue({ id: newId(nowMs), kind: REGISTER_JOB, payload: { origin }, runAt: nowMs, dedupeKey: `register:${origin}` }, nowMs);
    queued += 1;
  }
  return queued;
}

async function post(reporting: NetworkReporting, url: string, body: unknown): Promise<number> {
  return (await send(reporting, url, body)).status;
}

async function send(reporting: NetworkReporting, url: string, body?: unknown): Promise<{ status: number; body: string }> {
  const answer = await publicFetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: NETWORK_TIMEOUT_MS,
    maxBytes: NETWORK_MAX_BYTES,
    allowLoopback: reporting.allowLocalNetworks,
    allowHttp: reporting.allowLocalNetworks,
  });
  return { status: answer.status, body: answer.body };
}

/** Reads what the network says of this inbox (directory spec §4 GET /v1/instances/{domain}/status). */
async function readInstanceStatus(reporting: NetworkReporting, origin: string): Promise<InstanceStatus> {
  const answer = await send(reporting, `${origin.replace(/\/$/, '')}/v1/instances/${encodeURIComponent(inboxDomain(reporting.publicBaseUrl))}/status`);
  if (answer.status !== 200) throw new Error(`the network answered HTTP ${answer.status} for our status`);
  return parseInstanceStatus(answer.body);
}

async function stillEnabled(store: InboxStore, origin: string): Promise<boolean> {
  const { settings } = await loadSettings(store);
  return settings.networks[origin]?.enabled === true;
}

function failure(error: unknown): Error {
  return new Error(error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : error instanceof Error ? error.message : String(error));
}

/** Notes a failure for get_networks (outside any transaction: the job's own rollback must not erase it), then fails the job. */
async function recordFailure(store: InboxStore, clock: Clock, origin: string, what: string, error: unknown): Promise<Error> {
  const failed = failure(error);
  await store.networkStatus.record(origin, { lastError: fewWords(`${what}: ${failed.message}`), lastErrorAt: clock.now() }, clock.now());
  return failed;
}

export function registerHandler(store: InboxStore, clock: Clock, reporting: NetworkReporting) {
  return {
    prepare: async (job: JobRecord): Promise<RegisterOutcome> => {
      const origin = String(job.payload.origin);
      if (!(await stillEnabled(store, origin))) return false;
      try {
        const answer = await send(reporting, `${origin.replace(/\/$/, '')}/v1/instances`, { domain: inboxDomain(reporting.publicBaseUrl) });
        if (answer.status !== 202 && answer.status !== 200) throw new Error(`the network answered HTTP ${answer.status}`);
        return { verification: registrationStatus(answer.body) };
      } catch (error) {
        throw await recordFailure(store, clock, origin, 'registration', error);
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, registered: unknown): Promise<void> => {
      if (registered === false) return;
      const origin = String(job.payload.origin);
      // The first ping follows soon after the network has had a moment to verify us.
      const nowMs = clock.now();
      const { verification } = registered as Exclude<RegisterOutcome, false>;
      await tx.networkStatus.record(origin, { registeredAt: nowMs, ...(verification === null ? {} : { verification, statusCheckedAt: nowMs }) }, nowMs);
      await tx.jobs.enqueue({ id: newId(nowMs), kind: PING_JOB, payload: { origin }, runAt: nowMs + 2_000, dedupeKey: `ping:${origin}` }, nowMs);
    },
  };
}

export function pingHandler(store: InboxStore, clock: Clock, reporting: NetworkReporting) {
  return {
    prepare: async (job: JobRecord): Promise<PingOutcome> => {
      const origin = String(job.payload.origin);
      if (!(await stillEnabled(store, origin))) return 'disabled';
      const counts = await store.items.countCreatedSince(clock.now() - 86_400_000);
      try {
        const status = await post(reporting, `${origin.replace(/\/$/, '')}/v1/instances/${encodeURIComponent(inboxDomain(reporting.publicBaseUrl))}/ping`, {
          version: reporting.softwareVersion,
          runtime: `node ${process.versions.node}`,
          counts: { bookings: counts.booking ?? 0, orders: counts.order ?? 0, quotes: counts.quote_request ?? 0, messages: counts.message ?? 0 },
        });
        if (status === 404) return 'unknown';
        if (status < 200 || status >= 300) throw new Error(`the network answered HTTP ${status}`);
      } catch (error) {
        throw await recordFailure(store, clock, origin, 'ping', error);
      }
      // Whether the network verified us is read after each ping; a failure here does not undo the ping.
      try {
        return { sent: await readInstanceStatus(reporting, origin) };
      } catch (error) {
        await recordFailure(store, clock, origin, 'status', error);
        return { sent: null };
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
        await tx.jobs.enqueue({ id: newId(nowMs), kind: REGISTER_JOB, payload: { origin }, runAt: nowMs, dedupeKey: `register:${origin}` }, nowMs);
        return;
      }
      const status = outcome.sent;
      await tx.networkStatus.record(
        origin,
        {
          lastPingAt: nowMs,
          ...(status === null
            ? {}
            : { verification: status.status, verifiedAt: status.verifiedAt, listed: status.listed, statusCheckedAt: nowMs }),
        },
        nowMs,
      );
      await tx.jobs.enqueue({ id: newId(nowMs), kind: PING_JOB, payload: { origin }, runAt: nowMs + PING_EVERY_MS, dedupeKey: `ping:${origin}` }, nowMs);
    },
  };
}
