/**
 * The `feed.import` job (docs/feeds.md), two-phase like every network call: `prepare` records that
 * the run started, then fetches and reads the feed outside any transaction (a slow shop never holds
 * the database); `commit` writes the outcome with the job's finish. A feed that cannot be fetched or
 * read is an outcome (recorded on the run, retried later), not a job failure.
 */
import { PublicFetchError, publicFetch, type JobRecord } from '@svc/shared';
import { FeedDocumentError, parseFeedDocument } from '../domain/feeds/feed-document.js';
import { finishFeedRun, startFeedRun, type FeedFetchOutcome } from '../domain/feeds/feed-import.js';
import { FEED_URL_PURPOSE } from '../domain/feeds/feed-service.js';
import { FEED_RUN_TRIGGERS, type FeedRunTrigger } from '../domain/feeds/feed-types.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';

export { FEED_IMPORT_JOB } from '../domain/feeds/feed-schedule.js';

/** Big shops' feeds run to a few MiB; 20 MiB leaves room without letting one fetch eat memory. */
export const FEED_MAX_BYTES = 20 * 1024 * 1024;
/** A feed is a static file; a minute is ample even for a large one. */
export const FEED_TIMEOUT_MS = 60_000;

export interface FeedImportDeps {
  store: InboxStore;
  clock: Clock;
  secrets: SecretBox;
  /** Development: feeds on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_FEEDS). Off by default. */
  allowLocalFeeds: boolean;
}

interface Prepared {
  runId: string;
  feedId: string;
  outcome: FeedFetchOutcome;
}

export function feedImportHandler(deps: FeedImportDeps) {
  return {
    prepare: async (job: JobRecord): Promise<Prepared | null> => {
      const feedId = String(job.payload.feedId);
      const trigger = FEED_RUN_TRIGGERS.includes(job.payload.trigger as FeedRunTrigger) ? (job.payload.trigger as FeedRunTrigger) : 'scheduled';
      const started = await startFeedRun(deps.store, feedId, trigger, deps.clock.now());
      if (!started) return null;
      let url: string;
      try {
        url = deps.secrets.open(started.feed.urlSealed, FEED_URL_PURPOSE, feedId);
      } catch {
        // The data folder's secret key changed: retrying cannot help; the owner re-adds the feed.
        return { runId: started.run.id, feedId, outcome: { ok: false, error: 'the stored feed URL cannot be read with this instance\'s secret key; remove the feed and add it again' } };
      }
      return { runId: started.run.id, feedId, outcome: await fetchFeed(url, deps.allowLocalFeeds) };
    },
    commit: async (_job: JobRecord, tx: InboxStore, prepared: unknown): Promise<void> => {
      if (prepared === null) return;
      const { runId, feedId, outcome } = prepared as Prepared;
      await finishFeedRun({ store: tx, clock: deps.clock }, runId, feedId, outcome);
    },
  };
}

export async function fetchFeed(url: string, allowLocalFeeds: boolean): Promise<FeedFetchOutcome> {
  try {
    const answer = await publicFetch(url, {
      headers: {
        accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, text/tab-separated-values;q=0.8, text/plain;q=0.5, */*;q=0.1',
        'user-agent': 'svc-inbox-feeds/0.1',
      },
      timeoutMs: FEED_TIMEOUT_MS,
      maxBytes: FEED_MAX_BYTES,
      allowLoopback: allowLocalFeeds,
      allowHttp: allowLocalFeeds,
    });
    if (answer.status < 200 || answer.status >= 300) return { ok: false, error: `the feed URL answered HTTP ${answer.status}` };
    return { ok: true, feed: parseFeedDocument(answer.body) };
  } catch (error) {
    if (error instanceof PublicFetchError) return { ok: false, error: fetchFailure(error) };
    if (error instanceof FeedDocumentError) return { ok: false, error: `not a product feed: ${error.message}` };
    throw error;
  }
}

function fetchFailure(error: PublicFetchError): string {
  switch (error.reason) {
    case 'too_large':
      return `the feed is larger than ${FEED_MAX_BYTES / 1024 / 1024} MiB`;
    case 'redirect':
      return `the feed URL redirects (${error.message}); add the URL it moved to`;
    case 'timeout':
      return `the feed did not arrive within ${FEED_TIMEOUT_MS / 1000} s`;
    default:
      return `the feed could not be fetched (${error.reason}: ${error.message})`;
  }
}
