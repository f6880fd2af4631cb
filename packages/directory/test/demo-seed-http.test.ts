/**
 * The demo data set says the same thing everywhere (issue 11): a member is listed through its inbox,
 * so every demo member is a registered, verified inbox whose status (directory spec §4 GET
 * /v1/instances/{domain}/status) agrees with its listing and with GET /v1/stats, and no job ever
 * tries to reach the fictional domains.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRows } from '../../../test-support/test-database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SEED, demoInstance, seedDemoDirectory, taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { seedDemoEvidence } from '../src/demo/demo-evidence.js';
import { VERIFY_JOB } from '../src/domain/registration/instances.js';
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
    // The demo is loaded before the directory's jobs run, as main.ts loads it (its history comes before the night begun in the evidence log).
    t = await startDirectory({ clock, answerWorkers: 0, runJobs: false, runStartJobs: false });
    expect(await seedDemoDirectory(t.directory.store, COUNT, MONDAY)).toBe(COUNT);
    expect(await seedDemoEvidence(t.directory.context, t.directory.snapshots, DEMO_SEED, MONDAY)).toBeGreaterThan(1_000);
    await t.directory.search.hour();
    // Thousands of listings and their evidence, stored one transaction at a time: on PostgreSQL a round trip each.
  }, 180_000);
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

  it('each demo member\'s receipts, outcomes and reputation are what the network holds and its snapshot scored; the stats add them up', async () => {
    const store = t.directory.store;
    const night = await store.reputation.latestComplete('2026-11-23');
    expect(night).toMatchObject({ night: '2026-11-23', status: 'published', rulesVersion: 6 });
    let issued = 0;
    let acknowledged = 0;
    const tiers = new Map<string, number>();
    for (const l of listed) {
      const body = (await t.get(`/v1/businesses/${encodeURIComponent(l.domain)}`)).body;
      const tally = await store.receipts.tally(l.domain);
      expect(body.receipts, l.domain).toEqual({ issued: tally.issued, acknowledged: tally.acknowledged, customers: tally.customers, ...(tally.lastAt === null ? {} : { last_at: iso(tally.lastAt) }) });
      expect(body.outcomes, l.domain).toEqual(await store.receipts.outcomeCounts(l.domain));
      issued += tally.issued;
      acknowledged += tally.acknowledged;
      const scored = await store.reputation.score(night!.night, l.domain);
      if (!scored) {
        // Verified since that midnight: not scored yet, no record.
        expect(l.verifiedAt!, l.domain).toBeGreaterThan(night!.scoringTime);
        expect(body.reputation).toMatchObject({ tier: 'new', score: 0, rules: 6 });
        continue;
      }
      expect(body.reputation, l.domain).toEqual({
        ranked: scored!.ranked,
        score: scored!.score,
        tier: scored!.tier,
        kept: scored!.kept,
        broken: scored!.broken,
        customers: scored!.customers,
        verified_share: scored!.verifiedShare,
        rules: 6,
        rules_url: 'http://127.0.0.1/v1/ranking?version=6',
      });
      tiers.set(scored!.tier, (tiers.get(scored!.tier) ?? 0) + 1);
    }
    // A real spread: members with no record, ranked ones, trusted ones.
    expect([...tiers.keys()].sort()).toEqual(['building', 'new', 'trusted']);
    const stats = (await t.get('/v1/stats')).body;
    expect(stats.receipts_issued).toBe(issued);
    expect(stats.receipts_acknowledged).toBe(acknowledged);
    expect(issued).toBeGreaterThan(1_000);
  }, 60_000);

  it('the order ranks answering members by their reputation before the day\'s shuffle, as the rules say', async () => {
    const shown: { answering: boolean; reputation: { ranked: boolean; score: number }; rank_pos: number }[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await t.get(`/v1/businesses?source=member&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      shown.push(...page.body.businesses);
      cursor = page.body.next_cursor;
    } while (cursor);
    const answeringShown = shown.filter((b) => b.answering);
    const ranked = answeringShown.filter((b) => b.reputation.ranked);
    expect(ranked.length).toBeGreaterThan(0);
    // Every ranked answering member comes before every unranked one, highest score first.
    expect(answeringShown.slice(0, ranked.length).every((b) => b.reputation.ranked)).toBe(true);
    const scoreInts = ranked.map((b) => Math.floor(b.reputation.score * 10_000 + 0.5));
    expect([...scoreInts].sort((a, b) => b - a)).toEqual(scoreInts);
  });

  it('no verification is queued for a demo inbox, and running the jobs hours later changes no status', async () => {
    expect(await t.directory.store.jobs.list(VERIFY_JOB)).toEqual([]);
    clock.advance(7 * HOUR);
    // Only the jobs that bring listings up to date with their receipts, and the night's snapshot: they change no status.
    await t.directory.jobs.runDue();
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

describe('a demo data folder seeded before receipts were real', () => {
  it('loses the counts the generator made up when opened, and gets signed receipts at the next start, none twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'demo-before-receipts-'));
    const clock = new TestClock(MONDAY);
    const old = await startDirectory({ dataDir, clock, answerWorkers: 0 });
    expect(await seedDemoDirectory(old.directory.store, 400, MONDAY)).toBe(400);
    // What the generator used to write into member listings, before migration 0007.
    const member = [...generateListings({ count: 400, seed: DEMO_SEED, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })].find((l) => l.source === 'member' && isListed(l))!;
    const stored = (await old.directory.store.listings.byDomain(member.domain))!;
    const { seq: _seq, ...rest } = stored;
    await old.directory.store.listings.upsert({ ...rest, receipts: { issued: 57, acknowledged: 53, customers: 21, lastAt: MONDAY - DAY }, outcomes: { kept: 40, broken: 2, cancelled: 5 } });
    await old.close({ removeData: false });
    await rawRows('directory', dataDir, "DELETE FROM kysely_migration WHERE name >= '0007-receipts-from-the-network'");

    const reopened = await startDirectory({ dataDir, clock, answerWorkers: 0 });
    try {
      const cleared = (await reopened.get(`/v1/businesses/${encodeURIComponent(member.domain)}`)).body;
      expect(cleared.receipts).toEqual({ issued: 0, acknowledged: 0, customers: 0 });
      expect(cleared.outcomes).toEqual({});
      expect((await reopened.get('/v1/stats')).body.receipts_issued).toBe(0);
      const held = await seedDemoEvidence(reopened.directory.context, reopened.directory.snapshots, DEMO_SEED, MONDAY);
      expect(held).toBeGreaterThan(0);
      const tally = await reopened.directory.store.receipts.tally(member.domain);
      expect((await reopened.get(`/v1/businesses/${encodeURIComponent(member.domain)}`)).body.receipts.issued).toBe(tally.issued);
      expect(await seedDemoEvidence(reopened.directory.context, reopened.directory.snapshots, DEMO_SEED, MONDAY)).toBe(0);
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
