/**
 * Storing many listings at once (`insertMany`: multi-row INSERTs, one revision read per statement)
 * stores what storing them one by one (`upsert`, the write path of registrations and pings) stores:
 * the same listing rows, the same rendered pages, and so the same answers to every search. The
 * benchmarks and the demo seed store their listings this way, so the search nodes they measure
 * build from true data. The bulk load (`load`: large transactions, statements prepared once on
 * SQLite, COPY on PostgreSQL) stores every column `upsert` stores, revisions too, with its pages
 * rendered on this thread or on worker threads (when asked), and on SQLite its transactions written
 * on a writer thread of their own (a load of more than one transaction) or on this thread (a smaller
 * one, or one inside a caller's transaction).
 * Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, rawRows } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AFTER_RULES_7 } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const COUNT = 600;
/** Smaller than the store's own batch, so the bulk write spans several statements and revisions. */
const BATCH = 128;

const SEARCHES = [
  '/v1/businesses?limit=100',
  '/v1/businesses?q=coffee&limit=50',
  '/v1/businesses?category=restaurant&limit=50',
  '/v1/businesses?open_now=true&limit=50',
  '/v1/businesses?category=hair-beauty&language=en&open_now=true',
  '/v1/businesses?source=member&limit=100',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=500&order=nearest&limit=50',
];

/** Every column of a table but the ones named, in seq order. */
async function rowsOf(dataDir: string, table: 'listings' | 'listing_pages', leaveOut: readonly string[]): Promise<Record<string, unknown>[]> {
  const rows = await rawRows('directory', dataDir, `SELECT * FROM ${table} ORDER BY seq`);
  return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !leaveOut.includes(column))));
}

