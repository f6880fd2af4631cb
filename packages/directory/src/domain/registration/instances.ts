/**
 * Inbox registration (directory spec §4 /v1/instances): an inbox registers its domain (202), the
 * directory fetches and checks its manifest in a job (retried with backoff, refreshed every six
 * hours once verified), the inbox pings hourly, and polls its status.
 */
import { Problem, PublicFetchError, canonicalJson, newId, publicFetch, sha256Hex, type JobRecord } from '@svc/shared';
import type { DirectoryContext } from '../context.js';
import { recordMember } from '../evidence/evidence-log.js';
import type { DirectoryStore, InstanceRecord } from '../../store/store.js';
import { instanceStanding } from '../reputation/standing.js';
import { requireCaller, takeSignature, type SignedCaller } from '../signed/signed-call.js';
import { parseInstanceDomain } from './domain-name.js';
import { ManifestProblem, readManifest } from './member-listing.js';
import { retireFoundListingFor } from '../checks/found-listing.js';

export const VERIFY_JOB = 'instance.verify';
/** Verified manifests are fetched again this often. */
export const REFRESH_EVERY_MS = 6 * 3_600_000;
/** Waits between attempts at verifying a new registration; after the last, it waits for the refresh period. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;
/** A registration that never verified is given up after this many attempts. */
export const MAX_PENDING_ATTEMPTS = 10;
/**
 * A member's manifest is read again at most this often when its pings name another one (docs/directory.md
 * "A member's change seen in minutes"): a change shows within a minute or two, and no inbox can make the
 * directory fetch its manifest more often than this however often it pings.
 */
export const REREAD_AT_MOST_EVERY_MS = 60_000;

