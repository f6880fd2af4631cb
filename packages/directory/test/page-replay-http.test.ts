/**
 * The directory's kept pages replayed in front of the framework (shared answer-replay.ts, docs/web.md
 * "Budgets"): a business page, a check result and its badge, the search, the leaderboards and the
 * rules asked again get the very answer Fastify gave (headers and bytes), while what they were drawn
 * from would be handed back unchanged; a listing or check written, the minute the view reads its zone
 * at, a search's answer expired or its hour gone, a version of the rules published or in force, or a
 * request carrying a cookie goes through the framework and gets what is true now. On PostgreSQL no revision is kept in
 * memory (another process may write), so nothing is replayed there: the SQLite run tests it.
 */
import { answerReplayOf } from '@svc/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptHeaders, rawRequest, type RawAnswer } from '../../../test-support/raw-http.js';
import { onPostgres } from '../../../test-support/test-database.js';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import { SAMPLE_SITES } from '../src/demo/local-web/sample-sites.js';
import { EVERY_DAY, hours, member } from './support/fixtures.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const MINUTE = 60_000;
const SHOP = 'corner-shop.example';
const SITE = 'padaria-aurora.test';

let t: TestDirectory;
let web: LocalWeb;

/** A plain GET as a crawler or a link preview sends it (no cookie, no validator). */
const raw = (path: string, headers: Record<string, string> = {}): Promise<RawAnswer> => rawRequest(t.baseUrl, 'GET', path, headers);
const replayed = () => answerReplayOf(t.directory.http)!.replayed;

/** Reads `path` twice: the second is replayed, the same answer as the first. */
async function readTwice(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const first = await raw(path, headers);
  expect(first.status, path).toBe(200);
  const before = replayed();
  const second = await raw(path, headers);
  expect(replayed(), `${path} replayed`).toBe(before + 1);
  expect(keptHeaders(second)).toEqual(keptHeaders(first));
  expect(second.body.equals(first.body)).toBe(true);
  return first;
}

/** Reads `path` once and says it went through the framework. */
async function readThrough(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const before = replayed();
  const answer = await raw(path, headers);
  expect(replayed(), `${path} not replayed`).toBe(before);
  return answer;
}

