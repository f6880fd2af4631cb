/**
 * get_networks (inbox spec §2 "Network entry"; docs/receipts.md "What get_networks shows"): one entry
 * per network in settings, from the settings, what the reporting jobs recorded and the publication
 * outbox. A part this inbox cannot know yet is null, and `not_known` says why in plain words.
 */
import { loadSettings } from '../domain/context.js';
import type { InboxStore } from '../store/store.js';
import type { NetworkStatusRecord, PingSignatureState } from '../store/network-status-store.js';
import type { PublicationCounts } from '../store/receipt-publication-store.js';
import { REGISTRATION_STATES } from './instance-status.js';

type RegistrationState = (typeof REGISTRATION_STATES)[number];

function registrationState(value: string | null | undefined): RegistrationState | null {
  return REGISTRATION_STATES.find((state) => state === value) ?? null;
}

/** Why a part is null. */
const NOT_KNOWN = {
  rules: 'The network has not said which ranking rules it applies: its signed ping answers carry none yet.',
  standing: 'No signed ping of this inbox has been answered with a standing by this network yet.',
  ping_signature: 'This inbox has not pinged this network yet.',
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
  last_read_at: string | null;
  up_to_date: boolean | null;
  change_sent_at: string | null;
  last_error: { message: string; at: string } | null;
  rules: number | null;
  standing: {
    tier: 'new' | 'building' | 'trusted';
    score: number;
    ranked: boolean;
    kept: number;
    broken: number;
    customers: number;
    as_of: string | null;
    reported_at: string;
  } | null;
  ping_signature: { state: PingSignatureState; reason: string | null; at: string } | null;
  receipts: {
    published: number;
    waiting: number;
    held: number;
    refused: number;
    acknowledgements_sent: number;
    last_published_at: string | null;
    last_refusal: { receipt_id: string; reason: string; at: string } | null;
    next_attempt_at: string | null;
    network_says: { accepted: number; acknowledged: number; at: string } | null;
  };
  log: {
    checked_at: string | null;
    head_size: number | null;
    logged: number;
    missing: number;
    first_missing: { receipt_id: string; since: string } | null;
    problem: { message: string; at: string } | null;
  };
  not_known: Partial<Record<keyof typeof NOT_KNOWN, string>>;
}

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/**
 * What an enabled network receives from this inbox: network-jobs.ts, receipt-publication-job.ts, and
 * from the identity work (docs/identity.md) the passes it issued when a customer presents them, with
 * the outcome receipts of those customers' items (present-passes.ts, person-jobs.ts).
 */
const SENT_TO_ENABLED = ['registration', 'hourly_ping', 'change_notices', 'receipts', 'presented_passes'];
/** What a network that issues customer keys receives besides: a first-time customer's e-mail address (person-jobs.ts). */
const SENT_TO_ISSUING = ['first_time_customer_addresses'];

const NO_RECEIPTS: PublicationCounts = { waiting: 0, held: 0, accepted: 0, refused: 0, acknowledgementsSent: 0, lastAcceptedAt: null, lastRefusal: null };

export async function describeNetworks(store: InboxStore): Promise<NetworkEntry[]> {
  const { settings } = await loadSettings(store);
  const recorded = new Map((await store.networkStatus.list()).map((r) => [r.origin, r]));
  const counts = await store.receiptPublications.countsByNetwork();
  const logs = new Map((await Promise.all(Object.keys(settings.networks).map(async (origin) => [origin, await store.networkLogs.get(origin)] as const))));
  const logCounts = await store.networkLogs.counts();
  return Object.entries(settings.networks)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([origin, entry]) => {
      const log = logs.get(origin) ?? null;
      const found = logCounts.get(origin);
      return {
        ...toEntry(origin, entry, recorded.get(origin), counts.get(origin) ?? NO_RECEIPTS),
        log: {
          checked_at: iso(log?.checkedAt),
          head_size: log?.size ?? null,
          logged: found?.logged ?? 0,
          missing: found?.missing ?? 0,
          first_missing: found?.firstMissing ? { receipt_id: found.firstMissing.receiptId, since: new Date(found.firstMissing.since).toISOString() } : null,
          problem: log?.problem && log.problemAt !== null ? { message: log.problem, at: new Date(log.problemAt).toISOString() } : null,
        },
      };
    });
}

function toEntry(
  origin: string,
  entry: { enabled: boolean; issue?: boolean | undefined },
  status: NetworkStatusRecord | undefined,
  counts: PublicationCounts,
): Omit<NetworkEntry, 'log'> {
  const verification = registrationState(status?.verification);
  const standing = status?.standing && status.standingAt !== null ? { ...status.standing, reportedAt: status.standingAt } : null;
  const pending = counts.waiting + counts.held > 0;
  const described: Omit<NetworkEntry, 'not_known' | 'log'> = {
    origin,
    enabled: entry.enabled,
    issue: entry.issue ?? false,
    gets: entry.enabled ? [...SENT_TO_ENABLED, ...(entry.issue ? SENT_TO_ISSUING : [])] : [],
    verification,
    verified: verification === null ? null : verification === 'verified',
    verified_at: iso(status?.verifiedAt),
    listed: status?.listed ?? null,
    status_checked_at: iso(status?.statusCheckedAt),
    registered_at: iso(status?.registeredAt),
    last_ping_at: iso(status?.lastPingAt),
    last_read_at: iso(status?.manifestReadAt),
    up_to_date: status?.manifestCurrent ?? null,
    change_sent_at: iso(status?.changeSentAt),
    last_error: status?.lastError && status.lastErrorAt !== null ? { message: status.lastError, at: new Date(status.lastErrorAt).toISOString() } : null,
    rules: status?.rulesVersion ?? null,
    standing: standing && {
      tier: standing.tier,
      score: standing.score,
      ranked: standing.ranked,
      kept: standing.kept,
      broken: standing.broken,
      customers: standing.customers,
      as_of: standing.asOf,
      reported_at: new Date(standing.reportedAt).toISOString(),
    },
    ping_signature:
      status?.pingSignature && status.pingSignatureAt !== null
        ? { state: status.pingSignature, reason: status.pingSignatureReason, at: new Date(status.pingSignatureAt).toISOString() }
        : null,
    receipts: {
      published: counts.accepted,
      waiting: counts.waiting,
      held: counts.held,
      refused: counts.refused,
      acknowledgements_sent: counts.acknowledgementsSent,
      last_published_at: iso(counts.lastAcceptedAt),
      last_refusal: counts.lastRefusal && { receipt_id: counts.lastRefusal.receiptId, reason: counts.lastRefusal.reason, at: new Date(counts.lastRefusal.at).toISOString() },
      next_attempt_at: pending && entry.enabled ? iso(status?.publishRetryAt) : null,
      network_says:
        status?.networkReceipts && status.standingAt !== null ? { ...status.networkReceipts, at: new Date(status.standingAt).toISOString() } : null,
    },
  };
  const notKnown: NetworkEntry['not_known'] = {};
  for (const field of Object.keys(NOT_KNOWN) as (keyof typeof NOT_KNOWN)[]) if (described[field] === null) notKnown[field] = NOT_KNOWN[field];
  return { ...described, not_known: notKnown };
}
