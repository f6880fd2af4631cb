/**
 * When the disk fills (issue 19): the directory's data folder on a small filesystem the test mounts
 * itself (test-support/small-disk.ts), filled but for a little room: enough for a one-row write, not
 * for a registration. Registrations answer 503 storage_full with Retry-After (not 500), /healthz says
 * the directory cannot write for as long as they are refused (issue 35: a small write that fits is no
 * proof), the cause is logged once, searches and status reads go on; once space is freed /healthz
 * recovers by itself, retried registrations are made once each, and nothing acknowledged is lost.
 */
// sqlite only: a full disk under SQLite's own file; PostgreSQL's disk is the server's, out of a test's reach
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyWriteAheadLog, mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../../test-support/small-disk.js';
import { rawRows } from '../../../test-support/test-database.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { AFTER_RULES_7, listing } from './support/fixtures.js';
import { TestClock, quietDirectory, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';
import { closeSignedInboxes, signed, signedInbox, type SignedInbox } from './support/signed-inbox.js';

const skip = smallDiskUnavailable();
if (skip) console.warn(skip);

const RETRY_AFTER = /^[1-9]\d*$/;
/** Fewer than the write budget per minute (rate-budgets.ts), so the limiter never answers instead. */
const REFUSED = 8;
/**
 * Room left on the full disk: a one-row write takes one or two pages of log (4–8 KiB), a registration
 * seven (29 KB, measured with a log emptied first), so small writes still fit and registrations do not.
 */
const ROOM_LEFT_BYTES = 16 * 1024;
/** Longer than StorageHealth's pause between probes (STORAGE_PROBE_EVERY_MS). */
const PROBE_PAUSE_MS = 1_100;
/** Fake inboxes on 127.0.0.1 serving their keys: the first registers before the disk fills, the others while it is full. */
const inboxes: SignedInbox[] = [];
const before = () => inboxes[0] as SignedInbox;
const shop = (i: number) => inboxes[i + 1] as SignedInbox;
const domainOf = (i: number) => shop(i).domain;
const statusPath = (domain: string) => `/v1/instances/${encodeURIComponent(domain)}/status`;

describe.skipIf(skip !== null)(skip ?? 'the directory on a full disk', () => {
  let disk: SmallDisk;
  const lines: string[] = [];
  let t: TestDirectory;

  // Registration is signed by the inbox registered (issue 13).
  const register = (inbox: SignedInbox) => signed(t, inbox, 'POST', '/v1/instances', { domain: inbox.domain });
  const logged = (pattern: RegExp) => lines.filter((line) => pattern.test(line));
  const health = () => t.get('/healthz');

  beforeAll(async () => {
    disk = mountSmallDisk('8m');
    for (let i = 0; i <= REFUSED; i++) inboxes.push(await signedInbox());
    t = await startDirectory({
      allowLocalInboxes: true,
      dataDir: join(disk.dir, 'data'),
      answerWorkers: 0,
      listings: [listing('found-one.example', { name: 'Found One' })],
      logStream: { write: (line) => void lines.push(line) },
    });
    await t.directory.pagesReady;
    await t.directory.search.hour();
    // The index's snapshot is written in the background: done before the disk is filled (one failing
    // on the full disk removes its part written, and frees more room than the tests leave).
    await t.directory.search.snapshotWritten;
  });
  afterAll(async () => {
    await t?.close({ removeData: false });
    disk?.unmount();
    await closeSignedInboxes();
  });

  it('registers and says so while there is room', async () => {
    expect((await register(before())).status).toBe(202);
    const ok = await health();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true });
  });

  it('answers 503 storage_full with Retry-After to every registration once the disk is full, never 500', async () => {
    await emptyWriteAheadLog(join(disk.dir, 'data', 'directory.sqlite'));
    expect(disk.fill(ROOM_LEFT_BYTES)).toBeGreaterThan(0);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < REFUSED; i++) answers.push(await register(shop(i)));
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get('retry-after')).toMatch(RETRY_AFTER);
      expect(answer.body).toMatchObject({ status: 503, code: 'storage_full', type: expect.stringMatching(/\/problems\/storage_full$/) });
    }
  });

  it('says on /healthz that it cannot write (503), and still answers searches and status reads', async () => {
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(RETRY_AFTER);
    expect(down.body).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_full', since: expect.any(String) }, version: expect.any(String) });
    const search = await t.get('/v1/businesses?q=found');
    expect(search.status).toBe(200);
    expect((await t.get(statusPath(before().domain))).status).toBe(200);
    expect((await t.get(statusPath(domainOf(0)))).status).toBe(404);
  });

  it('keeps saying so while registrations are refused, though a small write still fits: probed again and again', async () => {
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
      const down = await health();
      expect(down.status, JSON.stringify(down.body)).toBe(503);
      expect(down.body).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_full' } });
      const refused = await register(shop(round));
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    }
    expect(logged(/storage writable again/)).toEqual([]);
  });

  it('logs the cause once for the whole episode, never "cannot rollback"', () => {
    expect(logged(/storage cannot be written/)).toHaveLength(1);
    expect(logged(/storage cannot be written/)[0]).toMatch(/SQLITE_FULL/);
    expect(logged(/cannot rollback/)).toEqual([]);
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toHaveLength(1);
  });

  it('recovers by itself once space is freed: /healthz first, with no other write', async () => {
    disk.free();
    let up = await health();
    for (let waited = 0; up.status !== 200 && waited < 3_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      up = await health();
    }
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ ok: true });
    expect(logged(/storage writable again/)).toHaveLength(1);
  });

  it('takes the retried registrations, each once, and lost nothing it acknowledged', async () => {
    for (let i = 0; i < REFUSED; i++) {
      expect((await register(shop(i))).status).toBe(202);
      expect((await register(shop(i))).status).toBe(202);
    }
    for (const domain of [before().domain, ...Array.from({ length: REFUSED }, (_, i) => domainOf(i))]) {
      const status = await t.get(statusPath(domain));
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ domain, status: 'pending' });
    }
    // One verification job per domain: a retry queues none twice.
    const due = await t.directory.store.jobs.claimDue(t.clock.now(), 60_000, 100);
    expect(due.map((job) => job.payload.domain).sort()).toEqual([before().domain, ...Array.from({ length: REFUSED }, (_, i) => domainOf(i))].sort());
  });
});

