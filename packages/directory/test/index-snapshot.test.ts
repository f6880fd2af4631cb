/**
 * A node starts from a snapshot of the index (issue 40, docs/directory.md "A node ready in
 * seconds"): the node that built its index writes it to the database, a node started later reads
 * it, follows the change feed from the snapshot's revision, and answers every search with the bytes
 * of a node that built its index from the database. A damaged, cut short or older-format snapshot is
 * refused (the node builds from the database); one laid out in another hour's order is given the
 * hour's stored order before it is served. Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { decodeSnapshot } from '../src/domain/search/index-snapshot.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const SEARCHES = [
  '/v1/businesses?limit=100',
  '/v1/businesses?q=coffee&limit=50',
  '/v1/businesses?q=renamed&limit=50',
  '/v1/businesses?category=restaurant&limit=50',
  '/v1/businesses?open_now=true&limit=50',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=1000&limit=50',
  '/v1/businesses?near=40.7128,-74.0060&radius_km=1000&order=nearest&limit=50',
  '/v1/businesses?source=member&limit=100',
];
/** Paged: the first page, then each next_cursor in turn. */
const PAGED = '/v1/businesses?limit=9';

describe('a node starts from a snapshot of the index', () => {
  const clock = new TestClock(AFTER_RULES_7);
  const listings = [...generateListings({ count: 440, seed: 31, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
  const dataDir = mkdtempSync(join(tmpdir(), 'index-snapshot-'));
  const open: Directory[] = [];

  async function start(indexSnapshots = true): Promise<Directory> {
    const directory = await quietDirectory(dataDir, clock, { indexSnapshots });
    open.push(directory);
    return directory;
  }

  async function close(directory: Directory): Promise<void> {
    await directory.search.snapshotWritten;
    await directory.close();
    open.splice(open.indexOf(directory), 1);
  }

  async function get(directory: Directory, path: string): Promise<string> {
    const response = await directory.http.inject({ method: 'GET', url: path });
    expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
    return response.body;
  }

  /** Every search's bytes, five pages of a paged one, and the stats' directory block. */
  async function answers(directory: Directory): Promise<string[]> {
    const out: string[] = [];
    for (const path of SEARCHES) out.push(await get(directory, path));
    let page = await get(directory, PAGED);
    out.push(page);
    for (let i = 0; i < 5; i++) {
      const cursor = (JSON.parse(page) as { next_cursor: string | null }).next_cursor;
      expect(cursor).not.toBeNull();
      page = await get(directory, `${PAGED}&cursor=${encodeURIComponent(cursor as string)}`);
      out.push(page);
    }
    out.push(JSON.stringify((JSON.parse(await get(directory, '/v1/stats')) as { directory: unknown }).directory));
    return out;
  }

  function expectSame(actual: string[], expected: string[]): void {
    expect(actual.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) expect(actual[i], SEARCHES[i] ?? `${PAGED} page ${i - SEARCHES.length + 1} / stats`).toBe(expected[i]);
  }

  afterAll(async () => {
    for (const directory of open) await directory.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers from the snapshot and the writes since as a node built from the database, byte for byte; refuses a bad one; re-lays a stale one', { timeout: 180_000 }, async () => {
    const first = await start();
    await first.store.listings.load(listings.slice(0, 400));
    await answers(first);
    expect(first.search.origin).toMatchObject({ from: 'database', refused: 'index snapshot not used: none kept' });
    await first.search.snapshotWritten;
    const written = await first.store.indexSnapshots.latest();
    const info = (await decodeSnapshot(written!.bytes)).info;
    expect(info.builtRevision).toBe(first.search.peek()?.index.builtRevision);
    expect(info.hourStart).toBe(first.search.peek()?.hourStart);

    // Written after the snapshot: renamed, new hours, delisted, new listings, a ping.
    clock.advance(10 * 60_000);
    const now = clock.now();
    for (const listing of listings.slice(0, 10)) await first.store.listings.upsert({ ...listing, name: `${listing.name} Renamed`, updatedAt: now });
    for (const listing of listings.slice(10, 14)) await first.store.listings.upsert({ ...listing, hours: null, updatedAt: now });
    for (const listing of listings.slice(14, 18)) await first.store.listings.upsert({ ...listing, delistedAt: now, updatedAt: now });
    for (const listing of listings.slice(400)) await first.store.listings.upsert({ ...listing, updatedAt: now });
    const pinged = listings.slice(0, 400).find((l) => l.source === 'member');
    if (pinged) await first.store.listings.recordPing(pinged.domain, now, pinged.software);
    await close(first);

    const fromSnapshot = await start();
    const started = await answers(fromSnapshot);
    expect(fromSnapshot.search.origin).toMatchObject({ from: 'snapshot', refused: null });
    expect(fromSnapshot.search.peek()?.index.changedCount).toBe(58);
    expect(started.find((body) => body.includes('Renamed'))).toBeDefined();
    await close(fromSnapshot);

    const fromDatabase = await start(false);
    const built = await answers(fromDatabase);
    expect(fromDatabase.search.origin?.from).toBe('database');
    expectSame(started, built);
    await close(fromDatabase);

    // Damaged, cut short, of an older format: refused, and the node builds from the database.
    const good = written!.bytes;
    const damaged = Buffer.from(good);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x40;
    const older = Buffer.from(good);
    older.writeUInt32LE(0, 8);
    const bad: [Buffer, RegExp][] = [
      [damaged, /digest disagrees/],
      [good.subarray(0, good.length - 4096), /digest disagrees/],
      [older, /format 0/],
    ];
    let at = clock.now();
    for (const [bytes, why] of bad) {
      at += 1_000;
      // Put before the node's first search, which prepares its hour.
      const refusing = await start();
      await refusing.store.indexSnapshots.put({ builtRevision: info.builtRevision, hourStart: info.hourStart, writtenAt: at }, chunksOf(bytes), 2);
      expectSame(await answers(refusing), built);
      expect(refusing.search.origin?.from).toBe('database');
      expect(refusing.search.origin?.refused).toMatch(why);
      // Its own build replaces the bad one for the next node.
      await close(refusing);
    }

    // The next hour: a snapshot laid out in the hour before's order is given this hour's stored order.
    clock.advance(HOUR);
    const stale = await start();
    await stale.store.indexSnapshots.put({ builtRevision: info.builtRevision, hourStart: info.hourStart, writtenAt: clock.now() - 1 }, chunksOf(good), 2);
    const relaid = await answers(stale);
    expect(stale.search.origin).toMatchObject({ from: 'snapshot re-laid', refused: null });
    const stored = await stale.store.orders.get(stale.search.peek()!.hourStart);
    expect(stored?.order.length).toBeGreaterThan(0);
    await stale.search.snapshotWritten;
    const kept = await stale.store.indexSnapshots.latest();
    await close(stale);
    const fresh = await start(false);
    expectSame(relaid, await answers(fresh));
    await close(fresh);

    // An index re-laid from a snapshot holds what the kept snapshot holds: none is written. The next
    // node re-lays the kept one too; the hour's change in place (this node storing the order) writes
    // none either, and a node started after it re-lays the kept one in that hour's order.
    const next = await start();
    expectSame(await answers(next), relaid);
    expect(next.search.origin).toMatchObject({ from: 'snapshot re-laid', refused: null });
    clock.advance(HOUR);
    const carried = await answers(next);
    expect(next.search.origin?.from).toBe('in place');
    await next.search.snapshotWritten;
    const newest = await next.store.indexSnapshots.latest();
    expect(newest?.writtenAt).toBe(kept?.writtenAt);
    expect((await decodeSnapshot(newest!.bytes)).info).toMatchObject({ hourStart: info.hourStart, builtRevision: info.builtRevision });
    const later = await start();
    expectSame(await answers(later), carried);
    expect(later.search.origin).toMatchObject({ from: 'snapshot re-laid', refused: null });
    const rebuilt = await start(false);
    expectSame(await answers(rebuilt), carried);
    await close(rebuilt);
    await close(later);
    await close(next);
  });
});

async function* chunksOf(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += 1 << 16) yield bytes.subarray(at, at + (1 << 16));
}
