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
  const answer = await publicFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    timeoutMs: NETWORK_TIMEOUT_MS,
    maxBytes: NETWORK_MAX_BYTES,
    allowLoopback: reporting.allowLocalNetworks,
    allowHttp: reporting.allowLocalNetworks,
  });
  return answer.status;
}

async function stillEnabled(store: InboxStore, origin: string): Promise<boolean> {
  const { settings } = await loadSettings(store);
  return settings.networks[origin]?.enabled === true;
}

function failure(error: unknown): Error {
  return new Error(error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : String(error));
}

export function registerHandler(store: InboxStore, clock: Clock, reporting: NetworkReporting) {
  return {
    prepare: async (job: JobRecord): Promise<boolean> => {
      const origin = String(job.payload.origin);
      if (!(await stillEnabled(store, origin))) return false;
      try {
        const status = await post(reporting, `${origin.replace(/\/$/, '')}/v1/instances`, { domain: inboxDomain(reporting.publicBaseUrl) });
        if (status !== 202 && status !== 200) throw new Error(`the network answered HTTP ${status}`);
        return true;
      } catch (error) {
        throw failure(error);
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, registered: unknown): Promise<void> => {
      if (registered !== true) return;
      const origin = String(job.payload.origin);
      // The first ping follows soon after the network has had a moment to verify us.
      const nowMs = clock.now();
      await tx.jobs.enqueue({ id: newId(nowMs), kind: PING_JOB, payload: { origin }, runAt: nowMs + 2_000, dedupeKey: `ping:${origin}` }, nowMs);
    },
  };
}

export function pingHandler(store: InboxStore, clock: Clock, reporting: NetworkReporting) {
  return {
    prepare: async (job: JobRecord): Promise<'sent' | 'unknown' | 'disabled'> => {
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
        return 'sent';
      } catch (error) {
        throw failure(error);
      }
    },
    commit: async (job: JobRecord, tx: InboxStore, outcome: unknown): Promise<void> => {
      const origin = String(job.payload.origin);
      const nowMs = clock.now();
      if (outcome === 'disabled') return;
      if (outcome === 'unknown') {
        // The network forgot us: register again.
        await tx.jobs.enqueue({ id: newId(nowMs), kind: REGISTER_JOB, payload: { origin }, runAt: nowMs, dedupeKey: `register:${origin}` }, nowMs);
        return;
      }
      await tx.jobs.enqueue({ id: newId(nowMs), kind: PING_JOB, payload: { origin }, runAt: nowMs + PING_EVERY_MS, dedupeKey: `ping:${origin}` }, nowMs);
    },
  };
}
