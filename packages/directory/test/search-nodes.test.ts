/**
 * Several search nodes on one PostgreSQL database (issue 17, docs/directory.md "Search nodes"): two
 * directories built on one database, each with its own search index in memory, answer every search
 * with the same bytes: the hour's order is the one stored first (whichever node prepared it), every
 * write through either node is read by the other before its next search (the change feed), and a
 * cursor one node gave continues on the other. Runs on the PostgreSQL test run only: on SQLite one
 * process owns the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, testDatabaseUrl } from '../../../test-support/test-database.js';
import { buildDirectory, type Directory } from '../src/app.js';
import { startDirectoryFromEnvironment } from '../src/main.js';
import { AFTER_RULES_7, EVERY_DAY, HOUR, hours, listing, member } from './support/fixtures.js';
import { HARNESS_BASE_URL, TestClock } from './support/harness.js';

const CATEGORIES = ['cafe', 'bakery', 'hair-beauty', 'restaurant'];
const CITIES = ['Lisboa', 'Porto', 'Braga'];

function fixture(i: number) {
  const domain = `shop-${String(i).padStart(3, '0')}.example`;
  const fields = {
    name: `Shop ${i} ${CATEGORIES[i % 4]} ${CITIES[i % 3]}`,
    categories: [CATEGORIES[i % 4] as string],
    city: CITIES[i % 3] as string,
    country: 'PT',
    geo: { lat: 38.7 + (i % 17) * 0.01, lng: -9.1 - (i % 13) * 0.01 },
    hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['08:00', '20:00']] }),
  };
  return i % 5 === 0 ? member(domain, fields, AFTER_RULES_7) : listing(domain, fields, AFTER_RULES_7);
}

const SEARCHES = [
  '/v1/businesses',
  '/v1/businesses?limit=7',
  '/v1/businesses?q=bakery',
  '/v1/businesses?category=cafe&limit=50',
  '/v1/businesses?q=porto&open_now=true',
  '/v1/businesses?near=38.72,-9.14&order=nearest&limit=25',
  '/v1/businesses?source=member',
];

describe.skipIf(!onPostgres)('two search nodes on one PostgreSQL database', () => {
  // Ranking rules 7 (order=nearest) are in force.
  const clock = new TestClock(AFTER_RULES_7);
  const folders: string[] = [];
  const nodes: { directory: Directory; get: (path: string) => Promise<{ status: number; text: string }> }[] = [];
  let databaseKey = '';

  async function startNode(): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'search-node-'));
    folders.push(dataDir);
    const directory = await buildDirectory({
      dataDir,
      databaseUrl: await testDatabaseUrl('directory', databaseKey),
      baseUrl: HARNESS_BASE_URL,
      clock,
      logLevel: 'silent',
      runJobs: false,
      hourlyTimer: false,
      cacheAnswers: false,
      answerWorkers: 0,
    });
    const address = await directory.http.listen({ host: '127.0.0.1', port: 0 });
    nodes.push({
      directory,
      get: async (path) => {
        const response = await fetch(`${address}${path}`);
        return { status: response.status, text: await response.text() };
      },
    });
  }

  async function expectSameAnswers(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const [a, b] = await Promise.all(nodes.map((node) => node.get(path)));
      expect(a!.status, `${path}: ${a!.text}`).toBe(200);
      expect(b!.text, path).toBe(a!.text);
    }
  }

  beforeAll(async () => {
    databaseKey = mkdtempSync(join(tmpdir(), 'search-nodes-db-'));
    folders.push(databaseKey);
    await startNode();
    await nodes[0]!.directory.store.transaction((tx) => tx.listings.insertMany(Array.from({ length: 240 }, (_, i) => fixture(i))));
    await startNode();
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) await node.directory.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await dropTestDatabase('directory', databaseKey);
  });

  it('answers every search with the same bytes, whichever node is asked first', { timeout: 120_000 }, async () => {
    // The second node asks first this hour: the order it stores is the one both serve.
    expect((await nodes[1]!.get('/v1/businesses?limit=1')).status).toBe(200);
    await expectSameAnswers(SEARCHES);
  });

  it('continues on one node a cursor the other gave', { timeout: 120_000 }, async () => {
    let cursor: string | null = null;
    const seen: string[] = [];
    for (let page = 0; page < 6; page++) {
      const node = nodes[page % 2]!;
      const other = nodes[(page + 1) % 2]!;
      const path = `/v1/businesses?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const [here, there] = [await node.get(path), await other.get(path)];
      expect(there.text).toBe(here.text);
      const body = JSON.parse(here.text) as { businesses: { domain: string }[]; next_cursor: string | null };
      seen.push(...body.businesses.map((b) => b.domain));
      cursor = body.next_cursor;
      if (cursor === null) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(120);
  });

  it('shows a write made through either node on both at their next search', { timeout: 120_000 }, async () => {
    await nodes[0]!.directory.store.listings.upsert(fixture(1000));
    await nodes[1]!.directory.store.listings.upsert({ ...fixture(7), name: 'Renamed bakery on the other node' });
    const [a, b] = await Promise.all(nodes.map((node) => node.get('/v1/businesses?q=renamed')));
    expect(JSON.parse(a!.text).businesses.map((x: { domain: string }) => x.domain)).toEqual(['shop-007.example']);
    expect(b!.text).toBe(a!.text);
    expect(JSON.parse((await nodes[1]!.get('/v1/businesses?q=shop%201000')).text).businesses.map((x: { domain: string }) => x.domain)).toContain('shop-1000.example');
    await expectSameAnswers(SEARCHES);
  });

  it('moves to the next hour together: one order stored, both serving it', { timeout: 180_000 }, async () => {
    clock.advance(HOUR);
    // Both prepare the new hour at once; the first order stored stands.
    await Promise.all(nodes.map((node) => node.get('/v1/businesses?limit=1')));
    await expectSameAnswers(SEARCHES);
  });
});

describe.skipIf(!onPostgres)('two search nodes on one PostgreSQL database, their answer caches on (as in production)', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const folders: string[] = [];
  const nodes: { directory: Directory; get: (path: string) => Promise<{ status: number; text: string }> }[] = [];
  let databaseKey = '';

  async function startNode(): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'cached-node-'));
    folders.push(dataDir);
    const directory = await buildDirectory({
      dataDir,
      databaseUrl: await testDatabaseUrl('directory', databaseKey),
      baseUrl: HARNESS_BASE_URL,
      clock,
      logLevel: 'silent',
      runJobs: false,
      hourlyTimer: false,
      cacheAnswers: true,
      answerWorkers: 0,
    });
    const address = await directory.http.listen({ host: '127.0.0.1', port: 0 });
    nodes.push({
      directory,
      get: async (path) => {
        const response = await fetch(`${address}${path}`);
        return { status: response.status, text: await response.text() };
      },
    });
  }

  beforeAll(async () => {
    databaseKey = mkdtempSync(join(tmpdir(), 'cached-nodes-db-'));
    folders.push(databaseKey);
    await startNode();
    await nodes[0]!.directory.store.transaction((tx) => tx.listings.insertMany(Array.from({ length: 60 }, (_, i) => fixture(i))));
    await startNode();
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) await node.directory.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await dropTestDatabase('directory', databaseKey);
  });

  /** Asks a node until its answer names `name` (at most `withinMs`); how long that took, or null. */
  async function shownWithin(node: (typeof nodes)[number], path: string, name: string, withinMs: number): Promise<number | null> {
    const started = performance.now();
    for (;;) {
      const elapsed = performance.now() - started;
      if ((await node.get(path)).text.includes(name)) return elapsed;
      if (elapsed > withinMs) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('shows a change made through one node there at once and on the other within about a second, long before the cache would let it go', { timeout: 60_000 }, async () => {
    const path = '/v1/businesses?q=bakery&limit=50';
    const [a, b] = await Promise.all(nodes.map((node) => node.get(path)));
    expect(b!.text).toBe(a!.text);
    // Both now hold the answer in their caches (three minutes by the clock, which does not move here).
    expect((await nodes[1]!.get(path)).text).toBe(a!.text);
    const { seq: _seq, ...shop } = (await nodes[0]!.directory.store.listings.byDomain('shop-005.example'))!;
    expect(a!.text).toContain(shop.name);
    await nodes[0]!.directory.store.listings.upsert({ ...shop, name: 'Shop 5 bakery renamed by its owner', updatedAt: clock.now() });

    // The node that wrote reads its own write before its next cached answer; the other within about a second.
    expect((await nodes[0]!.get(path)).text).toContain('Shop 5 bakery renamed by its owner');
    const onOther = await shownWithin(nodes[1]!, path, 'Shop 5 bakery renamed by its owner', 3_000);
    expect(onOther, 'the other node still served its cached answer').not.toBeNull();
    expect(onOther!).toBeLessThan(2_500);
    const [a2, b2] = await Promise.all(nodes.map((node) => node.get(path)));
    expect(b2!.text).toBe(a2!.text);
    expect(a2!.text).not.toContain(`"name":"${shop.name}"`);
  });

  it('keeps serving a cached answer after a ping: pings change no answer the contract does not let lag', { timeout: 60_000 }, async () => {
    const path = '/v1/businesses?source=member&limit=50';
    const first = (await nodes[1]!.get(path)).text;
    await nodes[0]!.directory.store.listings.recordPing('shop-010.example', clock.now() + 1_000, null);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await nodes[1]!.get(path)).text).toBe(first);
  });
});

