/**
 * The hour changes in place (issue 40): at the hour's change a node keeps its index and gives it
 * the new hour's order (the same listings re-laid, no text read), and the listings written during
 * the hour stay in its small live index, each taking its place in the new order, instead of
 * building the whole index again. Every search at the new hour answers the bytes a node building
 * its index afresh at that hour answers, and the stats count the same. Runs on SQLite and, in the
 * PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, okBodies, quietDirectory } from './support/harness.js';

const SEARCHES = [
  '/v1/businesses?limit=100',
  '/v1/businesses?q=coffee&limit=50',
  '/v1/businesses?category=restaurant&limit=50',
  '/v1/businesses?open_now=true&limit=50',
  '/v1/businesses?source=member&limit=100',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=1000&order=nearest&limit=50',
  '/v1/businesses?q=renamed&limit=50',
];

describe('the hour changes in place', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const listings = [...generateListings({ count: 420, seed: 23, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const dataDir = mkdtempSync(join(tmpdir(), 'hour-change-'));
  const open: Directory[] = [];

  async function start(): Promise<Directory> {
    // Every directory here builds its index from the database (a start from the snapshot is index-snapshot.test.ts).
    const directory = await quietDirectory(dataDir, clock, { indexSnapshots: false });
    open.push(directory);
    return directory;
  }

  async function answers(directory: Directory): Promise<string[]> {
    const out = await okBodies(directory, [...SEARCHES, '/v1/stats']);
    // The stats' directory block (the network's live figures beside it move with pings and reads).
    out.push(JSON.stringify((JSON.parse(out.pop() as string) as { directory: unknown }).directory));
    return out;
  }

  afterAll(async () => {
    for (const directory of open) await directory.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers at the new hour as a fresh build does, byte for byte, without building the index again', { timeout: 120_000 }, async () => {
    const kept = await start();
    await kept.store.listings.load(listings.slice(0, 400));
    await answers(kept);
    const builtAt = kept.search.peek();
    expect(builtAt?.index.changedCount).toBe(0);

    // During the hour: renamed, new hours, delisted, new listings, a ping.
    clock.advance(20 * 60_000);
    const now = clock.now();
    for (const listing of listings.slice(0, 12)) await kept.store.listings.upsert({ ...listing, name: `${listing.name} Renamed`, updatedAt: now });
    for (const listing of listings.slice(12, 16)) await kept.store.listings.upsert({ ...listing, hours: null, updatedAt: now });
    for (const listing of listings.slice(16, 20)) await kept.store.listings.upsert({ ...listing, delistedAt: now, updatedAt: now });
    for (const listing of listings.slice(400)) await kept.store.listings.upsert({ ...listing, updatedAt: now });
    const pinged = listings.find((l) => l.source === 'member');
    if (pinged) await kept.store.listings.recordPing(pinged.domain, now, pinged.software);
    const during = await answers(kept);
    expect(during.find((body) => body.includes('Renamed'))).toBeDefined();

    clock.advance(HOUR);
    const carried = await answers(kept);
    const state = kept.search.peek();
    expect(state?.hourStart).toBe((builtAt?.hourStart ?? 0) + HOUR);
    // The same big index, given the new order: the listings written during the hour are in the small one.
    expect(state?.index.builtRevision).toBe(builtAt?.index.builtRevision);
    expect(state?.index.changedCount).toBe(40);

    await kept.close();
    open.pop();
    const fresh = await start();
    const rebuilt = await answers(fresh);
    expect(fresh.search.peek()?.index.changedCount).toBe(0);
    for (let i = 0; i < rebuilt.length; i++) expect(carried[i], SEARCHES[i] ?? '/v1/stats').toBe(rebuilt[i]);

    // Another hour on: still in place, still the fresh build's bytes.
    clock.advance(HOUR);
    const later = await answers(fresh);
    const third = await start();
    expect(await answers(third)).toEqual(later);
  });
});
