/**
 * Pages kept with what they are drawn from (docs/web.md "Budgets"): a business page, a check result,
 * its badge and a scoped leaderboard are served from bytes kept between requests, and each is drawn
 * anew exactly when what it says changes, never later than its JSON: a listing written, the minute a
 * business closes, the hour turning, a new check of the site. Every step compares the page with its
 * JSON read at the same moment, and its ETag with the one before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWeb, type LocalWeb } from '../src/demo/local-web/local-web-server.js';
import type { SampleSite } from '../src/demo/local-web/sample-sites.js';
import { EVERY_DAY, hours, member } from './support/fixtures.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const SHOP = 'corner-shop.example';

async function page(t: TestDirectory, path: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string; robots: string | null; text: string }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers, redirect: 'manual' });
  return { status: res.status, etag: res.headers.get('etag') ?? '', robots: res.headers.get('x-robots-tag'), text: await res.text() };
}

describe('a kept business page', () => {
  let t: TestDirectory;
  beforeAll(async () => {
    // Monday 10:15 in Lisbon (UTC in November): open until 10:30.
    const clock = new TestClock('2026-11-23T10:15:00Z');
    t = await startDirectory({
      clock,
      answerWorkers: 0,
      listings: [member(SHOP, { name: 'Corner Shop', hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['09:00', '10:30'], ['11:00', '18:00']] }), itemTypes: ['booking', 'message'] })],
    });
    await t.directory.search.hour();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The page and its JSON now: the page says what the JSON says (name, open now). */
  async function readBoth(): Promise<{ etag: string; text: string; json: any }> {
    const first = await page(t, `/businesses/${SHOP}`);
    const again = await page(t, `/businesses/${SHOP}`);
    const json = (await t.get(`/v1/businesses/${SHOP}`)).body;
    expect(first.status).toBe(200);
    // Served twice alike (the second from the kept bytes), with a 304 to its tag.
    expect(again.text).toBe(first.text);
    expect(again.etag).toBe(first.etag);
    expect((await page(t, `/businesses/${SHOP}`, { 'if-none-match': first.etag })).status).toBe(304);
    expect(first.text).toContain(`<h1>${json.name}`);
    expect(first.text).toContain(json.open_now ? 'Open now' : 'Closed now');
    return { etag: first.etag, text: first.text, json };
  }

  it('is drawn anew when the business closes within the hour, when the hour turns and when its listing is written', async () => {
    const open = await readBoth();
    expect(open.json.open_now).toBe(true);

    // 10:35: closed since 10:30, the same hour (the hour's order is the same).
    t.clock.advance(20 * MINUTE);
    const closed = await readBoth();
    expect(closed.json.open_now).toBe(false);
    expect(closed.etag).not.toBe(open.etag);
    expect(closed.text).not.toContain('Open now');

    // 11:05: a new hour, open again.
    t.clock.advance(30 * MINUTE);
    await t.directory.search.hour();
    const reopened = await readBoth();
    expect(reopened.json.open_now).toBe(true);
    expect(reopened.etag).not.toBe(closed.etag);

    // The listing written (a new name): the next page says so.
    const record = (await t.directory.store.listings.byDomain(SHOP))!;
    const { seq: _seq, ...rest } = record;
    await t.directory.store.listings.upsert({ ...rest, name: 'Corner Shop Renamed', updatedAt: t.clock.now() });
    const renamed = await readBoth();
    expect(renamed.json.name).toBe('Corner Shop Renamed');
    expect(renamed.text).toContain('Corner Shop Renamed');
    expect(renamed.etag).not.toBe(reopened.etag);
  });

  it('draws the ranking rules anew when the rules in force change, and not before', async () => {
    const before = await page(t, '/ranking');
    const beforeJson = (await t.get('/v1/ranking')).body;
    expect((await page(t, '/ranking')).text).toBe(before.text);
    // 8 December 2026: version 7 of the rules comes into force (fixtures AFTER_RULES_7).
    t.clock.advance(Date.parse('2026-12-08T10:15:00Z') - t.clock.now());
    const afterJson = (await t.get('/v1/ranking')).body;
    expect(afterJson.version).not.toBe(beforeJson.version);
    const after = await page(t, '/ranking');
    expect(after.etag).not.toBe(before.etag);
    expect(after.text).not.toBe(before.text);
    expect(after.text).toContain(`/v1/ranking?version=${afterJson.version}`);
    expect((await page(t, '/ranking')).text).toBe(after.text);
  });

  it('keeps each language apart', async () => {
    const en = await page(t, `/businesses/${SHOP}`);
    const pt = await page(t, `/businesses/${SHOP}?lang=pt`);
    expect(pt.text).toContain('<html lang="pt"');
    expect(en.text).toContain('<html lang="en"');
    expect((await page(t, `/businesses/${SHOP}`)).text).toBe(en.text);
    expect((await page(t, `/businesses/${SHOP}?lang=pt`)).text).toBe(pt.text);
  });
});

