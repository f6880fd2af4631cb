/**
 * The owner's feed operations (docs/feeds.md): add a feed (its first import is queued at once),
 * list and read feeds, queue an import now, remove a feed (its products stay, detached).
 */
import { Problem, newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { queueFeedImport } from './feed-schedule.js';
import { checkFeedUrl } from './feed-url.js';
import { feedRunView, feedView } from './feed-views.js';
import type { FeedRecord } from './feed-types.js';

/** More feeds than a business needs would only multiply fetches; a shop has one or a few. */
export const MAX_FEEDS = 20;
/** Runs shown by get_feed and kept per feed. */
export const RUNS_KEPT = 20;
/** Purpose the feed URL is sealed under (bound with the feed id). */
export const FEED_URL_PURPOSE = 'feed.url';

export async function addFeed(
  ctx: DomainContext,
  secrets: SecretBox,
  input: { url: string; name?: string | undefined; everyHours: number },
  options: { allowLocalFeeds: boolean },
) {
  const url = checkFeedUrl(input.url, options);
  const existing = await ctx.store.feeds.findByUrlHash(url.hash);
  if (existing) throw new Problem('invalid_input', `This URL is already feed ${existing.id}.`, { fields: [{ path: 'url', problem: 'invalid', message: `Already added as feed ${existing.id}.` }] });
  if ((await ctx.store.feeds.count()) >= MAX_FEEDS) {
    throw new Problem('invalid_input', `A business has at most ${MAX_FEEDS} feeds; remove one first.`, {
      fields: [{ path: 'url', problem: 'invalid', message: `At most ${MAX_FEEDS} feeds.` }],
    });
  }
  const nowMs = ctx.clock.now();
  const id = newId(nowMs);
  const shown = new URL(url.display);
  const feed: FeedRecord = {
    id,
    name: input.name ?? `${shown.host}${shown.pathname === '/' ? '' : shown.pathname}`.slice(0, 100),
    urlSealed: secrets.seal(url.href, FEED_URL_PURPOSE, id),
    urlDisplay: url.display,
    urlHash: url.hash,
    everyHours: input.everyHours,
    createdAt: nowMs,
    updatedAt: nowMs,
    nextImportAt: nowMs,
    importRequests: 0,
    lastSuccessAt: null,
    lastError: null,
    lastErrorAt: null,
  };
  await ctx.store.feeds.insert(feed);
  await queueFeedImport(ctx.store, id, 'added', nowMs, nowMs);
  return feedView(ctx.store, feed, nowMs);
}

export async function listFeeds(ctx: DomainContext, page: { after: string | undefined; limit: number }) {
  const feeds = await ctx.store.feeds.list({ after: page.after, limit: page.limit + 1 });
  const shown = feeds.slice(0, page.limit);
  const nowMs = ctx.clock.now();
  const items = [];
  for (const feed of shown) items.push(await feedView(ctx.store, feed, nowMs));
  return { items, last: feeds.length > page.limit ? (shown.at(-1)?.id ?? null) : null };
}

export async function getFeed(ctx: DomainContext, id: string) {
  const feed = await resolveFeed(ctx, id);
  const runs = await ctx.store.feeds.listRuns(feed.id, RUNS_KEPT);
  return { ...(await feedView(ctx.store, feed, ctx.clock.now())), runs: runs.map(feedRunView) };
}

export async function importFeedNow(ctx: DomainContext, id: string) {
  const feed = await resolveFeed(ctx, id);
  const nowMs = ctx.clock.now();
  // The request count lets a run already under way see that another import was asked for after it began.
  const queued: FeedRecord = { ...feed, nextImportAt: nowMs, importRequests: feed.importRequests + 1, updatedAt: nowMs };
  await ctx.store.feeds.update(queued);
  await queueFeedImport(ctx.store, feed.id, 'manual', nowMs, nowMs);
  return feedView(ctx.store, queued, nowMs);
}

export async function removeFeed(ctx: DomainContext, id: string) {
  const feed = await resolveFeed(ctx, id);
  const view = await feedView(ctx.store, feed, ctx.clock.now());
  // Its pending import job finds no feed and ends quietly (feed-import.ts).
  const detachedProducts = await ctx.store.feeds.delete(feed.id);
  return { ...view, detachedProducts };
}

async function resolveFeed(ctx: DomainContext, id: string): Promise<FeedRecord> {
  const feed = await ctx.store.feeds.get(id);
  if (!feed) throw new Problem('not_found', `No feed has id ${id}.`);
  return feed;
}
