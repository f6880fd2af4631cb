/**
 * One import run of a feed (docs/feeds.md). `startFeedRun` records that a run began (before the
 * fetch); `finishFeedRun` writes its outcome in one transaction: products created, updated or left
 * as they were, products of this feed that left it archived (never deleted), the counts and the
 * first skipped entries, and the next import queued. A feed that could not be read, or that holds
 * no usable entry, records the error and changes no product. Products made by hand, and products
 * another feed brought, are never touched.
 */
import { newId } from '@svc/shared';
import { announcePublishedChange } from '../publishing/published-change.js';
import { productSearchText } from '../catalogue/catalogue-service.js';
import { loadProfile, type DomainContext } from '../context.js';
import type { Product } from '../types.js';
import type { InboxStore } from '../../store/store.js';
import { readFeedEntry, type FeedProduct } from './feed-entry.js';
import { HOUR_MS, queueFeedImport } from './feed-schedule.js';
import { RUNS_KEPT } from './feed-service.js';
import { EMPTY_COUNTS, type FeedRecord, type FeedRunCounts, type FeedRunRecord, type FeedRunTrigger, type ParsedFeed, type SkippedEntry } from './feed-types.js';

/** Reasons kept per run: enough to see what is wrong without storing a whole broken feed. */
export const SKIPPED_ENTRIES_KEPT = 20;
/** A failed run is tried again this soon (or at the feed's own interval when that is shorter). */
export const RETRY_AFTER_FAILURE_HOURS = 1;

export type FeedFetchOutcome = { ok: true; feed: ParsedFeed } | { ok: false; error: string };

export async function startFeedRun(store: InboxStore, feedId: string, trigger: FeedRunTrigger, nowMs: number): Promise<{ feed: FeedRecord; run: FeedRunRecord } | null> {
  return store.transaction(async (tx) => {
    const feed = await tx.feeds.get(feedId);
    if (!feed) return null;
    await tx.feeds.failUnfinishedRuns(feedId, 'the import was interrupted (the process stopped); a later run replaced it', nowMs);
    const run: FeedRunRecord = {
      id: newId(nowMs),
      feedId,
      trigger,
      status: 'running',
      format: null,
      requestsSeen: feed.importRequests,
      startedAt: nowMs,
      finishedAt: null,
      counts: { ...EMPTY_COUNTS },
      skippedEntries: [],
      error: null,
    };
    await tx.feeds.insertRun(run);
    return { feed, run };
  });
}

/** Runs inside the job's transaction. A feed removed meanwhile ends the run quietly. */
export async function finishFeedRun(ctx: DomainContext, runId: string, feedId: string, outcome: FeedFetchOutcome): Promise<FeedRunRecord | null> {
  const feed = await ctx.store.feeds.get(feedId);
  if (!feed) return null;
  const run = (await ctx.store.feeds.listRuns(feedId, RUNS_KEPT)).find((r) => r.id === runId);
  if (!run) return null;
  const nowMs = ctx.clock.now();

  let finished: FeedRunRecord;
  if (!outcome.ok) {
    finished = { ...run, status: 'failed', finishedAt: nowMs, error: outcome.error };
  } else {
    const applied = await applyEntries(ctx, feed, outcome.feed);
    finished = { ...run, format: outcome.feed.format, finishedAt: nowMs, counts: applied.counts, skippedEntries: applied.skippedEntries, status: applied.error ? 'failed' : 'succeeded', error: applied.error };
  }
  await ctx.store.feeds.updateRun(finished);
  await ctx.store.feeds.pruneRuns(feedId, RUNS_KEPT);

  const failed = finished.status === 'failed';
  const askedMeanwhile = feed.importRequests > run.requestsSeen;
  const waitHours = failed ? Math.min(feed.everyHours, RETRY_AFTER_FAILURE_HOURS) : feed.everyHours;
  const nextImportAt = askedMeanwhile ? nowMs : nowMs + waitHours * HOUR_MS;
  await ctx.store.feeds.update({
    ...feed,
    updatedAt: nowMs,
    nextImportAt,
    lastSuccessAt: failed ? feed.lastSuccessAt : nowMs,
    lastError: failed ? finished.error : feed.lastError,
    lastErrorAt: failed ? nowMs : feed.lastErrorAt,
  });
  await queueFeedImport(ctx.store, feedId, askedMeanwhile ? 'manual' : failed ? 'retry' : 'scheduled', nextImportAt, nowMs);
  return finished;
}

