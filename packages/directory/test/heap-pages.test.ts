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
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { PREPARE_AHEAD_MS } from '../src/domain/search/search-service.js';
import { BUSY_AFTER_MS, BUSY_SEARCHES, CollectionOnceBusy, CollectionWhenIdle, NODE_IDLE_MS, heapCollector, releaseFreedHeapPages } from '../src/heap-pages.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const MB = 2 ** 20;
const v8Major = Number(process.versions.v8.split('.')[0]);
const COLLECTED_ONCE_BUSY = 'heap collected once searches flowed after the index work, so its next limit follows their pace';
const HANDED_BACK = 'heap pages freed by the index work handed back';
const PAUSED = 'heap pages handed back once searches paused';

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

    it('collects once when searches flow after its start\'s work, not before, and once only', { timeout: 60_000 }, async () => {
      const collectedOnceBusy = () => lines.filter((line) => line.msg === COLLECTED_ONCE_BUSY);
      // The first test's node was armed by its start and has not met a busy spell: a few searches, one at a time with pauses, are not one.
      const directory = open[0]!;
      for (let i = 0; i < 5; i++) {
        await search(directory);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(collectedOnceBusy()).toHaveLength(0);
      const started = performance.now();
      let searches = 0;
      while (collectedOnceBusy().length === 0 && performance.now() - started < 20_000) {
        await search(directory);
        searches++;
      }
      expect(collectedOnceBusy()).toHaveLength(1);
      expect(searches).toBeGreaterThan(BUSY_SEARCHES / 2);
      // Its window may have begun with the searches above.
      const busy = collectedOnceBusy()[0]!.busy as { searches: number; ms: number };
      expect(busy.searches).toBeGreaterThanOrEqual(BUSY_SEARCHES);
      expect(busy.ms).toBeGreaterThanOrEqual(BUSY_AFTER_MS);
      for (let i = 0; i < 300; i++) await search(directory);
      expect(collectedOnceBusy()).toHaveLength(1);
    });

    it('hands its heap back once searches pause after a busy spell, and not after a trickle', { timeout: 60_000 }, async () => {
      // The node above has answered hundreds of searches: a pause gets its collections.
      const directory = open[0]!;
      const paused = () => lines.filter((line) => line.msg === PAUSED);
      expect(paused()).toHaveLength(0);
      await new Promise((resolve) => setTimeout(resolve, NODE_IDLE_MS + 1_500));
      expect(paused()).toHaveLength(1);
      const heap = paused()[0]!.heap as { ms: number; rssBeforeMb: number; rssAfterMb: number };
      expect(heap.ms).toBeGreaterThanOrEqual(0);
      expect(heap.rssAfterMb).toBeGreaterThan(0);
      // A few searches and another pause: too little work for another.
      for (let i = 0; i < 10; i++) await search(directory);
      await new Promise((resolve) => setTimeout(resolve, NODE_IDLE_MS + 1_500));
      expect(paused()).toHaveLength(1);
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

  describe('the collection once a node is busy', () => {
    function busyWatch() {
      let now = 0;
      let collected = 0;
      const watch = new CollectionOnceBusy({ now: () => now, collect: () => void collected++ });
      /** `count` searches, one every `everyMs`. */
      const searches = (count: number, everyMs: number) => {
        for (let i = 0; i < count; i++) {
          now += everyMs;
          watch.noteSearch();
        }
      };
      return { watch, searches, collected: () => collected, wait: (ms: number) => void (now += ms) };
    }

    it('waits for its arming: searches before heavy work is done change nothing', () => {
      const { searches, collected } = busyWatch();
      searches(5_000, 1);
      expect(collected()).toBe(0);
    });

    it('collects once searches have flowed fast enough for long enough, then never again until armed anew', () => {
      const { watch, searches, collected, wait } = busyWatch();
      watch.arm();
      // 200 searches in a second: fast enough, not yet long enough.
      searches(BUSY_SEARCHES, 5);
      expect(collected()).toBe(0);
      searches(120, 5);
      expect(collected()).toBe(1);
      searches(5_000, 1);
      expect(collected()).toBe(1);
      wait(60_000);
      watch.arm();
      searches(400, 4);
      expect(collected()).toBe(2);
    });

    it('leaves a trickle of searches alone, however long it lasts', () => {
      const { watch, searches, collected } = busyWatch();
      watch.arm();
      // 50 a second for a minute: never 200 within two seconds.
      searches(3_000, 20);
      expect(collected()).toBe(0);
      // Then a burst.
      searches(400, 4);
      expect(collected()).toBe(1);
    });
  });

  describe('the collection once a thread falls idle', () => {
    let now = 0;
    beforeEach(() => {
      vi.useFakeTimers();
      now = 0;
    });
    afterEach(() => vi.useRealTimers());

    function idleWatch(minWork: number) {
      let collected = 0;
      const watch = new CollectionWhenIdle({ idleMs: 2_000, minWork, now: () => now, collect: () => void collected++ });
      const wait = (ms: number) => {
        now += ms;
        vi.advanceTimersByTime(ms);
      };
      /** `count` units of work, one every `everyMs`. */
      const work = (count: number, everyMs: number) => {
        for (let i = 0; i < count; i++) {
          wait(everyMs);
          watch.noteWork();
        }
      };
      return { watch, work, wait, collected: () => collected };
    }

    it('collects once no work has come for its idle time after enough work, then counts anew', () => {
      const { work, wait, collected } = idleWatch(100);
      work(150, 5);
      wait(1_999);
      expect(collected()).toBe(0);
      wait(2);
      expect(collected()).toBe(1);
      wait(60_000);
      expect(collected()).toBe(1);
      // Less than `minWork` since: a pause gets nothing; the rest of it later does.
      work(60, 5);
      wait(10_000);
      expect(collected()).toBe(1);
      work(40, 5);
      wait(2_001);
      expect(collected()).toBe(2);
    });

    it('never collects while the work flows, however long, with gaps shorter than its idle time', () => {
      const { work, wait, collected } = idleWatch(10);
      work(1_000, 1_900);
      expect(collected()).toBe(0);
      wait(2_000);
      expect(collected()).toBe(1);
    });

    it('stops a collection that is waiting', () => {
      const { watch, work, wait, collected } = idleWatch(1);
      work(5, 5);
      watch.stop();
      wait(10_000);
      expect(collected()).toBe(0);
    });
  });
});
