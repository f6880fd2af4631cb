/**
 * Storage of product feeds (docs/feeds.md): the feeds, their import runs, and which products each
 * feed brought (a product made by hand has no link and is never touched by a feed). In domain types.
 */
import type { FeedRecord, FeedRunRecord } from '../domain/feeds/feed-types.js';
import type { PageRequest } from './page-request.js';

export interface FeedProductCounts {
  active: number;
  archived: number;
}

export interface FeedStore {
  insert(feed: FeedRecord): Promise<void>;
  get(id: string): Promise<FeedRecord | null>;
  findByUrlHash(urlHash: string): Promise<FeedRecord | null>;
  /** Oldest first, ids above `after`. */
  list(page: PageRequest): Promise<FeedRecord[]>;
  count(): Promise<number>;
  update(feed: FeedRecord): Promise<void>;
  /** Deletes the feed with its runs and its product links; the products themselves stay. Returns how many products were linked. */
  delete(id: string): Promise<number>;

  insertRun(run: FeedRunRecord): Promise<void>;
  updateRun(run: FeedRunRecord): Promise<void>;
  /** Newest first. */
  listRuns(feedId: string, limit: number): Promise<FeedRunRecord[]>;
  /** Marks runs still `running` (their process died) as failed with this error. */
  failUnfinishedRuns(feedId: string, error: string, nowMs: number): Promise<void>;
  /** Keeps the newest `keep` runs of a feed. */
  pruneRuns(feedId: string, keep: number): Promise<void>;

  /** Ids of the products this feed brought. */
  productIdsOf(feedId: string): Promise<string[]>;
  /** The feed a product came from, or null for a product made by hand. */
  feedOfProduct(productId: string): Promise<string | null>;
  linkProduct(productId: string, feedId: string): Promise<void>;
  productCounts(feedId: string): Promise<FeedProductCounts>;
}