describe.skipIf(onPostgres)('kept directory pages replayed in front of the framework', () => {
  beforeAll(async () => {
    web = await startLocalWeb({ sites: SAMPLE_SITES.filter((site) => site.host === SITE) });
    // Monday 10:15 in Lisbon (UTC in November): open until 10:30.
    t = await startDirectory({
      clock: new TestClock('2026-11-23T10:15:00Z'),
      answerWorkers: 0,
      // As npm start runs: search answers kept a few minutes (spec §4), which the search page's replay follows.
      cacheAnswers: true,
      checks: { localWeb: web.address, callerChecksPerHour: 100 },
      listings: [member(SHOP, { name: 'Corner Shop', hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['09:00', '10:30'], ['11:00', '18:00']] }), itemTypes: ['booking', 'message'] })],
    });
    await t.directory.search.hour();
    expect((await t.request('POST', '/check', { body: { url: SITE } })).status).toBe(202);
    await t.directory.checkWorker.drain();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('replay a business page, in each coding, until its listing is written', async () => {
    const page = await readTwice(`/businesses/${SHOP}`);
    expect(page.body.toString()).toContain('Corner Shop');
    const br = await readTwice(`/businesses/${SHOP}`, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    await readTwice(`/businesses/${SHOP}?lang=pt`);

    const record = (await t.directory.store.listings.byDomain(SHOP))!;
    const { seq: _seq, ...rest } = record;
    await t.directory.store.listings.upsert({ ...rest, name: 'Corner Shop Renamed', updatedAt: t.clock.now() });
    const renamed = await readThrough(`/businesses/${SHOP}`);
    expect(renamed.body.toString()).toContain('Corner Shop Renamed');
    expect(renamed.headers.etag).not.toBe(page.headers.etag);
    expect((await readTwice(`/businesses/${SHOP}`)).body.equals(renamed.body)).toBe(true);
  });

  it('never replay a business page past the minute its view reads the zone at, nor the hour', async () => {
    const open = await readTwice(`/businesses/${SHOP}`);
    expect(open.body.toString()).toContain('Open now');
    // 10:31: closed since 10:30.
    t.clock.advance(16 * MINUTE);
    const closed = await readThrough(`/businesses/${SHOP}`);
    expect(closed.body.toString()).toContain('Closed now');
    await readTwice(`/businesses/${SHOP}`);
    // 11:01: open again, in a new hour whose order is not prepared yet, then once it is.
    t.clock.advance(30 * MINUTE);
    expect((await readThrough(`/businesses/${SHOP}`)).body.toString()).toContain('Open now');
    await readTwice(`/businesses/${SHOP}`);
    await t.directory.search.hour();
    await readThrough(`/businesses/${SHOP}`);
    await readTwice(`/businesses/${SHOP}`);
  });

  it('replay a check result and its badge until the check is written, and a business page naming it', async () => {
    const result = await readTwice(`/b/${SITE}`);
    const badge = await readTwice(`/b/${SITE}/badge.svg`);
    expect(badge.headers['content-type']).toContain('image/svg+xml');
    const business = await readTwice(`/businesses/${SITE}`);
    expect(business.body.toString()).toContain(`href="/b/${SITE}"`);

    const store = t.directory.store;
    const check = (await store.checks.get(SITE))!;
    await store.checks.put({ ...check, state: 'checking', leaseUntil: t.clock.now() + MINUTE });
    const checking = await readThrough(`/b/${SITE}`);
    expect(checking.body.toString()).toContain('The crawler is reading the site now');
    expect(checking.headers.etag).not.toBe(result.headers.etag);
    await readThrough(`/b/${SITE}/badge.svg`);
    const named = await readThrough(`/businesses/${SITE}`);
    expect(named.body.equals(business.body)).toBe(false);
    await readTwice(`/b/${SITE}`);
    await store.checks.put(check);
  });

  it('send a request carrying a cookie, a validator or an origin through the framework', async () => {
    await readTwice(`/businesses/${SHOP}`);
    const pt = await readThrough(`/businesses/${SHOP}`, { cookie: 'svc_lang=pt' });
    expect(pt.body.toString()).toContain('<html lang="pt"');
    const tagged = await raw(`/businesses/${SHOP}`);
    expect((await readThrough(`/businesses/${SHOP}`, { 'if-none-match': String(tagged.headers.etag) })).status).toBe(304);
    expect((await readThrough(`/businesses/${SHOP}`, { origin: 'https://elsewhere.example' })).status).toBe(200);
  });

  it('replay the search while the search would hand back the very answer it was drawn from, as its JSON does', async () => {
    t.clock.set('2026-11-23T11:10:00Z');
    await readTwice('/');
    const found = await readTwice('/?q=corner');
    expect(found.body.toString()).toContain('Corner Shop');
    await readTwice('/?q=corner&lang=pt');

    // A listing written: the kept answer and the page drawn from it follow the change at the next
    // search, not minutes later (docs/directory.md "Search nodes"), then are replayed again.
    const record = (await t.directory.store.listings.byDomain(SHOP))!;
    const { seq: _seq, ...rest } = record;
    await t.directory.store.listings.upsert({ ...rest, name: 'Corner Shop Moved', updatedAt: t.clock.now() });
    const moved = await readThrough('/?q=corner');
    expect(moved.body.toString()).toContain('Corner Shop Moved');
    expect((await t.get('/v1/businesses?q=corner')).body.businesses[0].name).toBe('Corner Shop Moved');
    await readTwice('/?q=corner');

    // Open now holds a minute.
    await readTwice('/?q=corner&open_now=true');
    t.clock.advance(MINUTE + 1_000);
    await readThrough('/?q=corner&open_now=true');
    await readTwice('/?q=corner&open_now=true');

    // A new hour: a new order, whatever the answer's age.
    t.clock.set('2026-11-23T11:59:30Z');
    await readThrough('/?q=shop');
    await readTwice('/?q=shop');
    t.clock.advance(MINUTE);
    await readThrough('/?q=shop');
    await readTwice('/?q=shop');

    // A refusal is never replayed.
    const refused = await readThrough('/?radius_km=5');
    expect(refused.status).toBe(400);
    await readThrough('/?radius_km=5');
  });

  it('replay the leaderboards until a check is written', async () => {
    const board = await readTwice('/leaderboard');
    const place = await readTwice('/leaderboard?country=PT&place=lisboa');
    await readTwice('/leaderboard?lang=pt');

    const store = t.directory.store;
    const check = (await store.checks.get(SITE))!;
    await store.checks.put({ ...check, checkedAt: (check.checkedAt ?? t.clock.now()) + 1 });
    expect((await readThrough('/leaderboard')).status).toBe(200);
    expect((await readThrough('/leaderboard?country=PT&place=lisboa')).status).toBe(200);
    await readTwice('/leaderboard');
    await store.checks.put(check);
    expect((await readThrough('/leaderboard')).body.equals(board.body)).toBe(true);
    expect((await readThrough('/leaderboard?country=PT&place=lisboa')).body.equals(place.body)).toBe(true);
  });

  it('replay the rules pages until a version is published or comes into force, never to a clock set back', async () => {
    t.clock.set('2026-11-24T09:00:00Z');
    const scoreRules = await readTwice('/score-rules');
    await readTwice('/score-rules?version=1');
    await readTwice('/ranking?version=6');
    const ranking = await readTwice('/ranking');
    expect(ranking.body.toString()).toContain('in_force');

    t.clock.set('2026-11-24T08:59:00Z');
    expect((await readThrough('/score-rules')).body.equals(scoreRules.body)).toBe(true);
    await readThrough('/ranking');
    t.clock.set('2026-11-24T09:00:00Z');
    await readTwice('/ranking');

    // Version 7 of the ranking rules comes into force on 7 December: the page says so at once.
    t.clock.set('2026-12-06T23:59:59Z');
    await readTwice('/ranking');
    t.clock.set('2026-12-07T00:00:01Z');
    const v2 = await readThrough('/ranking');
    expect(v2.headers.etag).not.toBe(ranking.headers.etag);
    expect(v2.body.toString()).toContain('Version 7</span> <span class="badge">Status: in_force');
    const retired = await readThrough('/ranking?version=6');
    expect(retired.body.toString()).toContain('retired');
    await readTwice('/ranking');
    await readTwice('/score-rules');
  });

  it('replay the pages drawn from the software alone: the categories, a group and the check form', async () => {
    const categories = await readTwice('/categories');
    expect(categories.headers.link).toContain('/v1/categories');
    await readTwice('/categories?lang=pt');
    const group = await readTwice('/categories/bakery');
    expect(group.headers.link).toContain('/v1/categories?group=bakery');
    const form = await readTwice('/check');
    expect(form.headers.link).toBeUndefined();
    expect(form.body.toString()).toContain('action="/check"');
    // A request with a cookie goes through the framework and gets the same page.
    expect((await readThrough('/categories/bakery', { cookie: 'other=1' })).body.equals(group.body)).toBe(true);
    expect((await readThrough('/categories/no-such-group')).status).toBe(404);
    expect((await readThrough('/categories/no-such-group')).status).toBe(404);
  });

  it('keep the statistics a second at most, and not past a write to what they count', async () => {
    t.clock.set('2026-12-07T10:00:00Z');
    await t.directory.search.hour();
    const first = (await t.get('/v1/stats')).body;
    const page = await readTwice('/stats');
    expect((await t.get('/v1/stats')).body).toEqual(first);
    expect(page.body.toString()).toContain(String(first.businesses_listed));

    t.clock.advance(1_000);
    await readThrough('/stats');
    const later = (await t.get('/v1/stats')).body;
    expect(later.generated_at).toBe('2026-12-07T10:00:01.000Z');
    await readTwice('/stats');

    // A listing written: counted at once, within the same second.
    const record = (await t.directory.store.listings.byDomain(SHOP))!;
    const { seq: _seq, ...rest } = record;
    await t.directory.store.listings.upsert({ ...rest, id: 'second-shop', domain: 'second-shop.example', name: 'Second Shop', updatedAt: t.clock.now() });
    const written = await readThrough('/stats');
    expect(written.body.equals(page.body)).toBe(false);
    expect((await t.get('/v1/stats')).body.businesses_listed).toBe(later.businesses_listed + 1);
    await readTwice('/stats');
  });
});
