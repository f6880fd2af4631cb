/**
 * get_networks (inbox spec §2 "Network entry"): one entry per network in settings, from the
 * settings and what the reporting jobs recorded. Parts this inbox cannot know yet are null, and
 * `not_known` says why in plain words (docs/keys-and-scopes.md).
 */
import { loadSettings } from '../domain/context.js';
import type { InboxStore } from '../store/store.js';
import type { NetworkStatusRecord } from '../store/network-status-store.js';
import { REGISTRATION_STATES } from './instance-status.js';

type RegistrationState = (typeof REGISTRATION_STATES)[number];

function registrationState(value: string | null | undefined): RegistrationState | null {
  return REGISTRATION_STATES.find((state) => state === value) ?? null;
}

/** Why a field is null: these come with signed pings and receipts, which this inbox does not have yet. */
export const NOT_KNOWN_YET = {
  rules: 'The network does not tell this inbox which rules it applies yet.',
  standing: "Standing (tier, score, ranked) comes in a network's signed ping answer; this network's answers carry none yet.",
  ping_signature: 'This inbox does not sign its pings yet, so there is no signature to follow.',
  receipts: 'This inbox does not publish receipts to networks yet.',
} as const;

export interface NetworkEntry {
  origin: string;
  enabled: boolean;
  issue: boolean;
  gets: string[];
  verification: RegistrationState | null;
  verified: boolean | null;
  verified_at: string | null;
  listed: boolean | null;
  status_checked_at: string | null;
  registered_at: string | null;
  last_ping_at: string | null;
  last_error: { message: string; at: string } | null;
  rules: null;
  standing: null;
  ping_signature: null;
  receipts: null;
  not_known: typeof NOT_KNOWN_YET;
}

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** What an enabled network receives from this inbox today (network-jobs.ts). */
const SENT_TO_ENABLED = ['registration', 'hourly_ping'];

export async function describeNetworks(store: InboxStore): Promise<NetworkEntry[]> {
  const { settings } = await loadSettings(store);
  const recorded = new Map((await store.networkStatus.list()).map((r) => [r.origin, r]));
  return Object.entries(settings.networks)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([origin, entry]) => toEntry(origin, entry, recorded.get(origin)));
}

function toEntry(origin: string, entry: { enabled: boolean; issue?: boolean | undefined }, status: NetworkStatusRecord | undefined): NetworkEntry {
  const verification = registrationState(status?.verification);
  return {
    origin,
    enabled: entry.enabled,
    issue: entry.issue ?? false,
    gets: entry.enabled ? [...SENT_TO_ENABLED] : [],
    verification,
    verified: verification === null ? null : verification === 'verified',
    verified_at: iso(status?.verifiedAt),
    listed: status?.listed ?? null,
    status_checked_at: iso(status?.statusCheckedAt),
    registered_at: iso(status?.registeredAt),
    last_ping_at: iso(status?.lastPingAt),
    last_error: status?.lastError && status.lastErrorAt !== null ? { message: status.lastError, at: new Date(status.lastErrorAt).toISOString() } : null,
    rules: null,
    standing: null,
    ping_signature: null,
    receipts: null,
    not_known: NOT_KNOWN_YET,
  };
}