describe('listings stored in bulk and one by one', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const listings = [...generateListings({ count: COUNT, seed: 17, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const nodes: { dataDir: string; directory: Directory }[] = [];

  async function start(): Promise<Directory> {
    const dataDir = mkdtempSync(join(tmpdir(), 'bulk-store-'));
    const directory = await quietDirectory(dataDir, clock);
    nodes.push({ dataDir, directory });
    return directory;
  }

  beforeAll(async () => {
    const bulk = await start();
    await bulk.store.transaction((tx) => tx.listings.insertMany(listings, BATCH));
    const oneByOne = await start();
    for (const listing of listings) await oneByOne.store.listings.upsert(listing);
    // The bulk load, in transactions of its own (several, of 150: on SQLite the writer thread writes
    // them), and within a caller's transaction; the second load of the same listings stores nothing more.
    const loaded = await start();
    await loaded.store.listings.load(listings.slice(0, 400), { rowsPerTransaction: 150 });
    await loaded.store.transaction((tx) => tx.listings.load(listings.slice(400)));
    await loaded.store.listings.load(listings.slice(0, 10));
    // Pages rendered on two worker threads while each transaction before is written.
    const onWorkers = await start();
    await onWorkers.store.listings.load(listings.slice(0, 450), { rowsPerTransaction: 100, renderWorkers: 2 });
    await onWorkers.store.transaction((tx) => tx.listings.load(listings.slice(450), { rowsPerTransaction: 100, renderWorkers: 1 }));
    await onWorkers.store.listings.load(listings.slice(100, 200), { renderWorkers: 2 });
  }, 180_000);

  afterAll(async () => {
    for (const { dataDir, directory } of nodes) {
      await directory.close();
      await dropTestDatabase('directory', dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stores the same listing rows and the same rendered pages', { timeout: 60_000 }, async () => {
    const [bulk, oneByOne] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const bulkListings = await rowsOf(bulk.dataDir, 'listings', ['revision', 'content_revision']);
    expect(bulkListings).toHaveLength(COUNT);
    expect(bulkListings).toEqual(await rowsOf(oneByOne.dataDir, 'listings', ['revision', 'content_revision']));
    const bulkPages = await rowsOf(bulk.dataDir, 'listing_pages', []);
    // Every listing written has its page, written in the same call as the listing.
    expect(bulkPages).toHaveLength(COUNT);
    expect(bulkPages).toEqual(await rowsOf(oneByOne.dataDir, 'listing_pages', []));
  });

  it('numbers a bulk write one revision per statement, rising, as one write per listing numbers each', { timeout: 60_000 }, async () => {
    const [bulk, oneByOne] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const revisions = (await rawRows('directory', bulk.dataDir, 'SELECT revision, content_revision FROM listings ORDER BY seq')).map((row) => [Number(row.revision), Number(row.content_revision)]);
    const expected = revisions.map((_, i) => Math.floor(i / BATCH) + 1);
    expect(revisions.map(([revision]) => revision)).toEqual(expected);
    expect(revisions.map(([, content]) => content)).toEqual(expected);
    const single = (await rawRows('directory', oneByOne.dataDir, 'SELECT revision FROM listings ORDER BY seq')).map((row) => Number(row.revision));
    expect(single).toEqual(single.map((_, i) => i + 1));
  });

  it('loads the rows, pages and revisions that storing one by one stores', { timeout: 60_000 }, async () => {
    const [, oneByOne, loaded] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    const loadedListings = await rowsOf(loaded.dataDir, 'listings', []);
    expect(loadedListings).toHaveLength(COUNT);
    // Every column, revisions included: one revision per listing, rising in the order given.
    expect(loadedListings).toEqual(await rowsOf(oneByOne.dataDir, 'listings', []));
    const loadedPages = await rowsOf(loaded.dataDir, 'listing_pages', []);
    expect(loadedPages).toHaveLength(COUNT);
    expect(loadedPages).toEqual(await rowsOf(oneByOne.dataDir, 'listing_pages', []));
  });

  it('loads with pages rendered on worker threads the rows, pages and revisions that storing one by one stores', { timeout: 60_000 }, async () => {
    const [, oneByOne, , onWorkers] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    const loadedListings = await rowsOf(onWorkers.dataDir, 'listings', []);
    expect(loadedListings).toHaveLength(COUNT);
    expect(loadedListings).toEqual(await rowsOf(oneByOne.dataDir, 'listings', []));
    const loadedPages = await rowsOf(onWorkers.dataDir, 'listing_pages', []);
    expect(loadedPages).toHaveLength(COUNT);
    expect(loadedPages).toEqual(await rowsOf(oneByOne.dataDir, 'listing_pages', []));
  });

  it.runIf(onPostgres)('leaves the load\'s own table on PostgreSQL empty, without even dead rows for the next load to read through', { timeout: 60_000 }, async () => {
    const [, , loaded, onWorkers] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    for (const { dataDir } of [loaded, onWorkers]) {
      // Rows deleted would leave their pages behind until a vacuum; at 150,000 listings a load's
      // transaction then read through so many that it took longer than the statement timeout.
      const [row] = await rawRows('directory', dataDir, "SELECT count(*) AS n, pg_relation_size('listings_load') AS bytes FROM listings_load");
      expect({ rows: Number(row!.n), bytes: Number(row!.bytes) }).toEqual({ rows: 0, bytes: 0 });
    }
  });

  it.runIf(onPostgres)('stores the loaded documents and pages compressed with LZ4 where the server has it', { timeout: 60_000 }, async () => {
    const [, oneByOne, loaded] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    const [server] = await rawRows('directory', loaded.dataDir, "SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'");
    const expected = server!.lz4 === true ? 'lz4' : 'pglz';
    for (const { dataDir } of [loaded, oneByOne]) {
      // Null for a value too short to compress; every compressed one by the expected method.
      const methods = await rawRows(
        'directory',
        dataDir,
        `SELECT DISTINCT m FROM (SELECT pg_column_compression(document) AS m FROM listings
           UNION ALL SELECT pg_column_compression(inputs) FROM listing_pages
           UNION ALL SELECT pg_column_compression(fixed) FROM listing_pages) AS all_methods WHERE m IS NOT NULL`,
      );
      expect(methods.map((row) => row.m)).toEqual([expected]);
    }
  });

  it('answers every search with the same bytes', { timeout: 120_000 }, async () => {
    for (const path of SEARCHES) {
      const [a, b, c, d] = await Promise.all(nodes.map(({ directory }) => directory.http.inject({ method: 'GET', url: path })));
      expect(a!.statusCode, `${path}: ${a!.body}`).toBe(200);
      expect((JSON.parse(a!.body) as { businesses: unknown[] }).businesses.length, path).toBeGreaterThan(0);
      expect(b!.body, path).toBe(a!.body);
      expect(c!.body, path).toBe(a!.body);
      expect(d!.body, path).toBe(a!.body);
    }
  });
});

/** Transactions of 100; on SQLite's writer thread also transactions of 200 sent in parts of 50. */
const TRANSACTIONS = [
  { shape: 'in transactions of 100', options: { rowsPerTransaction: 100 } },
  { shape: 'in transactions of 200 written in parts of 50', options: { rowsPerTransaction: 200, rowsPerPart: 50 } },
] as const;

type Generated = ReturnType<typeof generateListings> extends Iterable<infer T> ? T : never;

/** A directory on a data folder of its own and 300 listings generated from `seed`; both gone after `use`. */
async function withFreshDirectory(seed: number, use: (directory: Directory, dataDir: string, listings: Generated[]) => Promise<void>): Promise<void> {
  const listings = [...generateListings({ count: 300, seed, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const dataDir = mkdtempSync(join(tmpdir(), 'bulk-store-load-'));
  const directory = await quietDirectory(dataDir, new TestClock(AFTER_RULES_7));
  try {
    await use(directory, dataDir, listings);
  } finally {
    await directory.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The listings up to `count`, then the source's failure. */
function* failingAfter(listings: readonly Generated[], count: number) {
  yield* listings.slice(0, count);
  throw new Error('the import file ends mid-record');
}

/** Every listing stored, in the order given, numbered one revision each from 1. */
async function expectAllStored(dataDir: string, listings: readonly Generated[]): Promise<void> {
  const after = await rawRows('directory', dataDir, 'SELECT domain, revision FROM listings ORDER BY seq');
  expect(after.map((row) => row.domain)).toEqual(listings.map((listing) => listing.domain));
  expect(after.map((row) => Number(row.revision))).toEqual(listings.map((_, i) => i + 1));
  expect(await rawRows('directory', dataDir, 'SELECT seq FROM listing_pages')).toHaveLength(listings.length);
}

describe('a bulk load whose source fails part way', () => {
  it.each(TRANSACTIONS)('$shape: keeps the transactions written before the failure, answers with the source\'s error, and loads again after it', { timeout: 120_000 }, async ({ options }) => {
    await withFreshDirectory(23, async (directory, dataDir, listings) => {
      // The source fails at 250: transactions of 100 have written two; of 200, one, and the second
      // is open with its first part written (on SQLite's writer), which is rolled back.
      await expect(directory.store.listings.load(failingAfter(listings, 250), options)).rejects.toThrow('the import file ends mid-record');
      const stored = await rawRows('directory', dataDir, 'SELECT domain FROM listings ORDER BY seq');
      expect(stored.map((row) => row.domain)).toEqual(listings.slice(0, 200).map((listing) => listing.domain));
      // The store goes on (the connection the load held is let go); the last transaction, short of its size, commits too.
      expect(await directory.store.listings.load(listings, options)).toBe(300);
      await expectAllStored(dataDir, listings);
    });
  });
});

describe('a bulk load with the store\'s own transaction size', () => {
  it('writes a load smaller than one transaction in one, parts and all: a source that fails keeps none of it', { timeout: 120_000 }, async () => {
    await withFreshDirectory(31, async (directory, dataDir, listings) => {
      // Parts of 50 (SQLite's writer thread); the transaction is the store's (10,000 and more): five parts written, none committed.
      await expect(directory.store.listings.load(failingAfter(listings, 250), { rowsPerPart: 50 })).rejects.toThrow('the import file ends mid-record');
      expect(await rawRows('directory', dataDir, 'SELECT domain FROM listings')).toEqual([]);
      expect(await rawRows('directory', dataDir, 'SELECT seq FROM listing_pages')).toEqual([]);
      // Whole, the six parts commit together when the source ends.
      expect(await directory.store.listings.load(listings, { rowsPerPart: 50 })).toBe(300);
      await expectAllStored(dataDir, listings);
    });
  });
});

describe('a bulk load whose transaction fails', () => {
  it.each(TRANSACTIONS)('$shape: rolls that transaction back whole, keeps the ones before it, and answers with the database\'s error', { timeout: 120_000 }, async ({ options }) => {
    await withFreshDirectory(29, async (directory, dataDir, listings) => {
      // A new domain under an id stored already, at 250: the listings' unique id refuses it in the
      // last transaction (on SQLite, the load's writer thread writes it); in transactions of 200,
      // in the second part of that transaction, whose first part goes with it.
      const clash = { ...(listings[250] as Generated), id: (listings[20] as Generated).id };
      const source = [...listings.slice(0, 250), clash, ...listings.slice(251)];
      const refused: unknown = await directory.store.listings.load(source, options).then(
        () => null,
        (error: unknown) => error,
      );
      // SQLite's code comes back from the writer thread; PostgreSQL's is its unique violation.
      expect(refused).toMatchObject(onPostgres ? { code: '23505' } : { name: 'SqliteLoadError', code: 'SQLITE_CONSTRAINT_UNIQUE' });
      const stored = await rawRows('directory', dataDir, 'SELECT domain FROM listings ORDER BY seq');
      expect(stored.map((row) => row.domain)).toEqual(listings.slice(0, 200).map((listing) => listing.domain));
      const pages = await rawRows('directory', dataDir, 'SELECT seq FROM listing_pages');
      expect(pages).toHaveLength(200);
      // The store goes on: the rest loads once the clash is gone, numbered after the kept revisions.
      expect(await directory.store.listings.load(listings, options)).toBe(300);
      await expectAllStored(dataDir, listings);
    });
  });
});

describe('a bulk load whose transaction fails with the next one sent', () => {
  it.each(TRANSACTIONS)('$shape: writes nothing sent after the refused part', { timeout: 120_000 }, async ({ options }) => {
    await withFreshDirectory(41, async (directory, dataDir, listings) => {
      // The clash at 150: in transactions of 100 the second is refused and the first kept; in
      // transactions of 200 the first is refused. On SQLite's writer the parts after it have been
      // sent by then (the load sends parts ahead); none of them is written.
      const clash = { ...(listings[150] as Generated), id: (listings[20] as Generated).id };
      const source = [...listings.slice(0, 150), clash, ...listings.slice(151)];
      await expect(directory.store.listings.load(source, options)).rejects.toMatchObject(onPostgres ? { code: '23505' } : { code: 'SQLITE_CONSTRAINT_UNIQUE' });
      const kept = options.rowsPerTransaction === 100 ? 100 : 0;
      const stored = await rawRows('directory', dataDir, 'SELECT domain FROM listings ORDER BY seq');
      expect(stored.map((row) => row.domain)).toEqual(listings.slice(0, kept).map((listing) => listing.domain));
      expect(await rawRows('directory', dataDir, 'SELECT seq FROM listing_pages')).toHaveLength(kept);
      expect(await directory.store.listings.load(listings, options)).toBe(300);
      await expectAllStored(dataDir, listings);
    });
  });
});

describe('a write of the store during a bulk load', () => {
  it.each(TRANSACTIONS)('$shape: waits for the transaction being written, lands between two of the load\'s, and neither is refused', { timeout: 120_000 }, async ({ options }) => {
    await withFreshDirectory(43, async (directory, dataDir, listings) => {
      const [alone, ...loaded] = listings as [Generated, ...Generated[]];
      let upserted: Promise<unknown> = Promise.resolve();
      function* source() {
        for (const [i, listing] of loaded.entries()) {
          // Asked for once the load has sent its first transaction, or its first part.
          if (i === 260) upserted = directory.store.listings.upsert(alone);
          yield listing;
        }
      }
      expect(await directory.store.listings.load(source(), options)).toBe(299);
      await upserted;
      const rows = await rawRows('directory', dataDir, 'SELECT domain, revision FROM listings ORDER BY revision');
      expect(rows.map((row) => Number(row.revision))).toEqual(rows.map((_, i) => i + 1));
      // Before, between or after the load's transactions (the last one short): never inside one.
      const at = rows.findIndex((row) => row.domain === alone.domain);
      expect(at % options.rowsPerTransaction === 0 || at === loaded.length).toBe(true);
      expect(rows.filter((row) => row.domain !== alone.domain).map((row) => row.domain)).toEqual(loaded.map((listing) => listing.domain));
    });
  });
});
