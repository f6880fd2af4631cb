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
import { listing, MONDAY, queuedCheckRecord } from './support/fixtures.js';

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

const queued = queuedCheckRecord;

it('hands each queued check to one crawler, and numbers every check write once, with two stores claiming and writing at once', { timeout: 120_000 }, async () => {
  const [one, two] = stores as [OpenedDirectoryStore, OpenedDirectoryStore];
  const domains = Array.from({ length: 30 }, (_, i) => `queued-${String(i).padStart(2, '0')}.example`);
  const before = await one.checks.revision();
  // Both stores queue at once: 30 writes.
  await Promise.all([one, two].map((store, s) => Promise.all(domains.filter((_, i) => i % 2 === s).map((domain, i) => store.checks.put(queued(domain, MONDAY + i))))));
  expect(await one.checks.revision()).toBe(before + domains.length);
  // Both claim in small bites at once until the queue is empty: each check once.
  const claimed: string[] = [];
  await Promise.all(
    [one, two, one, two].map(async (store) => {
      for (;;) {
        const got = await store.checks.claim(MONDAY + 1_000, MONDAY + 600_000, 3);
        if (got.length === 0) return;
        claimed.push(...got.map((c) => c.domain));
      }
    }),
  );
  expect(claimed.sort()).toEqual(domains);
  // Every claim wrote each check once more, each write under a number of its own.
  expect(await one.checks.revision()).toBe(before + 2 * domains.length);
  for (const domain of domains) expect((await two.checks.get(domain))?.attempts).toBe(1);
});

it('never lets racing takers pass the day\'s budget or a caller\'s hour together', { timeout: 60_000 }, async () => {
  const [one, two] = stores as [OpenedDirectoryStore, OpenedDirectoryStore];
  const budget = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).checks.takeBudget('2026-11-30', 7)));
  expect(budget.filter(Boolean)).toHaveLength(7);
  expect(await one.checks.budgetUsed('2026-11-30')).toBe(7);
  const caller = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).checks.takeCallerRequest('caller-a', MONDAY, 5)));
  expect(caller.filter(Boolean)).toHaveLength(5);
  expect(await one.checks.takeBudget('2026-12-01', 0)).toBe(false);
  expect(await one.checks.budgetUsed('2026-12-01')).toBe(0);
});

it('makes one person of one address and counts one outcome once, however many ask at once', { timeout: 60_000 }, async () => {
  const [one, two] = stores as [OpenedDirectoryStore, OpenedDirectoryStore];
  // As issuePerson does: look the address up, else make the person, in one transaction.
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? one : two).transaction(async (tx) => {
        const known = await tx.persons.byEmailMac('mac-of-ana');
        if (known) return known.id;
        await tx.persons.insert({ id: `person-${i}`, emailMac: 'mac-of-ana', createdAt: MONDAY, emailProvenAt: null, kept: 0, broken: 0 });
        return `person-${i}`;
      }),
    ),
  );
  expect(new Set(made).size).toBe(1);
  const personId = made[0] as string;
  const counted = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? one : two).transaction((tx) => tx.persons.addOutcome({ presentationId: 'presentation-1', receiptId: 'receipt-1', personId, side: 'kept', createdAt: MONDAY })),
    ),
  );
  expect(counted.filter(Boolean)).toHaveLength(1);
  expect((await one.persons.get(personId))?.kept).toBe(1);
});

it('never issues an instance more persons a day than its limit, however many ask at once', { timeout: 60_000 }, async () => {
  const [one, two] = stores as [OpenedDirectoryStore, OpenedDirectoryStore];
  // As issuePerson does: count the instance's issuances of the last day, refuse at the limit, else issue, in one transaction.
  const answers = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      (i % 2 ? one : two).transaction(async (tx) => {
        if ((await tx.persons.issuancesSince('inbox.example', MONDAY - 86_400_000)) >= 5) return 'rate_limited';
        await tx.persons.addIssuance({ id: `issuance-${i}`, instance: 'inbox.example', personId: `p-${i}`, createdAt: MONDAY });
        return 'issued';
      }),
    ),
  );
  expect(answers.filter((a) => a === 'issued')).toHaveLength(5);
  expect(await one.persons.issuancesSince('inbox.example', MONDAY - 86_400_000)).toBe(5);
});
