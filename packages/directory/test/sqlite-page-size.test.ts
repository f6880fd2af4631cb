/**
 * A new directory file is made with 16 KB pages, where a listing's row and its page's row share
 * pages instead of each filling a 4 KB page alone (docs/directory.md "Loading listings"). A file made
 * before, with SQLite's 4 KB pages, keeps them: it opens, migrates, serves what it held and stores
 * more, as it did.
 */
// sqlite only: the page size is SQLite's; PostgreSQL keeps its own 8 KB pages
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { onPostgres, rawRows } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { DIRECTORY_MIGRATIONS, DIRECTORY_PAGE_BYTES } from '../src/store/kysely/database.js';
import { AFTER_RULES_7 } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const listings = [...generateListings({ count: 120, seed: 5, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];

async function pageBytes(dataDir: string): Promise<number> {
  const [row] = await rawRows('directory', dataDir, 'PRAGMA page_size');
  return Number(row!.page_size);
}

async function listedIds(directory: Directory): Promise<string[]> {
  const response = await directory.http.inject({ method: 'GET', url: '/v1/businesses?limit=100' });
  expect(response.statusCode).toBe(200);
  return (response.json() as { businesses: { id: string }[] }).businesses.map((hit) => hit.id).sort();
}

describe.skipIf(onPostgres)("a directory file's page size", () => {
  const clock = new TestClock(AFTER_RULES_7);
  const dirs: string[] = [];
  let directory: Directory | null = null;

  afterEach(async () => {
    await directory?.close();
    directory = null;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'page-size-'));
    dirs.push(dir);
    return dir;
  }

  it('is 16 KB for a new file, which stores and serves listings', async () => {
    const dir = dataDir();
    directory = await quietDirectory(dir, clock);
    await directory.store.listings.load(listings);
    expect(DIRECTORY_PAGE_BYTES).toBe(16_384);
    expect(await pageBytes(dir)).toBe(DIRECTORY_PAGE_BYTES);
    const [row] = await rawRows('directory', dir, 'SELECT count(*) AS n FROM listings l JOIN listing_pages p USING (seq)');
    expect(row!.n).toBe(listings.length);
    expect((await listedIds(directory)).length).toBeGreaterThan(0);
  });

  it('stays 4 KB in a file made before, which still opens, serves what it held and stores more', async () => {
    const dir = dataDir();
    // A file as the directory made it before: SQLite's default page size, every migration run.
    const before = await openSqlite(join(dir, 'directory.sqlite'), DIRECTORY_MIGRATIONS);
    await before.db.destroy();
    expect(await pageBytes(dir)).toBe(4_096);

    directory = await quietDirectory(dir, clock);
    await directory.store.listings.load(listings.slice(0, 60));
    await directory.close();
    directory = await quietDirectory(dir, clock);
    for (const listing of listings.slice(60)) await directory.store.listings.upsert(listing);
    expect(await pageBytes(dir)).toBe(4_096);

    // The same listings in a new 16 KB file give the same answer.
    const fresh = dataDir();
    const other = await quietDirectory(fresh, clock);
    try {
      await other.store.listings.load(listings);
      expect(await listedIds(directory)).toEqual(await listedIds(other));
    } finally {
      await other.close();
    }
  });
});
