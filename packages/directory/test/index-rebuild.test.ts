/**
 * The kept index is built again in the background (issue 40): once REBUILD_AT listings were written
 * since it was built, a search starts building it again from storage, in steps while searches go on,
 * and the new index takes the kept one's place with the writes made meanwhile. The small index is
 * then empty again, searches answer the bytes a node starting afresh answers, and the hour's change
 * after it carries the index in place. Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { REBUILD_AT } from '../src/domain/search/search-service.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, okBodies, quietDirectory } from './support/harness.js';

const SEARCHES = [
  '/v1/businesses?limit=100',
  '/v1/businesses?q=coffee&limit=50',
  '/v1/businesses?category=restaurant&limit=50',
  '/v1/businesses?open_now=true&limit=50',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=1000&order=nearest&limit=50',
  '/v1/businesses?q=renamed&limit=50',
];

describe('the kept index built again in the background', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const listings = [...generateListings({ count: 300 + REBUILD_AT + 50, seed: 41, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const dataDir = mkdtempSync(join(tmpdir(), 'index-rebuild-'));
  const open: Directory[] = [];

  async function start(): Promise<Directory> {
    const directory = await quietDirectory(dataDir, clock, { indexSnapshots: false });
    open.push(directory);
    return directory;
  }

  const answers = (directory: Directory) => okBodies(directory, SEARCHES);

  afterAll(async () => {
    for (const directory of open) await directory.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the writes into a new index while searches go on, and answers as a fresh start does', { timeout: 180_000 }, async () => {
    const kept = await start();
    await kept.store.listings.load(listings.slice(0, 300));
    await answers(kept);
    const builtAt = kept.search.peek();
    expect(builtAt?.index.changedCount).toBe(0);

    // Fewer writes than REBUILD_AT: they stay in the small index.
    clock.advance(10 * 60_000);
    const now = clock.now();
    for (const listing of listings.slice(0, 10)) await kept.store.listings.upsert({ ...listing, name: `${listing.name} Renamed`, updatedAt: now });
    await answers(kept);
    await kept.search.rebuilding;
    expect(kept.search.rebuilt).toBe(0);
    expect(kept.search.peek()?.index.changedCount).toBe(10);

    // REBUILD_AT new listings more: the next search starts the rebuild and is answered meanwhile.
    await kept.store.listings.load(listings.slice(300, 300 + REBUILD_AT));
    const during = await answers(kept);
    expect(kept.search.peek()?.index.changedCount).toBe(10 + REBUILD_AT);
    const rebuilding = kept.search.rebuilding;
    // A write while it is built: in the small index of the new one.
    await kept.store.listings.upsert({ ...(listings[20] as (typeof listings)[number]), name: `${listings[20]?.name} Renamed late`, updatedAt: now });
    await rebuilding;
    expect(kept.search.rebuilt).toBe(1);
    const after = await answers(kept);
    const state = kept.search.peek();
    expect(state?.hourStart).toBe(builtAt?.hourStart);
    expect(state?.index.builtRevision).toBeGreaterThan(builtAt?.index.builtRevision ?? Infinity);
    expect(state?.index.changedCount).toBeLessThanOrEqual(1);
    expect(after[SEARCHES.indexOf('/v1/businesses?q=renamed&limit=50')]).toContain('Renamed late');
    // The same hour, the same answers but for the late write.
    expect(during[0]).toContain('"businesses"');

    // A node starting now builds from storage: the same bytes.
    const fresh = await start();
    expect(await answers(fresh)).toEqual(after);

    // The hour's change carries the new index in place, as any other.
    clock.advance(HOUR);
    const carried = await answers(kept);
    expect(kept.search.peek()?.index.builtRevision).toBe(state?.index.builtRevision);
    const third = await start();
    expect(await answers(third)).toEqual(carried);
  });

  it('answers as a fresh start does when the hour changes while the index is built again', { timeout: 180_000 }, async () => {
    for (const directory of open.splice(0)) await directory.close();
    const kept = await start();
    await answers(kept);
    const before = kept.search.rebuilt;
    clock.advance(5 * 60_000);
    const now = clock.now();
    for (const listing of listings.slice(0, REBUILD_AT)) await kept.store.listings.upsert({ ...listing, name: `${listing.name} Renamed again`, updatedAt: now });
    await answers(kept);
    // The rebuild is under way (or done): the next hour comes at once.
    clock.advance(HOUR);
    const changed = await answers(kept);
    await kept.search.rebuilding;
    expect(kept.search.rebuilt - before).toBeLessThanOrEqual(1);
    const after = await answers(kept);
    expect(after).toEqual(changed);
    const fresh = await start();
    expect(await answers(fresh)).toEqual(after);
  });
});
