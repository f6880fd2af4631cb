/**
 * The demo data set says the same thing everywhere (issue 11): a member is listed through its inbox,
 * so every demo member is a registered, verified inbox whose status (directory spec §4 GET
 * /v1/instances/{domain}/status) agrees with its listing and with GET /v1/stats, and no job ever
 * tries to reach the fictional domains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SEED, demoInstance, seedDemoDirectory, taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { generateListings, type GeneratedListing } from '../src/demo/listing-generator.js';
import { isListed } from '../src/domain/listings/regulated.js';
import { DAY, HOUR, MONDAY } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';

const COUNT = 3000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const statusPath = (domain: string) => `/v1/instances/${encodeURIComponent(domain)}/status`;

describe('demo members are registered, verified inboxes', () => {
  let t: TestDirectory;
  const clock = new TestClock(MONDAY);
  // The same listings the seed writes: same seed, same moment, same category picker.
  const members: GeneratedListing[] = [
    ...generateListings({ count: COUNT, seed: DEMO_SEED, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() }),
  ].filter((l) => l.source === 'member');
  const listed = members.filter((l) => l.delistedAt === null && l.dormantSince === null);
  const answering = listed.filter((l) => l.lastPingAt !== null && l.lastPingAt >= MONDAY - DAY);

  beforeAll(async () => {
    t = await startDirectory({ clock, answerWorkers: 0, runJobs: false });
    expect(await seedDemoDirectory(t.directory.store, COUNT, MONDAY)).toBe(COUNT);
    await t.directory.search.hour();
  }, 60_000);
  afterAll(() => t.close());

  it('the demo holds members that answer, members that do not, and members set aside', () => {
    expect(members.length).toBeGreaterThan(100);
    expect(answering.length).toBeGreaterThan(0);
    expect(listed.length - answering.length).toBeGreaterThan(0);
  });

  it('every member listing\'s domain answers 200 at its status: verified, listed, with its listing\'s manifest, verification and ping', async () => {
    for (const l of members) {
      const r: ApiResponse = await t.get(statusPath(l.domain));
      expect(r.status, `${l.domain}: ${JSON.stringify(r.body)}`).toBe(200);
      const shown = l.dormantSince === null && l.delistedAt === null;
      expect(r.body, l.domain).toMatchObject({
        domain: l.domain,
        status: 'verified',
        listed: shown,
        manifest_url: l.manifestUrl,
        verified_at: iso(l.verifiedAt),
        last_ping_at: iso(l.lastPingAt),
        dormant_since: iso(l.dormantSince),
        delisted_at: null,
        fail_count: 0,
      });
      expect(r.body.verification, l.domain).toBeUndefined(); // no check queued
      expect(Date.parse(r.body.last_checked_at)).toBeGreaterThanOrEqual(l.verifiedAt!);
    }
  }, 30_000);

  it('each listed member\'s own page agrees with its status: manifest, verification, ping, answering', async () => {
    for (const l of listed) {
      const [business, status] = await Promise.all([t.get(`/v1/businesses/${encodeURIComponent(l.domain)}`), t.get(statusPath(l.domain))]);
      expect(business.status, l.domain).toBe(200);
      expect(business.body.source).toBe('member');
      expect(business.body.manifest_url).toBe(status.body.manifest_url);
      expect(business.body.verified_at).toBe(status.body.verified_at);
      expect(business.body.last_ping_at).toBe(status.body.last_ping_at);
      const pingedInLastDay = Date.parse(status.body.last_ping_at) >= MONDAY - DAY;
      expect(business.body.answering, l.domain).toBe(pingedInLastDay);
      expect(business.body.not_answering_since === null, l.domain).toBe(pingedInLastDay);
    }
  }, 30_000);

  it('GET /v1/stats counts as online exactly the members whose listings answer', async () => {
    const stats = await t.get('/v1/stats');
    expect(stats.status).toBe(200);
    expect(stats.body.instances_online).toBe(answering.length);
    // Listed: every business but members set aside and non-members in a regulated category.
    const all = [...generateListings({ count: COUNT, seed: DEMO_SEED, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
    expect(stats.body.businesses_listed).toBe(all.filter(isListed).length);
    expect(all.filter((l) => l.source !== 'member' && !isListed(l)).length).toBeGreaterThan(0);
    const r = await t.get(`/v1/businesses?source=member&limit=100`);
    expect(r.status).toBe(200);
    // Rules 6 are in force on MONDAY: members that answer come first.
    const firstPage = r.body.businesses as { answering: boolean }[];
    expect(firstPage.filter((b) => b.answering).length).toBe(Math.min(100, answering.length));
  });

  it('no job is queued for a demo inbox, and running the jobs hours later changes no status', async () => {
    expect(await t.directory.store.jobs.list()).toEqual([]);
    clock.advance(7 * HOUR);
    expect(await t.directory.jobs.runDue()).toBe(0);
    const sample = [members[0]!, members[Math.floor(members.length / 2)]!, members[members.length - 1]!];
    for (const l of sample) {
      const r = await t.get(statusPath(l.domain));
      expect(r.body).toMatchObject({ status: 'verified', fail_count: 0, last_checked_at: expect.any(String) });
      expect(r.body.verification).toBeUndefined();
    }
  });

  it('a member set aside is a verified inbox, not listed, set aside since its listing was; an unsigned ping changes nothing', async () => {
    // The default demo of 3000 holds no member set aside (0.5% of members): make one of the first.
    const l = members[0]!;
    const since = MONDAY - 9 * DAY;
    const dormant = { ...l, lastPingAt: since - 2 * DAY, dormantSince: since };
    await t.directory.store.transaction(async (tx) => {
      await tx.listings.upsert(dormant);
      await tx.instances.put(demoInstance(dormant));
    });
    const before = await t.get(statusPath(l.domain));
    expect(before.body).toMatchObject({ status: 'verified', listed: false, dormant_since: iso(since), last_ping_at: iso(since - 2 * DAY) });
    expect((await t.get(`/v1/businesses/${encodeURIComponent(l.domain)}`)).status).toBe(404);

    // Only the inbox itself can bring it back, with a signed ping (signed-calls-http.test.ts): a demo domain has no keys to sign with.
    const ping = await t.request('POST', `/v1/instances/${encodeURIComponent(l.domain)}/ping`, { body: { version: '0.9.0', runtime: 'node' } });
    expect(ping.status).toBe(401);
    const after = await t.get(statusPath(l.domain));
    expect(after.body).toMatchObject({ status: 'verified', listed: false, last_ping_at: iso(since - 2 * DAY), dormant_since: iso(since) });
  });
});