describe('a node on a shared database names the directory it is part of', () => {
  it('refuses to start on PostgreSQL without DIRECTORY_PUBLIC_URL, saying why and what to set, before it opens the database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'node-without-url-'));
    try {
      // Nothing listens on port 1: a start that opened the database would fail otherwise.
      const start = startDirectoryFromEnvironment({ DATA_DIR: dataDir, DIRECTORY_PORT: '0', DIRECTORY_SEED_DEMO: 'false', DIRECTORY_DATABASE_URL: 'postgres://directory@127.0.0.1:1/directory' });
      await expect(start).rejects.toThrow(/DIRECTORY_DATABASE_URL is set but DIRECTORY_PUBLIC_URL is not\..*set DIRECTORY_PUBLIC_URL to its public address .* on every node/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!onPostgres)('starts with it, and every link it writes names that address rather than its own port', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'node-with-url-'));
    const databaseUrl = (await testDatabaseUrl('directory', dataDir)) as string;
    const { directory } = await startDirectoryFromEnvironment({ DATA_DIR: dataDir, DIRECTORY_PORT: '0', DIRECTORY_SEED_DEMO: 'false', DIRECTORY_CHECKS: 'off', LOG_LEVEL: 'silent', DIRECTORY_DATABASE_URL: databaseUrl, DIRECTORY_PUBLIC_URL: 'https://directory.example' });
    try {
      await directory.store.transaction((tx) => tx.listings.insertMany([fixture(1)]));
      const about = await directory.http.inject({ method: 'GET', url: '/about/found/shop-001.example.json' });
      expect(about.json().about_url).toBe('https://directory.example/about/found/shop-001.example');
    } finally {
      await directory.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropTestDatabase('directory', dataDir);
    }
  });
});
