/**
 * The directory's store with several writers on one database (docs/storage.md "Concurrency"), on
 * the engine of the run: two writers write listings at once while a reader follows changesSince as
 * a running directory does. On PostgreSQL the writers are two stores (two processes' worth of
 * connections); on SQLite, where one process owns the file, one store's callers. Every write gets its own
 * revision, and the reader, never told a revision twice nor a smaller one later, ends having seen
 * every listing at its last write: revisions follow commit order. On PostgreSQL this holds by the
 * listings' lock held to each writer's commit; on SQLite by its one writer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageTarget } from '@svc/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropTestDatabase, onPostgres, testDatabaseUrl } from '../../../test-support/test-database.js';
import { openDirectoryStore, type OpenedDirectoryStore } from '../src/store/kysely/kysely-directory-store.js';
import { listing, MONDAY } from './support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'directory-writers-'));
const stores: OpenedDirectoryStore[] = [];

beforeAll(async () => {
  const target = storageTarget(await testDatabaseUrl('directory', dir), join(dir, 'directory.sqlite'), 'DIRECTORY_DATABASE_URL');
  stores.push(await openDirectoryStore(target));
  stores.push(onPostgres ? await openDirectoryStore(target) : (stores[0] as OpenedDirectoryStore));
});

afterAll(async () => {
  for (const store of new Set(stores)) await store.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase('directory', dir);
});

it('numbers every listing write in commit order while two stores write at once', { timeout: 120_000 }, async () => {
  const [one, two] = stores as [OpenedDirectoryStore, OpenedDirectoryStore];
  const domains = Array.from({ length: 40 }, (_, i) => `writer-${i}.example`);
  let writing = true;
  let seen = 0;
  const latest = new Map<number, number>();
  const reader = (async () => {
    for (;;) {
      const done = !writing;
      const changes = await one.listings.changesSince(seen, 1_000);
      for (const change of changes) {
        expect(change.revision).toBeGreaterThan(seen);
        seen = change.revision;
        latest.set(change.seq, change.revision);
      }
      if (done && changes.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  // Each domain written three times, by either store, in transactions and outside them, pings between.
  await Promise.all(
    [one, two].map(async (store, s) => {
      for (let round = 0; round < 3; round++) {
        for (const [i, domain] of domains.entries()) {
          if (i % 2 !== s && round === 0) continue;
          const written = listing(domain, { name: `Writer ${i} round ${round}` }, MONDAY + round);
          if (round === 1) await store.transaction((tx) => tx.listings.upsert(written));
          else await store.listings.upsert(written);
          if (round === 2) await store.listings.recordPing(domain, MONDAY + 60_000, null);
        }
      }
    }),
  );
  writing = false;
  await reader;

  const rows = await Promise.all(domains.map((domain) => two.listings.byDomain(domain)));
  expect(rows.every((row) => row !== null)).toBe(true);
  // The reader knows every listing, at its last write.
  const top = await one.listings.revision();
  expect(seen).toBe(top);
  const current = await one.listings.changesSince(0, 10_000);
  expect(current).toHaveLength(domains.length);
  for (const change of current) expect(latest.get(change.seq)).toBe(change.revision);
  // Every write had a number of its own: 40 first writes, 80 rewrites, then 80 rewrites and 80 pings.
  expect(new Set(current.map((c) => c.revision)).size).toBe(domains.length);
  expect(top).toBe(domains.length * 7);
});
