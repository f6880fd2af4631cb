/**
 * Freed heap pages handed back (heap-pages.ts, issue 40): V8 13 keeps the pages a full collection
 * frees in a pool that only a memory-reducing collection empties. A node started by main.ts asks for
 * one after its start's work, and never after an hour carried in place (whose change must not pause
 * searches). Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { PREPARE_AHEAD_MS } from '../src/domain/search/search-service.js';
import { heapCollector, releaseFreedHeapPages } from '../src/heap-pages.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const MB = 2 ** 20;
const v8Major = Number(process.versions.v8.split('.')[0]);
const HANDED_BACK = 'heap pages freed by the index work handed back';

describe('freed heap pages', () => {
  it('gives no context a gc it did not ask for', () => {
    const before = typeof (globalThis as { gc?: unknown }).gc;
    expect(typeof heapCollector()).toBe('function');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(before);
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });

  // V8 12 and older (Node 20, 22) free such pages another way; there the call is a plain full collection.
  it.runIf(v8Major >= 13)('hands back the pages a full collection left in V8 13’s pool', () => {
    let held: string[] | null = [];
    // 160 MB of strings in the heap's own pages (64 KB each: below the size V8 gives a page of its own).
    for (let i = 0; i < 2_560; i++) held.push(Buffer.alloc(64 * 1024, String(i % 10)).toString('latin1'));
    expect(held.length).toBe(2_560);
    held = null;
    const collect = heapCollector();
    collect({ type: 'major', execution: 'sync' });
    collect({ type: 'major', execution: 'sync' });
    const kept = process.memoryUsage.rss() / MB;
    const released = releaseFreedHeapPages();
    expect(released.rssBeforeMb).toBeGreaterThanOrEqual(Math.floor(kept) - 1);
    // The strings' pages were kept by the plain collections and handed back now.
    expect(kept - released.rssAfterMb).toBeGreaterThan(100);
    expect(released.ms).toBeGreaterThanOrEqual(0);
  });

  describe('a node that hands them back', () => {
    const clock = new TestClock(AFTER_RULES_7);
    const listings = [...generateListings({ count: 200, seed: 41, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
    const dataDir = mkdtempSync(join(tmpdir(), 'heap-pages-'));
    const open: Directory[] = [];
    const lines: Record<string, unknown>[] = [];
    const logStream = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
    const handedBack = () => lines.filter((line) => line.msg === HANDED_BACK);

    afterAll(async () => {
      for (const directory of open) await directory.close();
      await dropTestDatabase('directory', dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function search(directory: Directory): Promise<void> {
      const response = await directory.http.inject({ method: 'GET', url: '/v1/businesses?limit=20' });
      expect(response.statusCode, response.body).toBe(200);
    }

    it('does so once its start is done, and not at an hour carried in place', { timeout: 60_000 }, async () => {
      const directory = await quietDirectory(dataDir, clock, { releaseHeapPages: true, logLevel: 'info', logStream });
      open.push(directory);
      await directory.store.listings.load(listings);
      expect(handedBack()).toHaveLength(0);
      await search(directory);
      await directory.search.settled();
      expect(handedBack()).toHaveLength(1);
      const heap = handedBack()[0]!.heap as { ms: number; rssBeforeMb: number; rssAfterMb: number };
      expect(heap.ms).toBeGreaterThanOrEqual(0);
      expect(heap.rssBeforeMb).toBeGreaterThan(0);
      expect(heap.rssAfterMb).toBeGreaterThan(0);

      // The next hour prepared in this hour's last minutes, and carried in place at the change.
      const hourStart = directory.search.peek()!.hourStart;
      clock.advance(hourStart + HOUR - PREPARE_AHEAD_MS + 60_000 - clock.now());
      await search(directory);
      await directory.search.prepareNextHour();
      clock.advance(hourStart + HOUR + 60_000 - clock.now());
      await search(directory);
      await directory.search.settled();
      expect(directory.search.peek()!.preparedAhead).toBe(true);
      expect(handedBack()).toHaveLength(1);
    });

    it('a node left at the default hands nothing back', async () => {
      lines.length = 0;
      const directory = await quietDirectory(dataDir, clock, { logLevel: 'info', logStream });
      open.push(directory);
      await search(directory);
      await directory.search.settled();
      expect(lines.length).toBeGreaterThan(0);
      expect(handedBack()).toHaveLength(0);
    });
  });
});
