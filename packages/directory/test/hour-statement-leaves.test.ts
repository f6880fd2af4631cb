/**
 * The hour's statement of an order larger than one read of the listings' keys (the statement reads
 * them in storage order, a range at a time, and hashes each leaf at its place), with delisted
 * listings among them: the leaves the leaves route gives (written again from the stored order and a
 * lookup of each listing, another path) are one per place, in the order's places, and the
 * statement's root is the root RFC 9162 §2.1.1 defines over them (computed here from the RFC, not
 * with the directory's Merkle code). Made on the node's thread and on a worker that reads the keys
 * itself. Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestDatabase } from '../../../test-support/test-database.js';
import type { Directory } from '../src/app.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AFTER_RULES_7, HOUR } from './support/fixtures.js';
import { TestClock, quietDirectory } from './support/harness.js';

const sha256 = (...parts: (Buffer | string)[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** MTH(D[n]) as RFC 9162 §2.1.1 writes it, over the leaves' hashes. */
function rfcRoot(leafHashes: readonly Buffer[]): Buffer {
  if (leafHashes.length === 1) return leafHashes[0] as Buffer;
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return sha256(Buffer.from([1]), rfcRoot(leafHashes.slice(0, k)), rfcRoot(leafHashes.slice(k)));
}

describe.each([
  ["on the node's thread", {}],
  // A worker from the first place, which reads the listings' keys on a connection of its own.
  ['on a worker reading the keys itself', { orderTreeWorkerFrom: 1 }],
])("the hour's statement of a large order, made %s", (_where, options) => {
  const clock = new TestClock(AFTER_RULES_7);
  const dataDir = mkdtempSync(join(tmpdir(), 'statement-leaves-'));
  let directory: Directory | undefined;

  afterAll(async () => {
    await directory?.close();
    await dropTestDatabase('directory', dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hashes one leaf per place, at its place, whatever order the listings are stored in', { timeout: 120_000 }, async () => {
    const listings = [...generateListings({ count: 5_000, seed: 41, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
    directory = await quietDirectory(dataDir, clock, { indexSnapshots: false, ...options });
    await directory.store.listings.load(listings);
    // Every 13th delisted: rows the statement's reads find and leave out of the order.
    const delisted = new Set<string>();
    for (const listing of listings.filter((_, i) => i % 13 === 5)) {
      await directory.store.listings.upsert({ ...listing, delistedAt: clock.now(), updatedAt: clock.now() });
      delisted.add(listing.domain);
    }
    clock.advance(HOUR);
    const first = await directory.http.inject({ method: 'GET', url: '/v1/businesses?limit=100' });
    expect(first.statusCode).toBe(200);
    const page = (first.json() as { businesses: { id: string; domain: string; rank_pos: number }[] }).businesses;

    const hour = new Date(Math.floor(clock.now() / HOUR) * HOUR).toISOString().slice(0, 13);
    const statement = await directory.http.inject({ method: 'GET', url: `/v1/orders/${hour}` });
    expect(statement.statusCode, statement.body).toBe(200);
    const order = (statement.json() as { order: { size: number; root: string } }).order;
    // More places than two reads of keys (2,048 each); dormant listings are left out of the order too.
    expect(order.size).toBeGreaterThan(4_096);

    const leaves: string[] = [];
    for (let start = 0; start < order.size; start += 2_000) {
      const r = await directory.http.inject({ method: 'GET', url: `/v1/orders/${hour}/leaves?start=${start}&count=2000` });
      expect(r.statusCode, r.body).toBe(200);
      leaves.push(...(r.json() as { leaves: string[] }).leaves);
    }
    expect(leaves).toHaveLength(order.size);
    leaves.forEach((leaf, i) => expect(leaf.startsWith(`svc-order/1 pos=${i + 1} `), leaf).toBe(true));
    const domains = new Set(leaves.map((leaf) => /domain=(\S+)/.exec(leaf)?.[1]));
    expect(domains.size).toBe(order.size);
    for (const domain of delisted) expect(domains.has(domain), domain).toBe(false);
    // The search's own order: its first places are the first leaves, each naming the listing shown there.
    for (const shown of page) expect(leaves[shown.rank_pos - 1]).toContain(` id=${shown.id} domain=${shown.domain} `);

    const root = rfcRoot(leaves.map((leaf) => sha256(Buffer.from([0]), leaf)));
    expect(root.toString('base64')).toBe(order.root);
  });
});