function verifyJob(domain: string, runAt: number) {
  return { id: newId(), kind: VERIFY_JOB, payload: { domain }, runAt, dedupeKey: `verify:${domain}` };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function statusView(instance: InstanceRecord, listed: boolean) {
  return {
    domain: instance.domain,
    status: instance.status,
    listed,
    manifest_url: instance.manifestUrl,
    delisted_at: iso(instance.delistedAt),
    dormant_since: iso(instance.dormantSince),
    verified_at: iso(instance.verifiedAt),
    last_checked_at: iso(instance.lastCheckedAt),
    last_ping_at: iso(instance.lastPingAt),
    fail_count: instance.failCount,
    ...(instance.nextAttemptAt !== null || instance.lastError !== null
      ? {
          verification: {
            attempts: instance.attempts,
            ...(instance.nextAttemptAt !== null ? { next_attempt_at: new Date(instance.nextAttemptAt).toISOString() } : {}),
            ...(instance.lastError !== null ? { last_error: instance.lastError } : {}),
          },
        }
      : {}),
  };
}

/** Registration is signed by the inbox itself (its manifest holds the key): nobody registers a domain that is not theirs. */
export async function registerInstance(ctx: DirectoryContext, rawDomain: unknown, caller: SignedCaller | undefined) {
  const { domain, origin } = parseInstanceDomain(rawDomain, ctx.settings.allowLocalInboxes);
  const signer = requireCaller(caller, origin, 'Registering an inbox');
  const nowMs = ctx.clock.now();
  return ctx.store.transaction(async (store) => {
    await takeSignature(store, signer, nowMs);
    let instance = await store.instances.get(domain);
    if (!instance) {
      instance = {
        domain,
        origin,
        status: 'pending',
        manifest: null,
        manifestUrl: `${origin}/.well-known/agent-inbox.json`,
        listingId: null,
        registeredAt: nowMs,
        verifiedAt: null,
        lastCheckedAt: null,
        lastPingAt: null,
        failCount: 0,
        attempts: 0,
        nextAttemptAt: nowMs,
        lastError: null,
        delistedAt: null,
        dormantSince: null,
        software: null,
        counts: null,
      };
    } else {
      // Registering again asks for a fresh check now.
      instance = { ...instance, nextAttemptAt: nowMs };
    }
    await store.instances.put(instance);
    await store.jobs.enqueue(verifyJob(domain, nowMs), nowMs);
    return {
      domain,
      status: instance.status,
      status_url: `${ctx.settings.baseUrl}/v1/instances/${encodeURIComponent(domain)}/status`,
      manifest_url: instance.manifestUrl,
      message: `Queued: the directory will fetch ${instance.manifestUrl} and check it. Poll the status URL.`,
    };
  });
}

async function knownInstance(store: DirectoryStore, rawDomain: unknown, allowLocal: boolean): Promise<InstanceRecord> {
  const { domain } = parseInstanceDomain(rawDomain, allowLocal);
  const instance = await store.instances.get(domain);
  if (!instance) throw new Problem('not_found', `No inbox registered as ${domain}; register it with POST /v1/instances.`);
  return instance;
}

export async function instanceStatus(ctx: DirectoryContext, rawDomain: unknown) {
  const instance = await knownInstance(ctx.store, rawDomain, ctx.settings.allowLocalInboxes);
  const listing = await ctx.store.listings.byDomain(instance.domain);
  const listed = listing !== null && listing.source === 'member' && listing.delistedAt === null && listing.dormantSince === null;
  return statusView(instance, listed);
}

/**
 * The most of each kind of item one instance may report for a day (docs/security.md): far above what
 * one business's inbox receives, low enough that no single instance can make the network's totals
 * say what it likes. Reported counts above it are counted as the ceiling.
 */
export const ACTIVITY_CEILING_PER_INSTANCE = 10_000;

function clippedCounts(counts: NonNullable<InstanceRecord['counts']>): NonNullable<InstanceRecord['counts']> {
  const clipped: Record<string, number> = {};
  for (const [kind, value] of Object.entries(counts)) if (typeof value === 'number') clipped[kind] = Math.min(value, ACTIVITY_CEILING_PER_INSTANCE);
  return clipped as NonNullable<InstanceRecord['counts']>;
}

/**
 * An hourly ping: the inbox is alive. A business answers when it pinged within the last day. A ping
 * is signed by the instance itself (an unsigned one is refused before this, 401, and changes
 * nothing), and only an instance the directory has verified may ping: a pending domain's pings keep
 * nothing alive and add nothing to the stats (409 wrong_state). The answer says how the network
 * stands with the inbox: its reputation as of the last snapshot, the receipts held, the rules in force.
 */
/** The SHA-256 of a manifest's canonical JSON: what an inbox's ping names of the manifest it publishes now. */
export function manifestSha256(manifest: unknown): string {
  return sha256Hex(canonicalJson(manifest));
}

/** What a ping's answer says of the manifest the directory holds for the inbox. */
export interface ManifestReading {
  /** Whether the directory holds the manifest the ping named (true when the ping named none). */
  current: boolean;
  /** When the directory last read the manifest, when that read succeeded. */
  read_at: string | null;
  /** When it reads it again, while it does not hold the one named. */
  read_after: string | null;
}

export async function pingInstance(
  ctx: DirectoryContext,
  rawDomain: unknown,
  caller: SignedCaller | undefined,
  body: { version?: string | undefined; runtime?: string | undefined; counts?: InstanceRecord['counts'] | undefined; manifestSha256?: string | undefined },
) {
  const nowMs = ctx.clock.now();
  const { origin } = parseInstanceDomain(rawDomain, ctx.settings.allowLocalInboxes);
  const signer = requireCaller(caller, origin, 'A ping');
  const manifest = await ctx.store.transaction(async (store): Promise<ManifestReading> => {
    await takeSignature(store, signer, nowMs);
    const instance = await knownInstance(store, rawDomain, ctx.settings.allowLocalInboxes);
    if (instance.verifiedAt === null) {
      throw new Problem('wrong_state', `${instance.domain} is not verified yet; its pings count once the directory has verified its manifest. Poll the status URL.`);
    }
    const software = body.version ? { version: body.version, runtime: body.runtime ?? 'unknown' } : instance.software;
    const counts = body.counts ? clippedCounts(body.counts) : instance.counts;
    // The inbox publishes another manifest than the one held: it is read again, at most once a minute.
    const current = body.manifestSha256 === undefined || instance.manifest === null || manifestSha256(instance.manifest) === body.manifestSha256.toLowerCase();
    let nextAttemptAt = instance.nextAttemptAt;
    if (!current) {
      const readAt = Math.max(nowMs, (instance.lastCheckedAt ?? 0) + REREAD_AT_MOST_EVERY_MS);
      if (nextAttemptAt === null || nextAttemptAt > readAt) {
        nextAttemptAt = readAt;
        await store.jobs.enqueue(verifyJob(instance.domain, readAt), nowMs);
      }
    }
    // A ping brings a member set aside back (recordPing clears the listing's dormant_since too).
    await store.instances.put({ ...instance, lastPingAt: nowMs, dormantSince: null, software, counts, nextAttemptAt });
    await store.listings.recordPing(instance.domain, nowMs, software);
    const readOk = instance.failCount === 0 && instance.manifest !== null;
    return { current, read_at: readOk ? iso(instance.lastCheckedAt) : null, read_after: current ? null : iso(nextAttemptAt) };
  });
  return { ...(await instanceStanding(ctx, origin, nowMs)), manifest };
}

type Fetched = { ok: true; manifest: unknown } | { ok: false; error: string };

/** The verification job: fetch the manifest outside any transaction, then record what it said. */
export function verificationHandler(ctx: DirectoryContext) {
  return {
    prepare: async (job: JobRecord): Promise<Fetched> => {
      const instance = await ctx.store.instances.get(String(job.payload.domain));
      if (!instance) return { ok: false, error: 'not registered' };
      try {
        const answer = await publicFetch(instance.manifestUrl, {
          timeoutMs: ctx.settings.manifestTimeoutMs,
          maxBytes: ctx.settings.manifestMaxBytes,
          allowLoopback: ctx.settings.allowLocalInboxes,
          allowHttp: ctx.settings.allowLocalInboxes,
        });
        if (answer.status !== 200) return { ok: false, error: `the manifest answered HTTP ${answer.status}` };
        try {
          return { ok: true, manifest: JSON.parse(answer.body) as unknown };
        } catch {
          return { ok: false, error: 'the manifest is not valid JSON' };
        }
      } catch (error) {
        return { ok: false, error: error instanceof PublicFetchError ? `${error.reason}: ${error.message}` : String(error) };
      }
    },
    commit: async (job: JobRecord, store: DirectoryStore, prepared: unknown): Promise<void> => {
      const fetched = prepared as Fetched;
      const instance = await store.instances.get(String(job.payload.domain));
      if (!instance) return;
      const nowMs = ctx.clock.now();
      const attempts = instance.attempts + 1;
      if (fetched.ok) {
        try {
          const reading = readManifest(fetched.manifest, instance.origin, instance.domain, nowMs, ctx.resolveCategories);
          // A member from its first verification: the evidence log records it, and its time there is its verification time.
          const verifiedAt = instance.verifiedAt ?? (await recordMember(store, instance.domain, instance.origin, nowMs));
          const existing = await store.listings.byDomain(instance.domain);
          const saved = await store.listings.upsert({
            ...reading.listing,
            id: existing?.id ?? newId(nowMs),
            createdAt: existing?.createdAt ?? nowMs,
            memberSince: existing?.source === 'member' ? (existing.memberSince ?? nowMs) : nowMs,
            verifiedAt,
            lastPingAt: instance.lastPingAt,
            software: instance.software,
            delistedAt: instance.delistedAt,
            dormantSince: instance.dormantSince,
          });
          // A found entry on the member's registrable domain gives way to the member (domain/checks/found-listing.ts).
          await retireFoundListingFor(store, instance.domain, nowMs);
          await store.instances.put({
            ...instance,
            status: 'verified',
            manifest: fetched.manifest as Record<string, unknown>,
            listingId: saved.id,
            verifiedAt,
            lastCheckedAt: nowMs,
            failCount: 0,
            attempts,
            nextAttemptAt: nowMs + REFRESH_EVERY_MS,
            lastError: null,
          });
          await store.jobs.enqueue(verifyJob(instance.domain, nowMs + REFRESH_EVERY_MS), nowMs);
          // Keys may have been rotated: the next signature or receipt reads them from this manifest.
          ctx.instanceKeys.invalidate(instance.origin);
          return;
        } catch (error) {
          if (!(error instanceof ManifestProblem)) throw error;
          return recordFailure(store, instance, attempts, `the manifest is not usable: ${error.message}`, nowMs);
        }
      }
      return recordFailure(store, instance, attempts, fetched.error, nowMs);
    },
  };
}

async function recordFailure(store: DirectoryStore, instance: InstanceRecord, attempts: number, error: string, nowMs: number): Promise<void> {
  const wasVerified = instance.verifiedAt !== null;
  const failCount = instance.failCount + 1;
  const delay = wasVerified ? REFRESH_EVERY_MS : (RETRY_DELAYS_MS[Math.min(failCount - 1, RETRY_DELAYS_MS.length - 1)] as number);
  const givingUp = !wasVerified && attempts >= MAX_PENDING_ATTEMPTS;
  const nextAttemptAt = givingUp ? null : nowMs + delay;
  await store.instances.put({
    ...instance,
    status: wasVerified ? 'unreachable' : 'pending',
    lastCheckedAt: nowMs,
    failCount,
    attempts,
    nextAttemptAt,
    lastError: error.slice(0, 300),
  });
  if (wasVerified) {
    const listing = await store.listings.byDomain(instance.domain);
    if (listing) {
      const { seq: _seq, ...rest } = listing;
      // Its inbox door fails from this check on (checked_at: when it first failed), until a check succeeds.
      const failed = (d: (typeof rest.doors)[number]) => (d.status === 'failing' ? d : { ...d, status: 'failing' as const, checkedAt: new Date(nowMs).toISOString() });
      await store.listings.upsert({ ...rest, doors: rest.doors.map((d) => (d.type === 'inbox' ? failed(d) : d)), updatedAt: nowMs });
    }
  }
  if (nextAttemptAt !== null) await store.jobs.enqueue(verifyJob(instance.domain, nextAttemptAt), nowMs);
}