describe.skipIf(skip !== null)(skip ?? 'a bulk load on a full disk', () => {
  it('is refused with SQLITE_FULL from its writer thread, says so on /healthz, and loads whole once space is freed', { timeout: 120_000 }, async () => {
    const disk = mountSmallDisk('16m');
    const dataDir = join(disk.dir, 'data');
    const directory = await quietDirectory(dataDir, new TestClock(AFTER_RULES_7));
    const healthz = async () => directory.http.inject({ method: 'GET', url: '/healthz' });
    try {
      const listings = [...generateListings({ count: 300, seed: 31, nowMs: AFTER_RULES_7, placeCategoryOf: taxonomyCategoryPicker() })];
      await emptyWriteAheadLog(join(dataDir, 'directory.sqlite'));
      // Room for a little, not for a transaction of 100 listings with their pages (~800 KB of log).
      expect(disk.fill(64 * 1024)).toBeGreaterThan(0);
      // A whole transaction of rows: written on the load's SQLite writer thread, whose connection the node's does not watch.
      const refused: unknown = await directory.store.listings.load(listings, { rowsPerTransaction: 100 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ name: 'SqliteLoadError', code: 'SQLITE_FULL' });
      const down = await healthz();
      expect(down.statusCode, down.body).toBe(503);
      expect(down.json()).toMatchObject({ ok: false, writable: false, storage: { code: 'storage_full' } });

      disk.free();
      let up = await healthz();
      for (let waited = 0; up.statusCode !== 200 && waited < 3_000; waited += 200) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        up = await healthz();
      }
      expect(up.statusCode, up.body).toBe(200);
      // Nothing half-written stayed: the load runs again whole.
      expect(await directory.store.listings.load(listings, { rowsPerTransaction: 100 })).toBe(300);
      const stored = await rawRows('directory', dataDir, 'SELECT domain, revision FROM listings ORDER BY seq');
      expect(stored.map((row) => row.domain)).toEqual(listings.map((one) => one.domain));
      expect(stored.map((row) => Number(row.revision))).toEqual(listings.map((_, i) => i + 1));
    } finally {
      await directory.close();
      disk.unmount();
    }
  });
});
