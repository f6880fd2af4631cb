/**
 * The hour prepared ahead (issue 40): in the hour's last minutes a node sorts the next hour's order
 * and lays its index out in it while searches go on; at the change only the listings written since
 * (renamed, re-houred, delisted, added, a member whose inbox answered again after a silent day) are
 * placed again. Every search at the new hour answers the bytes of a node that built its index
 * afresh at that hour, the stored order is the one a fresh computation gives, and the hour's
 * statement is made. Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { PREPARE_AHEAD_MS } from '../src/domain/search/search-service.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const SEARCHES = [
  '/v1/businesses?limit=100',
  '/v1/businesses?limit=100&cursor=',
  '/v1/businesses?q=coffee&limit=50',
  '/v1/businesses?category=restaurant&limit=50',
  '/v1/businesses?open_now=true&limit=50',
  '/v1/businesses?source=member&limit=100',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=1000&order=nearest&limit=50',
  '/v1/businesses?q=renamed&limit=50',
  '/v1/businesses?door_type=inbox&limit=100',
];

describe('the next hour prepared ahead', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const listings = [...generateListings({ count: 440, seed: 29, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const dataDir = mkdtempSync(join(tmpdir(), 'hour-ahead-'));
  const open: Directory[] = [];

  async function start(options: { prepareAhead?: boolean } = {}): Promise<Directory> {
    const directory = await quietDirectory(dataDir, clock, options);
    open.push(directory);
    return directory;
  }

  async function answers(directory: Directory): Promise<string[]> {
    const out: string[] = [];
    let next = '';
    for (const path of [...SEARCHES, '/v1/stats']) {
      // The second search is the first one's next page (its cursor names the hour).
      const url = path.endsWith('cursor=') ? `${path}${encodeURIComponent(next)}` : path;
      const response = await directory.http.inject({ method: 'GET', url });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      if (out.length === 0) next = (JSON.parse(response.body) as { next_cursor: string }).next_cursor;
      out.push(path === '/v1/stats' ? JSON.stringify((JSON.parse(response.body) as { directory: unknown }).directory) : response.body);
    }
    return out;
  }

  afterAll(async () => {
    for (const directory of open) await directory.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('places the listings written after it and answers as a fresh build at the new hour, byte for byte', { timeout: 120_000 }, async () => {
    const kept = await start();
    await kept.store.listings.load(listings.slice(0, 400));
    const members = listings.slice(0, 400).filter((l) => l.source === 'member' && l.lastPingAt !== null);
    expect(members.length).toBeGreaterThan(3);
    const [silent, answering] = members;
    const nextHour = Math.floor(clock.now() / HOUR) * HOUR + HOUR;
    // A member whose inbox has not answered for three days: not reachable now at the next hour, until it pings.
    await kept.store.listings.upsert({ ...silent!, lastPingAt: clock.now() - 72 * HOUR, updatedAt: clock.now() });
    // One that answered a day before the next hour, to the minute: reachable in its order, but its inbox
    // is no longer a live door minutes later, until it pings (the layout made ahead must learn of that ping).
    await kept.store.listings.upsert({ ...answering!, lastPingAt: nextHour - 24 * HOUR + 60_000, updatedAt: clock.now() });
    await answers(kept);
    const hourBefore = kept.search.peek()!;
    expect(hourBefore.hourStart + HOUR).toBe(nextHour);

    // The hour's last minutes: a search starts the next hour's preparation, which ends while searches go on.
    clock.advance(hourBefore.hourStart + HOUR - PREPARE_AHEAD_MS + 60_000 - clock.now());
    await answers(kept);
    await kept.search.prepareNextHour();
    expect(kept.search.peek()).toBe(hourBefore);

    // After it was prepared: renamed, new hours, delisted, new listings, pings.
    clock.advance(5 * 60_000);
    const now = clock.now();
    for (const listing of listings.slice(0, 10)) await kept.store.listings.upsert({ ...listing, name: `${listing.name} Renamed`, updatedAt: now });
    for (const listing of listings.slice(10, 14)) await kept.store.listings.upsert({ ...listing, hours: null, updatedAt: now });
    for (const listing of listings.slice(14, 18)) await kept.store.listings.upsert({ ...listing, delistedAt: now, updatedAt: now });
    for (const listing of listings.slice(400)) await kept.store.listings.upsert({ ...listing, updatedAt: now });
    await kept.store.listings.recordPing(silent!.domain, now, silent!.software);
    await kept.store.listings.recordPing(answering!.domain, now, answering!.software);

    clock.advance(hourBefore.hourStart + HOUR + 2 * 60_000 - clock.now());
    const carried = await answers(kept);
    const state = kept.search.peek()!;
    expect(state.hourStart).toBe(hourBefore.hourStart + HOUR);
    expect(state.preparedAhead).toBe(true);
    // Still the index built at the first hour; the listings written since it are in the small one.
    expect(state.index.builtRevision).toBe(hourBefore.index.builtRevision);
    const statement = await kept.http.inject({ method: 'GET', url: `/v1/orders/${new Date(state.hourStart).toISOString().slice(0, 13)}` });
    expect(statement.statusCode, statement.body).toBe(200);
    const stored = await kept.store.orders.get(state.hourStart);

    await kept.close();
    open.pop();
    // Nothing prepared ahead and no order stored: the fresh node computes the hour's order itself.
    const fresh = await start({ prepareAhead: false });
    await fresh.store.orders.prune(state.hourStart + 1);
    const rebuilt = await answers(fresh);
    expect((await fresh.store.orders.get(state.hourStart))?.order).toEqual(stored?.order);
    for (let i = 0; i < rebuilt.length; i++) expect(carried[i], SEARCHES[i] ?? '/v1/stats').toBe(rebuilt[i]);
    expect(rebuilt.find((body) => body.includes('Renamed'))).toBeDefined();
  });
});
