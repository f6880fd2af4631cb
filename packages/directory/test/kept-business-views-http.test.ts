/**
 * A business's view kept between reads (domain/search/business-views.ts; docs/web.md "Budgets"):
 * GET /v1/businesses/{domain} and /businesses/{domain} are served without reading the listing again
 * while nothing it was drawn from changed, and at every step their JSON is byte for byte the view
 * drawn afresh at the same moment. Writes (a ping, the owner's update, a receipt) show on the next
 * read; the clock alone flips open now at the minute, a member's answering the instant its last ping
 * leaves the window, and its place and why at the hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingRecord } from '../src/domain/listings/listing.js';
import { EVERY_DAY, HOUR, hours, member } from './support/fixtures.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const MINUTE = 60_000;
/** Monday 2026-11-23 10:15 UTC (Lisbon is on UTC in November). */
const START = Date.parse('2026-11-23T10:15:00Z');
/** Open 09:00–10:30 and 11:00–18:00 in Lisbon every day; answered 23 h 50 min ago: it stops answering after 10:25. */
const SHOP = 'corner-shop.example';
const SHOP_PINGED = START - 24 * HOUR + 10 * MINUTE;
/** Answers all along (pinged an hour ago), no hours. */
const DESK = 'help-desk.example';
/** Open all day in Kolkata, closed on its 23 November: that closure is shown until Kolkata's midnight, 18:30 UTC (within an hour). */
const STAND = 'kolkata-stand.example';

async function fetchText(t: TestDirectory, path: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string; text: string }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers });
  return { status: res.status, etag: res.headers.get('etag') ?? '', text: await res.text() };
}

