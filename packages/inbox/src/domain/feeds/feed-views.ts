/** What the owner is shown of a feed and its runs (shapes in feed-schemas.ts). */
import type { z } from 'zod';
import type { InboxStore } from '../../store/store.js';
import type { feedRunSchema, feedSchema } from './feed-schemas.js';
import type { FeedRecord, FeedRunRecord } from './feed-types.js';

export type FeedView = z.input<typeof feedSchema>;
export type FeedRunView = z.input<typeof feedRunSchema>;

const iso = (ms: number): string => new Date(ms).toISOString();

export function feedRunView(run: FeedRunRecord): FeedRunView {
  return {
    id: run.id,
    trigger: run.trigger,
    status: run.status,
    format: run.format,
    startedAt: iso(run.startedAt),
    finishedAt: run.finishedAt === null ? null : iso(run.finishedAt),
    ...run.counts,
    skippedEntries: run.skippedEntries,
    error: run.error,
  };
}

export async function feedView(store: InboxStore, feed: FeedRecord, nowMs: number): Promise<FeedView> {
  const [lastRun] = await store.feeds.listRuns(feed.id, 1);
  const status = lastRun?.status === 'running' ? 'importing' : feed.nextImportAt <= nowMs ? 'queued' : 'scheduled';
  return {
    id: feed.id,
    name: feed.name,
    url: feed.urlDisplay,
    everyHours: feed.everyHours,
    status,
    nextImportAt: iso(feed.nextImportAt),
    createdAt: iso(feed.createdAt),
    lastSuccessAt: feed.lastSuccessAt === null ? null : iso(feed.lastSuccessAt),
    lastError: feed.lastError === null || feed.lastErrorAt === null ? null : { message: feed.lastError, at: iso(feed.lastErrorAt) },
    products: await store.feeds.productCounts(feed.id),
    lastRun: lastRun ? feedRunView(lastRun) : null,
  };
}
