/**
 * The listings' and checks' revisions are kept in memory between writes (store/kysely/kept-revision.ts):
 * a write through the store, a write through another connection to the same file (another process,
 * the operator's suppress-site command) and a rolled-back write are all seen by the next read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDirectoryStore, type OpenedDirectoryStore } from '../src/store/kysely/kysely-directory-store.js';
import { listing, MONDAY, queuedCheckRecord } from './support/fixtures.js';

const queued = (domain: string) => queuedCheckRecord(domain, MONDAY);

describe('kept revisions', () => {
  const open: OpenedDirectoryStore[] = [];
  let dir = '';
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('change with every write, this connection’s, another’s, or one rolled back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kept-revision-'));
    const file = join(dir, 'directory.db');
    const store = await openDirectoryStore(file);
    open.push(store);
    const other = await openDirectoryStore(file);
    open.push(other);

    const listings0 = await store.listings.revision();
    const checks0 = await store.checks.revision();
    expect(await store.listings.revision()).toBe(listings0);

    await store.listings.upsert(listing('one.example'));
    const listings1 = await store.listings.revision();
    expect(listings1).toBeGreaterThan(listings0);
    expect(await store.checks.revision()).toBe(checks0);

    // Another connection's commit.
    await other.listings.upsert(listing('two.example'));
    await other.checks.put(queued('two.example'));
    expect(await store.listings.revision()).toBeGreaterThan(listings1);
    const checks1 = await store.checks.revision();
    expect(checks1).toBeGreaterThan(checks0);
    expect(await store.checks.revision()).toBe(checks1);

    // A write inside a transaction is seen inside it, and after its rollback the revision read is the table's again.
    await expect(
      store.transaction(async (trx) => {
        await trx.checks.put(queued('three.example'));
        expect(await trx.checks.revision()).toBeGreaterThan(checks1);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await store.checks.revision()).toBe(checks1);
    await store.checks.put(queued('three.example'));
    expect(await store.checks.revision()).toBeGreaterThan(checks1);
  });
});
