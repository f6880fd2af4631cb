/**
 * Queues a feed's import as a durable job. Each feed has at most one pending import job (one dedupe
 * key per feed): queueing again moves it, so "import now" and the regular re-import never stack.
 */
import { newId } from '@svc/shared';
import type { InboxStore } from '../../store/store.js';
import type { FeedRunTrigger } from './feed-types.js';

export const FEED_IMPORT_JOB = 'feed.import';
export const HOUR_MS = 3_600_000;

export async function queueFeedImport(store: InboxStore, feedId: string, trigger: FeedRunTrigger, runAtMs: number, nowMs: number): Promise<void> {
  await store.jobs.enqueue(
    { id: newId(nowMs), kind: FEED_IMPORT_JOB, payload: { feedId, trigger }, runAt: runAtMs, dedupeKey: `${FEED_IMPORT_JOB}:${feedId}` },
    nowMs,
  );
}
