/**
 * Product feeds (inbox spec §4: MCP tools list_feeds, add_feed, import_feed_now, remove_feed; REST
 * paths and shapes designed here, see docs/feeds.md). A feed is a product feed URL in Google
 * Merchant Center format whose entries are imported into the products, again every few hours.
 */
import { z } from 'zod';
import { addFeedInput, feedDetailSchema, feedSchema, removedFeedSchema } from '../domain/feeds/feed-schemas.js';
import { addFeed, getFeed, importFeedNow, listFeeds, removeFeed } from '../domain/feeds/feed-service.js';
import { CHANGE, CREATE, READ, cursorPosition, idempotencyKeyField, inboxOperation, nextCursor, pageFields } from './context.js';

const feedIdField = z.string().min(1).max(64).describe('The feed id.');
const FEED_ERRORS = ['unauthorized', 'not_allowed', 'invalid_input', 'not_found'] as const;
const isFeedId = (position: string) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(position);

export const listFeedsOperation = inboxOperation({
  name: 'list_feeds',
  title: 'List product feeds',
  description: 'The product feeds this business imports, oldest first, each with its status, next import and last run\'s counts. Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/feeds' },
  scope: 'inbox:read',
  input: z.object({ ...pageFields }),
  output: z.object({ items: z.array(feedSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['unauthorized', 'not_allowed', 'invalid_input'],
  run: async (ctx, input) => {
    const page = await listFeeds(ctx.domain, { after: cursorPosition(input.cursor, isFeedId), limit: input.limit });
    return { items: page.items, next_cursor: nextCursor(page.last) };
  },
});

export const addFeedOperation = inboxOperation({
  name: 'add_feed',
  title: 'Add a product feed',
  description:
    'Adds a product feed by URL (https, public host): Google Merchant Center RSS 2.0 or Atom XML with g: attributes, or its tab-separated text. Its first import is queued at once; it re-imports every everyHours. Products it brings are kept in step with it; products made by hand are never touched.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/feeds', successStatus: 201 },
  answers: { location: true },
  scope: 'integrations:write',
  input: z.object({ ...addFeedInput, idempotency_key: idempotencyKeyField }).strict(),
  output: feedSchema,
  annotations: CREATE,
  errors: ['unauthorized', 'not_allowed', 'invalid_input'],
  run: async (ctx, input, extras) => {
    const feed = await addFeed(ctx.domain, ctx.secrets, input, { allowLocalFeeds: ctx.config.allowLocalFeeds ?? false });
    extras.headers = { ...extras.headers, location: `/v1/owner/feeds/${feed.id}` };
    return feed;
  },
});

export const getFeedOperation = inboxOperation({
  name: 'get_feed',
  title: 'Read a product feed',
  description: 'One feed with its status and its latest import runs (counts, skipped entries with reasons, errors), newest first.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/feeds/{id}' },
  scope: 'inbox:read',
  input: z.object({ id: feedIdField }),
  output: feedDetailSchema,
  annotations: READ,
  errors: ['unauthorized', 'not_allowed', 'not_found'],
  run: (ctx, input) => getFeed(ctx.domain, input.id),
});

export const importFeedNowOperation = inboxOperation({
  name: 'import_feed_now',
  title: 'Import a product feed now',
  description: 'Queues an import of the feed now (202); read the outcome with get_feed. The regular re-import follows everyHours after it.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/feeds/{id}/import', successStatus: 202 },
  scope: 'integrations:write',
  input: z.object({ id: feedIdField, idempotency_key: idempotencyKeyField }).strict(),
  output: feedSchema,
  annotations: CHANGE,
  errors: FEED_ERRORS,
  run: (ctx, input) => importFeedNow(ctx.domain, input.id),
});

export const removeFeedOperation = inboxOperation({
  name: 'remove_feed',
  title: 'Remove a product feed',
  description: 'Stops importing the feed and forgets it. The products it brought stay as they are, detached: from now on they are managed by hand.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/feeds/{id}' },
  scope: 'integrations:write',
  input: z.object({ id: feedIdField, idempotency_key: idempotencyKeyField }).strict(),
  output: removedFeedSchema,
  annotations: CHANGE,
  errors: FEED_ERRORS,
  run: (ctx, input) => removeFeed(ctx.domain, input.id),
});
