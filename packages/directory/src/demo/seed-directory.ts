/**
 * The demo data set `npm start` loads into an empty directory: a few thousand realistic listings in
 * real cities (real time zones, hours, categories from the taxonomy, languages, attributes, doors).
 *
 * A member is listed through its inbox, so every demo member is also a registered inbox
 * (`demoInstance`): verified, with the manifest URL, verification, last ping and dormancy of its
 * listing, so GET /v1/instances/{domain}/status, the listing and GET /v1/stats say the same thing.
 * Their domains are fictional, so no verification job is queued for them (`nextAttemptAt` null):
 * the directory never fetches their manifests, which would fail and mark them unreachable. A demo
 * instance keeps its seeded state until its domain registers again (POST /v1/instances queues a real
 * check) or pings.
 */
import type { DirectoryStore, InstanceRecord } from '../store/store.js';
import type { ListingRecord } from '../domain/listings/listing.js';
import { loadTaxonomy } from '../domain/vocab/taxonomy.js';
import { generateListings, type GeneratedListing } from './listing-generator.js';

export const DEMO_SEED = 20261122;

/** A place category of the group, chosen by the generator's own random numbers. */
export function taxonomyCategoryPicker() {
  const taxonomy = loadTaxonomy();
  const byGroup = new Map<string, { id: string; label: string }[]>();
  return (group: string, rand: () => number): { id: string; label: string } | null => {
    let choices = byGroup.get(group);
    if (!choices) {
      choices = taxonomy.placeCategoriesInGroup(group).map((c) => ({ id: c.id, label: c.label }));
      byGroup.set(group, choices);
    }
    if (choices.length === 0) return null;
    return choices[Math.floor(rand() * choices.length)] ?? null;
  };
}

/**
 * The registered inbox of a demo member listing: verified when the listing was, checked when its
 * inbox last answered, pinged when the listing says, set aside when the listing is; no check queued.
 */
export function demoInstance(listing: GeneratedListing | ListingRecord): InstanceRecord {
  if (listing.source !== 'member') throw new TypeError(`${listing.domain} is not a member`);
  const origin = `https://${listing.domain}`;
  const verifiedAt = listing.verifiedAt ?? listing.memberSince ?? listing.createdAt;
  return {
    domain: listing.domain,
    origin,
    status: 'verified',
    manifest: null,
    manifestUrl: listing.manifestUrl ?? `${origin}/.well-known/agent-inbox.json`,
    listingId: listing.id,
    registeredAt: Math.min(listing.memberSince ?? verifiedAt, verifiedAt),
    verifiedAt,
    lastCheckedAt: Math.max(verifiedAt, listing.lastPingAt ?? verifiedAt),
    lastPingAt: listing.lastPingAt,
    failCount: 0,
    attempts: 1,
    nextAttemptAt: null,
    lastError: null,
    delistedAt: listing.delistedAt,
    dormantSince: listing.dormantSince,
    software: listing.software,
    counts: null,
  };
}

export async function seedDemoDirectory(store: DirectoryStore, count: number, nowMs: number): Promise<number> {
  if ((await store.listings.countAll()) > 0) return 0;
  const instances: InstanceRecord[] = [];
  function* listings(): Generator<GeneratedListing> {
    for (const listing of generateListings({ count, seed: DEMO_SEED, nowMs, placeCategoryOf: taxonomyCategoryPicker() })) {
      if (listing.source === 'member') instances.push(demoInstance(listing));
      yield listing;
    }
  }
  return store.transaction(async (tx) => {
    const written = await tx.listings.load(listings());
    for (const instance of instances) await tx.instances.put(instance);
    return written;
  });
}