interface Applied {
  counts: FeedRunCounts;
  skippedEntries: SkippedEntry[];
  /** Set when nothing usable was found, in which case nothing was written. */
  error: string | null;
}

async function applyEntries(ctx: DomainContext, feed: FeedRecord, parsed: ParsedFeed): Promise<Applied> {
  const { store } = ctx;
  const nowMs = ctx.clock.now();
  const { profile } = await loadProfile(store);
  const ours = new Set(await store.feeds.productIdsOf(feed.id));
  const seen = new Set<string>();
  const counts: FeedRunCounts = { ...EMPTY_COUNTS, entries: parsed.entries.length };
  const skippedEntries: SkippedEntry[] = [];
  const skip = (entry: number, id: string | null, reason: string) => {
    counts.skipped += 1;
    if (skippedEntries.length < SKIPPED_ENTRIES_KEPT) skippedEntries.push({ entry, id, reason });
  };

  for (const [index, raw] of parsed.entries.entries()) {
    const reading = readFeedEntry(raw, { currency: profile.currency, nowMs });
    if (!reading.ok) {
      skip(index + 1, reading.id, reading.reason);
      continue;
    }
    const wanted = reading.product;
    const feedId = raw.id ?? wanted.productId;
    if (seen.has(wanted.productId)) {
      skip(index + 1, feedId, `the id appears earlier in the feed (as product ${wanted.productId})`);
      continue;
    }
    const existing = await store.catalogue.getProduct(wanted.productId);
    if (existing && !ours.has(wanted.productId)) {
      const owner = await store.feeds.feedOfProduct(wanted.productId);
      skip(index + 1, feedId, owner ? `product ${wanted.productId} comes from another feed (${owner})` : `product ${wanted.productId} was made by hand; feeds leave it alone`);
      continue;
    }
    if (wanted.sku) {
      const holder = await store.catalogue.getProductBySku(wanted.sku);
      if (holder && holder.productId !== wanted.productId) {
        skip(index + 1, feedId, `SKU ${wanted.sku} already belongs to product ${holder.productId}`);
        continue;
      }
    }
    seen.add(wanted.productId);
    const product = toProduct(wanted, existing, nowMs);
    if (!existing) {
      await store.catalogue.upsertProduct(product, productSearchText(product));
      await store.feeds.linkProduct(product.productId, feed.id);
      counts.created += 1;
    } else if (sameProduct(existing, product)) {
      counts.unchanged += 1;
    } else {
      await store.catalogue.upsertProduct(product, productSearchText(product));
      counts.updated += 1;
    }
  }

  if (seen.size === 0) {
    // An empty or wholly broken feed is far likelier a fault at the shop than an empty shop: archiving everything would be wrong.
    const error = parsed.entries.length === 0 ? 'the feed has no entries; nothing was changed' : `none of the ${parsed.entries.length} entries could be imported; nothing was changed`;
    return { counts, skippedEntries, error };
  }

  for (const productId of ours) {
    if (seen.has(productId)) continue;
    const gone = await store.catalogue.getProduct(productId);
    if (!gone?.active) continue;
    const archived = { ...gone, active: false, updatedAt: nowMs };
    await store.catalogue.upsertProduct(archived, productSearchText(archived));
    counts.archived += 1;
  }
  // Products are in the manifest: networks are told of a run that changed any (published-change.ts).
  if (counts.created + counts.updated + counts.archived > 0) await announcePublishedChange(store, nowMs);
  return { counts, skippedEntries, error: null };
}

function toProduct(wanted: FeedProduct, existing: Product | null, nowMs: number): Product {
  return { ...wanted, active: true, createdAt: existing?.createdAt ?? nowMs, updatedAt: nowMs };
}

const COMPARED = ['sku', 'name', 'description', 'price', 'priceCurrency', 'category', 'image', 'url', 'inStock', 'active'] as const;

function sameProduct(a: Product, b: Product): boolean {
  return COMPARED.every((field) => a[field] === b[field]);
}