describe('a kept business view', () => {
  let t: TestDirectory;
  /** Listing reads of the store (a kept answer makes none). */
  let listingReads = 0;

  beforeAll(async () => {
    t = await startDirectory({
      clock: new TestClock(START),
      answerWorkers: 0,
      listings: [
        member(SHOP, {
          name: 'Corner Shop',
          hours: hours('Europe/Lisbon', { [EVERY_DAY]: [['09:00', '10:30'], ['11:00', '18:00']] }),
          itemTypes: ['booking', 'message'],
          lastPingAt: SHOP_PINGED,
        }),
        member(DESK, { name: 'Help Desk' }),
        member(STAND, { name: 'Kolkata Stand', hours: hours('Asia/Kolkata', { [EVERY_DAY]: [['00:00', '24:00']] }, [{ from: '2026-11-23', to: '2026-11-23' }]) }),
      ],
    });
    await t.directory.search.hour();
    const listings = t.directory.store.listings;
    const byDomain = listings.byDomain.bind(listings);
    listings.byDomain = async (domain: string) => {
      listingReads++;
      return byDomain(domain);
    };
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The view drawn afresh now, as get_business drew it before views were kept. */
  async function freshJson(domain: string): Promise<string> {
    const search = t.directory.search;
    const nowMs = t.clock.now();
    const record = (await t.directory.store.listings.byDomain(domain)) as ListingRecord;
    const state = await search.current(nowMs);
    const rankPos = state ? state.index.rankPosOf(record.seq) : null;
    return JSON.stringify(search.view(record, state, nowMs, { rankPos, detail: true }));
  }

  /**
   * The JSON and the page now: the JSON is the fresh view's bytes, and reading both again (the
   * clock unmoved) reads no listing and gives the same bytes and tags.
   */
  async function read(domain: string): Promise<{ json: any; text: string; etag: string; pageEtag: string; page: string }> {
    const api = await fetchText(t, `/v1/businesses/${domain}`);
    const page = await fetchText(t, `/businesses/${domain}`);
    expect(api.status).toBe(200);
    expect(page.status).toBe(200);
    expect(api.text).toBe(await freshJson(domain));
    const readsBefore = listingReads;
    const apiAgain = await fetchText(t, `/v1/businesses/${domain}`);
    const pageAgain = await fetchText(t, `/businesses/${domain}`);
    expect(listingReads).toBe(readsBefore);
    expect(apiAgain.text).toBe(api.text);
    expect(apiAgain.etag).toBe(api.etag);
    expect(pageAgain.text).toBe(page.text);
    expect(pageAgain.etag).toBe(page.etag);
    expect((await fetchText(t, `/v1/businesses/${domain}`, { 'if-none-match': api.etag })).status).toBe(304);
    const json = JSON.parse(api.text);
    // The page says what the JSON says.
    expect(page.text).toContain(`<h1>${json.name}`);
    if (json.open_now !== null) expect(page.text).toContain(json.open_now ? 'Open now' : 'Closed now');
    return { json, text: api.text, etag: api.etag, pageEtag: page.etag, page: page.text };
  }

  it('flips open now on the minute the business closes, and the answering of a member the instant its last ping leaves the window', async () => {
    const open = await read(SHOP);
    expect(open.json.open_now).toBe(true);
    expect(open.json.answering).toBe(true);
    expect(open.json.not_answering_since).toBeNull();

    // 10:25:00.000 exactly: the last ping is 24 h old, still inside the window.
    t.clock.advance(SHOP_PINGED + 24 * HOUR - t.clock.now());
    const lastInstant = await read(SHOP);
    expect(lastInstant.json.answering).toBe(true);
    expect(lastInstant.text).toBe(open.text);

    // One millisecond later it no longer answers: its inbox door, level and why say so too.
    t.clock.advance(1);
    const stale = await read(SHOP);
    expect(stale.json.answering).toBe(false);
    expect(stale.json.not_answering_since).toBe(new Date(SHOP_PINGED + 24 * HOUR).toISOString());
    expect(stale.json.doors.find((d: any) => d.type === 'inbox').status).toBe('failing');
    expect(stale.json.why).toContain("Its place was set when this hour's order was made (10:00 UTC)");
    expect(stale.etag).not.toBe(open.etag);
    expect(stale.pageEtag).not.toBe(open.pageEtag);

    // 10:29:59.999 open, 10:30:00.000 closed: on the minute, in the business's zone.
    t.clock.advance(Date.parse('2026-11-23T10:29:59.999Z') - t.clock.now());
    expect((await read(SHOP)).json.open_now).toBe(true);
    t.clock.advance(1);
    const closed = await read(SHOP);
    expect(closed.json.open_now).toBe(false);
    expect(closed.page).toContain('Closed now');
  });

  it('places it anew when the hour turns', async () => {
    t.clock.advance(Date.parse('2026-11-23T10:59:59.999Z') - t.clock.now());
    const late = await read(SHOP);
    expect(late.json.rank_pos).toBeDefined();
    // 11:00: the hour's order is not made yet (no place shown), then made (its place as it is now).
    t.clock.advance(1);
    const between = await read(SHOP);
    expect(between.json.rank_pos).toBeUndefined();
    expect(between.json.open_now).toBe(true);
    await t.directory.search.hour();
    const placed = await read(SHOP);
    const desk = await read(DESK);
    // The shop no longer answers, the desk and the stand do: the new order puts the shop last, and its why no longer explains a stale place.
    expect(desk.json.rank_pos).toBeLessThanOrEqual(2);
    expect(placed.json.rank_pos).toBe(3);
    expect(placed.json.why).not.toContain("Its place was set when this hour's order was made");
    expect(placed.text).not.toBe(late.text);
  });

  it('shows a ping, the owner\'s update and a receipt on the next read', async () => {
    const listings = t.directory.store.listings;
    const before = await read(SHOP);
    expect(before.json.answering).toBe(false);

    // A ping: answering again.
    await listings.recordPing(SHOP, t.clock.now(), { version: '0.4.1', runtime: 'node' });
    const pinged = await read(SHOP);
    expect(pinged.json.answering).toBe(true);
    expect(pinged.json.last_ping_at).toBe(new Date(t.clock.now()).toISOString());
    expect(pinged.json.software.version).toBe('0.4.1');

    // The owner's update (a new name).
    const record = (await listings.byDomain(SHOP)) as ListingRecord;
    const { seq: _seq, ...rest } = record;
    await listings.upsert({ ...rest, name: 'Corner Shop Renamed', updatedAt: t.clock.now() });
    const renamed = await read(SHOP);
    expect(renamed.json.name).toBe('Corner Shop Renamed');
    expect(renamed.page).toContain('Corner Shop Renamed');

    // A receipt published to the network (what the intake writes to the listing).
    await listings.recordTrust(SHOP, { receipts: { issued: 1, acknowledged: 1, customers: 1, lastAt: t.clock.now() } }, t.clock.now());
    const receipted = await read(SHOP);
    expect(receipted.json.receipts).toMatchObject({ issued: 1, acknowledged: 1 });
    expect(receipted.etag).not.toBe(renamed.etag);

    // A write of another listing (a member's ping) leaves it kept: its own listing was not written, its place is the same.
    await listings.recordPing(DESK, t.clock.now(), null);
    const readsBefore = listingReads;
    const again = await fetchText(t, `/v1/businesses/${SHOP}`);
    expect(listingReads).toBe(readsBefore);
    expect(again.text).toBe(receipted.text);
    expect(again.etag).toBe(receipted.etag);
    expect((await read(SHOP)).text).toBe(receipted.text);
  });

  it('hands every caller a frozen view: none can change what the next one gets', async () => {
    const first = await t.directory.businesses.read(SHOP, (listing) => listing as ListingRecord);
    const text = JSON.stringify(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.doors)).toBe(true);
    expect(() => {
      (first as any).name = 'Changed';
    }).toThrow(TypeError);
    expect(() => {
      (first.doors as any[]).push({});
    }).toThrow(TypeError);
    const second = await t.directory.businesses.read(SHOP, (listing) => listing as ListingRecord);
    expect(second).toBe(first);
    expect(JSON.stringify(second)).toBe(text);
    expect((await fetchText(t, `/v1/businesses/${SHOP}`)).text).toBe(text);
  });

  it('leaves out a closure that ended on the minute its local date turns', async () => {
    t.clock.advance(Date.parse('2026-11-23T18:29:59.999Z') - t.clock.now());
    await t.directory.search.hour();
    const closedDay = await read(STAND);
    expect(closedDay.json.hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
    expect(closedDay.json.open_now).toBe(false);
    // 18:30 UTC, the same hour: the 24th in Kolkata.
    t.clock.advance(1);
    const nextDay = await read(STAND);
    expect(nextDay.json.hours.closures).toEqual([]);
    expect(nextDay.json.open_now).toBe(true);
  });

  it('answers the same bytes as a directory started afresh on the same data at the same moment', async () => {
    const fresh = await startDirectory({ clock: t.clock, dataDir: t.dataDir, answerWorkers: 0 });
    try {
      await fresh.directory.search.hour();
      for (const path of [`/v1/businesses/${SHOP}`, `/businesses/${SHOP}`, `/businesses/${SHOP}?lang=pt`, `/v1/businesses/${DESK}`, `/businesses/${DESK}`]) {
        const kept = await fetchText(t, path);
        const drawn = await fetchText(fresh, path);
        expect(kept.status).toBe(200);
        expect(kept.text).toBe(drawn.text);
        expect(kept.etag).toBe(drawn.etag);
      }
      // Another process's write (the second directory's ping) shows on the first one's next read.
      const pingedAt = t.clock.now();
      await fresh.directory.store.listings.recordPing(SHOP, pingedAt, { version: '0.5.0', runtime: 'node' });
      const after = await read(SHOP);
      expect(after.json.software.version).toBe('0.5.0');
      expect(after.json.last_ping_at).toBe(new Date(pingedAt).toISOString());
      expect(after.text).toBe((await fetchText(fresh, `/v1/businesses/${SHOP}`)).text);
    } finally {
      await fresh.close({ removeData: false });
    }
  });

  it('refuses a listing that is not shown each time, never from a kept view', async () => {
    const listings = t.directory.store.listings;
    expect((await fetchText(t, `/v1/businesses/${DESK}`)).status).toBe(200);
    const record = (await listings.byDomain(DESK)) as ListingRecord;
    const { seq: _seq, ...rest } = record;
    await listings.upsert({ ...rest, delistedAt: t.clock.now(), updatedAt: t.clock.now() });
    expect((await fetchText(t, `/v1/businesses/${DESK}`)).status).toBe(404);
    expect((await fetchText(t, `/businesses/${DESK}`)).status).toBe(404);
  });
});
