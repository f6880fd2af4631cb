/** Schemas of feeds as the owner sees and writes them (docs/feeds.md). */
import { z } from 'zod';
import { FEED_FORMATS, FEED_RUN_STATUSES, FEED_RUN_TRIGGERS } from './feed-types.js';

/** Re-import at least hourly and at most weekly; daily unless asked. */
export const EVERY_HOURS_MIN = 1;
export const EVERY_HOURS_MAX = 168;
export const EVERY_HOURS_DEFAULT = 24;

export const addFeedInput = {
  url: z.string().min(1).max(2000).describe('The feed\'s https URL on a public host: Google Merchant Center RSS 2.0 or Atom XML, or its tab-separated text.'),
  name: z.string().trim().min(1).max(100).optional().describe('A name to know it by; the URL\'s host and path when absent.'),
  everyHours: z
    .number()
    .int()
    .min(EVERY_HOURS_MIN)
    .max(EVERY_HOURS_MAX)
    .default(EVERY_HOURS_DEFAULT)
    .describe('Re-import every this many hours (1 to 168, default 24).'),
};

const instant = z.string().describe('ISO 8601 instant (UTC).');

export const feedRunSchema = z.object({
  id: z.string(),
  trigger: z.enum(FEED_RUN_TRIGGERS).describe('added: first import; manual: import_feed_now; scheduled: every everyHours; retry: an hour after a failed run.'),
  status: z.enum(FEED_RUN_STATUSES).describe('A failed run changed no product.'),
  format: z.enum(FEED_FORMATS).nullable(),
  startedAt: instant,
  finishedAt: instant.nullable(),
  entries: z.number().int().describe('Entries in the document.'),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  skipped: z.number().int(),
  archived: z.number().int().describe('Products of this feed no longer in it, set inactive (never deleted).'),
  skippedEntries: z
    .array(z.object({ entry: z.number().int().describe('1-based position in the feed.'), id: z.string().nullable(), reason: z.string() }))
    .describe('The first skipped entries with the reason.'),
  error: z.string().nullable().describe('Why the run failed.'),
});

export const feedSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().describe('The feed URL; query values read "redacted" because they often carry a token.'),
  everyHours: z.number().int(),
  status: z.enum(['queued', 'importing', 'scheduled']).describe('queued: an import is due now; importing: one is running; scheduled: the next waits until nextImportAt.'),
  nextImportAt: instant,
  createdAt: instant,
  lastSuccessAt: instant.nullable(),
  lastError: z.object({ message: z.string(), at: instant }).nullable().describe('The latest failed run\'s error, kept after later successes.'),
  products: z.object({ active: z.number().int(), archived: z.number().int() }).describe('Products this feed brought.'),
  lastRun: feedRunSchema.nullable(),
});

export const feedDetailSchema = feedSchema.extend({ runs: z.array(feedRunSchema).describe('The latest runs, newest first.') });

export const removedFeedSchema = feedSchema.extend({
  detachedProducts: z.number().int().describe('Products the feed brought; they stay in the catalogue as they are, now managed by hand.'),
});
