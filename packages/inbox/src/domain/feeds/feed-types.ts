/**
 * The vocabulary of product feeds (docs/feeds.md): a feed, one import run of it, and what a run
 * counted. Plain data; storage and transport live elsewhere.
 */

/** The document shapes an import understands, all with Google Merchant Center attribute names. */
export const FEED_FORMATS = ['rss', 'atom', 'tsv'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** Why a run happened: `added` (first import), `manual` (import_feed_now), `scheduled` (every N hours), `retry` (soon after a failed run). */
export const FEED_RUN_TRIGGERS = ['added', 'manual', 'scheduled', 'retry'] as const;
export type FeedRunTrigger = (typeof FEED_RUN_TRIGGERS)[number];

/** `running` until the run is written; `failed` runs changed no product. */
export const FEED_RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type FeedRunStatus = (typeof FEED_RUN_STATUSES)[number];

export interface FeedRecord {
  id: string;
  name: string;
  /** The URL sealed with the SecretBox: a feed URL often carries an access token in its query. */
  urlSealed: string;
  /** The URL with query values redacted: what is shown. */
  urlDisplay: string;
  /** SHA-256 of the normalised URL, so one URL is added once. */
  urlHash: string;
  everyHours: number;
  createdAt: number;
  updatedAt: number;
  /** When the queued import job is due. */
  nextImportAt: number;
  /** Counts import_feed_now calls; a run that started before the latest request queues another. */
  importRequests: number;
  lastSuccessAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
}

export interface FeedRunCounts {
  /** Entries the document held. */
  entries: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Products of this feed that left it and were set inactive. */
  archived: number;
}

export interface SkippedEntry {
  /** 1-based position of the entry in the document (for a tab-separated file, line = entry + 1). */
  entry: number;
  /** The entry's g:id, when it had one. */
  id: string | null;
  reason: string;
}

export interface FeedRunRecord {
  id: string;
  feedId: string;
  trigger: FeedRunTrigger;
  status: FeedRunStatus;
  format: FeedFormat | null;
  /** The feed's importRequests when the run started. */
  requestsSeen: number;
  startedAt: number;
  finishedAt: number | null;
  counts: FeedRunCounts;
  /** The first few skipped entries with their reasons. */
  skippedEntries: SkippedEntry[];
  error: string | null;
}

/** One entry of a feed as read: attribute name (without namespace prefix, lower case) → text. */
export type RawFeedEntry = Readonly<Record<string, string>>;

export interface ParsedFeed {
  format: FeedFormat;
  entries: RawFeedEntry[];
}

export const EMPTY_COUNTS: FeedRunCounts = Object.freeze({ entries: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, archived: 0 });