/** A bakery in Lisbon whose MCP server the test changes between checks (the local web reads `mcp` on each request). */
const CHANGING: SampleSite & { mcp: NonNullable<SampleSite['mcp']> } = {
  host: 'changing-bakery.test',
  about: 'a bakery whose doors change between two checks',
  pages: {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><title>Changing Bakery</title><script type="application/ld+json">${JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'Bakery',
        name: 'Changing Bakery',
        url: 'http://changing-bakery.test/',
        address: { '@type': 'PostalAddress', addressLocality: 'Lisboa', addressCountry: 'PT' },
        geo: { '@type': 'GeoCoordinates', latitude: 38.71, longitude: -9.14 },
      })}</script></head><body></body></html>`,
    },
  },
  mcp: [{ path: '/mcp', tools: [{ name: 'send_message' }] }],
};

describe('a kept check result, its badge and its scoped board', () => {
  let web: LocalWeb;
  let t: TestDirectory;
  beforeAll(async () => {
    web = await startLocalWeb({ sites: [CHANGING] });
    t = await startDirectory({ checks: { localWeb: web.address, callerChecksPerHour: 100 } });
    expect((await t.request('POST', '/check', { body: { url: CHANGING.host } })).status).toBe(202);
    await t.directory.checkWorker.drain();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  async function readAll(): Promise<{ json: any; result: Awaited<ReturnType<typeof page>>; badge: Awaited<ReturnType<typeof page>>; board: Awaited<ReturnType<typeof page>>; boardJson: any }> {
    const json = (await t.get(`/b/${CHANGING.host}.json`)).body;
    const result = await page(t, `/b/${CHANGING.host}`);
    const badge = await page(t, `/b/${CHANGING.host}/badge.svg`);
    const board = await page(t, '/leaderboard?country=PT&place=lisboa');
    const boardJson = (await t.get('/leaderboard.json?country=PT&place=lisboa')).body;
    // Served again alike, from the kept bytes; 304 to their tags.
    expect((await page(t, `/b/${CHANGING.host}`)).text).toBe(result.text);
    expect((await page(t, `/b/${CHANGING.host}/badge.svg`)).text).toBe(badge.text);
    expect((await page(t, '/leaderboard?country=PT&place=lisboa')).text).toBe(board.text);
    expect((await page(t, `/b/${CHANGING.host}`, { 'if-none-match': result.etag })).status).toBe(304);
    expect((await page(t, `/b/${CHANGING.host}/badge.svg`, { 'if-none-match': badge.etag })).status).toBe(304);
    // Each says what its JSON says now.
    expect(json.state).toBe('done');
    expect(result.text).toContain(`<p class="score-number">${json.agentic_score} `);
    expect(result.robots).toBe(json.indexable ? null : 'noindex');
    expect(badge.text).toContain(`<title>agent check: ${json.grade} · ${json.agentic_score}</title>`);
    const row = (boardJson.named as any[]).find((r) => r.domain === CHANGING.host);
    expect(row.score).toBe(json.agentic_score);
    expect(board.text).toContain(`<td class="num">${row.score}</td>`);
    return { json, result, badge, board, boardJson };
  }

  /** The business page of the site found by its check: it names the result in a few words (its check link). */
  async function businessPage(json: any): Promise<Awaited<ReturnType<typeof page>>> {
    const business = await page(t, `/businesses/${CHANGING.host}`);
    expect(business.status).toBe(200);
    expect((await page(t, `/businesses/${CHANGING.host}`)).text).toBe(business.text);
    expect(business.text).toContain(`href="/b/${CHANGING.host}"`);
    expect(business.text).toContain(`Grade ${json.grade} · ${json.agentic_score} `);
    return business;
  }

  it('are drawn anew after a new check of the site, and say what the new result says', async () => {
    const before = await readAll();
    const businessBefore = await businessPage(before.json);
    // The site grows doors; a check asked for again after the hour it must wait.
    CHANGING.mcp = [{ path: '/mcp', tools: [{ name: 'send_message' }, { name: 'create_order' }, { name: 'cancel_order' }, { name: 'create_booking' }] }];
    t.clock.advance(HOUR + MINUTE);
    expect((await t.request('POST', '/check', { body: { url: CHANGING.host } })).status).toBe(202);
    // Queued: the page follows the check as it goes, never the kept done page.
    const queued = await page(t, `/b/${CHANGING.host}`);
    expect((await t.get(`/b/${CHANGING.host}.json`)).body.state).toBe('queued');
    expect(queued.etag).not.toBe(before.result.etag);
    expect(queued.text).toContain('data-state="queued"');
    await t.directory.checkWorker.drain();

    const after = await readAll();
    expect(after.json.agentic_score).toBeGreaterThan(before.json.agentic_score);
    expect(after.result.etag).not.toBe(before.result.etag);
    expect(after.badge.etag).not.toBe(before.badge.etag);
    expect(after.board.etag).not.toBe(before.board.etag);
    // The business page names the new result on the next read.
    const businessAfter = await businessPage(after.json);
    expect(businessAfter.etag).not.toBe(businessBefore.etag);
  });
});
