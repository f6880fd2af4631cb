/**
 * GET /v1/businesses over real HTTP (directory spec §4 search, §7 errors, §8 limits, §9 rules 7):
 * every parameter, its bounds and refusals, the hourly order under rules 6 and 7, cursors, ETags,
 * and the two kinds of business kept apart.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownGeo, type Hours, type Weekday } from '../src/domain/listings/listing.js';
import { isListed } from '../src/domain/listings/regulated.js';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import {
  AFTER_RULES_7,
  DAY,
  EVERY_DAY,
  HOUR,
  MONDAY,
  domainsOf,
  door,
  hours,
  listing,
  member,
  shuffleKey,
  type Fixture,
} from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';

/* ---------------------------------------------------------------------------------------------- */
/* helpers                                                                                          */

function path(params: Record<string, string | number | boolean> = {}): string {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return query ? `/v1/businesses?${query}` : '/v1/businesses';
}

function expectProblem(r: ApiResponse, status: number, code?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status }));
  if (code) expect(r.body.code).toBe(code);
}

/** Every page of a search, following next_cursor; fails on a page that is not 200. */
async function walk(t: TestDirectory, params: Record<string, string | number | boolean>): Promise<{ listings: any[]; pages: number }> {
  const listings: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: ApiResponse = await t.get(path({ ...params, ...(cursor ? { cursor } : {}) }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.businesses.length).toBeLessThanOrEqual(Number(params.limit ?? 20));
    listings.push(...r.body.businesses);
    cursor = r.body.next_cursor;
    pages++;
    expect(pages).toBeLessThan(500);
  } while (cursor !== null);
  return { listings, pages };
}

const haversineKm = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
};

/** Listed as the directory lists: not gone, not set aside, not a non-member in a regulated category. */
const shown = (f: Fixture) => isListed(f);
const answeringAt = (f: Fixture, hourStart: number) => f.source === 'member' && f.lastPingAt !== null && f.lastPingAt >= hourStart - 24 * HOUR;
const LEVEL_RANK = { listed: 0, readable: 1, askable: 2, bookable: 3, payable: 4 } as const;
const levelOf = (f: Fixture) => Math.max(0, ...f.doors.filter((d) => d.status === 'live').map((d) => LEVEL_RANK[d.level]));
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Rules 6 as published: members first, answering members first, then the day's shuffle, then id. */
function orderV6(fixtures: Fixture[], atMs: number): string[] {
  const hourStart = Math.floor(atMs / HOUR) * HOUR;
  return fixtures
    .filter(shown)
    .sort(
      (a, b) =>
        Number(b.source === 'member') - Number(a.source === 'member') ||
        Number(answeringAt(b, hourStart)) - Number(answeringAt(a, hourStart)) ||
        cmp(shuffleKey(hourStart, a.id), shuffleKey(hourStart, b.id)) ||
        cmp(a.id, b.id),
    )
    .map((f) => f.domain);
}

/** Rules 7 as published: reachable now, then through a live agent door (higher level first), then the rest; shuffle; members; id. */
function orderV7(fixtures: Fixture[], atMs: number): string[] {
  const hourStart = Math.floor(atMs / HOUR) * HOUR;
  const reach = (f: Fixture) =>
    answeringAt(f, hourStart) ? 1 : f.doors.some((d) => d.status === 'live' && d.type !== 'inbox' && LEVEL_RANK[d.level] >= 2) ? 2 : 3;
  return fixtures
    .filter(shown)
    .sort(
      (a, b) =>
        reach(a) - reach(b) ||
        (reach(a) === 2 ? levelOf(b) - levelOf(a) : 0) ||
        cmp(shuffleKey(hourStart, a.id), shuffleKey(hourStart, b.id)) ||
        Number(b.source === 'member') - Number(a.source === 'member') ||
        cmp(a.id, b.id),
    )
    .map((f) => f.domain);
}

/* ---------------------------------------------------------------------------------------------- */
/* the hand-made directory                                                                          */

const LISBON = { lat: 38.7223, lng: -9.1393 };

/** Local and software businesses, each built to be told apart by one or two parameters. */
function handMade(nowMs: number): Fixture[] {
  return [
    member(
      'cafe-central.example',
      {
        name: 'Café Central',
        city: 'Lisboa',
        country: 'PT',
        address: { street: 'Rua Augusta 1', locality: 'Lisboa', postalCode: '1100-048', country: 'PT' },
        geo: LISBON,
        categories: ['cafe'],
        placeCategory: { id: 'amenity.cafe.coffee_shop', label: 'Coffeehouse', src: 'declared' },
        tags: ['brunch'],
        languages: ['pt', 'en'],
        itemTypes: ['booking', 'message'],
        hours: hours('Europe/Lisbon', { 'mon-sat': [['08:00', '20:00']] }),
        services: [{ name: 'Pequeno-almoço completo', type: 'booking' }],
        priceBand: 1,
        attributes: { wifi: { v: true, src: 'declared' }, outdoor_seating: { v: true, src: 'declared' } },
        payments: ['mb_way', 'card'],
      },
      nowMs,
    ),
    member(
      'salao-bela.example',
      {
        name: 'Salão Bela Vista',
        city: 'São Paulo',
        country: 'BR',
        geo: { lat: -23.5505, lng: -46.6333 },
        categories: ['hair-beauty'],
        placeCategory: { id: 'shop.hairdresser.barber', label: 'Barber', src: 'declared' },
        languages: ['pt-br'],
        itemTypes: ['booking'],
        hours: hours('America/Sao_Paulo', { 'mon-fri': [['09:00', '19:00']] }),
        services: [{ name: 'Corte clássico', type: 'booking' }],
        priceBand: 2,
        attributes: { wifi: { v: false, src: 'declared' } },
        payments: ['pix'],
      },
      nowMs,
    ),
    member(
      'padaria-porto.example',
      {
        name: 'Padaria do Porto',
        description: 'Sourdough and pastries baked daily',
        city: 'Porto',
        country: 'PT',
        geo: { lat: 41.1579, lng: -8.6291 },
        categories: ['bakery'],
        placeCategory: { id: 'shop.bakery', label: 'Bakery', src: 'declared' },
        tags: ['pastel-de-nata'],
        languages: ['pt'],
        itemTypes: ['order', 'message'],
        priceBand: 1,
        payments: ['cash'],
        lastPingAt: nowMs - 3 * DAY,
      },
      nowMs,
    ),
    listing(
      'kaffeehaus.example',
      {
        name: 'Kaffeehaus Mitte',
        city: 'Berlin',
        country: 'DE',
        geo: { lat: 52.52, lng: 13.405 },
        categories: ['cafe'],
        placeCategory: { id: 'amenity.cafe', label: 'Cafe', src: 'seen' },
        languages: ['de'],
        hours: hours('Europe/Berlin', { [EVERY_DAY]: [['07:00', '19:00']] }),
        doors: [door('mcp', 'askable', ['ask'], { src: 'seen' })],
        priceBand: 2,
        attributes: { wifi: { v: true, src: 'seen' } },
        payments: ['card', 'paypal'],
        place: { kind: ['storefront'], locality: 'Berlin', country: 'DE' },
      },
      nowMs,
    ),
    listing(
      'rapid-plumbing.example',
      {
        source: 'registered',
        name: 'Rapid Plumbing',
        city: 'London',
        country: 'GB',
        geo: { lat: 51.5074, lng: -0.1278 },
        categories: ['trades'],
        placeCategory: { id: 'craft.plumber', label: 'Plumber', src: 'declared' },
        languages: ['en-gb'],
        itemTypes: ['quote_request'],
        doors: [door('openapi', 'bookable', ['book', 'quote'])],
        priceBand: 3,
        attributes: { emergency_service: { v: true, src: 'declared' } },
        payments: ['bank_transfer'],
        place: { kind: ['service_area'], locality: 'London', country: 'GB', serviceArea: { radiusKm: 50, countries: ['GB', 'IE'] } },
      },
      nowMs,
    ),
    listing(
      'ceramica-online.example',
      {
        name: 'Cerâmica Online',
        city: 'Caldas da Rainha',
        country: 'PT',
        categories: ['crafts'],
        languages: ['pt', 'en'],
        doors: [door('platform:shopify', 'payable', ['order', 'pay'])],
        priceBand: 4,
        payments: ['paypal', 'x402'],
        place: { kind: ['online'], country: 'PT', shipsTo: ['ES', 'FR'] },
      },
      nowMs,
    ),
    listing(
      'quiet-books.example',
      {
        name: 'Quiet Books',
        city: 'Lisboa',
        country: 'PT',
        geo: { lat: 38.71, lng: -9.14 },
        categories: ['shop'],
        languages: ['en'],
        hours: hours('Europe/Lisbon', { 'mon-fri': [['10:00', '18:00']] }),
      },
      nowMs,
    ),
    listing(
      'reader-site.example',
      {
        name: 'Reader Site',
        city: 'Madrid',
        country: 'ES',
        geo: { lat: 40.4168, lng: -3.7038 },
        categories: ['shop'],
        languages: ['es'],
        doors: [door('nlweb', 'readable'), door('a2a', 'askable', ['quote'], { status: 'failing' })],
      },
      nowMs,
    ),
    listing(
      'wedding-planner.example',
      {
        source: 'registered',
        name: 'Wedding Planner Lisboa',
        city: 'Sintra',
        country: 'PT',
        geo: { lat: 38.8029, lng: -9.3817 },
        categories: ['events'],
        tags: ['casamentos'],
        languages: ['pt', 'en'],
        doors: [door('a2a', 'askable', ['ask', 'quote'])],
      },
      nowMs,
    ),
    listing(
      'pastry-planner.example',
      {
        source: 'registered',
        kind: 'software_and_ai',
        name: 'Pastry Planner',
        description: 'Scheduling software for bakeries',
        country: 'PT',
        geo: LISBON,
        categories: ['software-ai'],
        placeCategory: { id: 'software_and_ai.saas', label: 'Software as a service', src: 'declared' },
        languages: ['en', 'pt'],
        doors: [door('api', 'askable', ['ask'])],
      },
      nowMs,
    ),
    listing(
      'ledger-cloud.example',
      {
        kind: 'software_and_ai',
        name: 'Ledger Cloud',
        description: 'Invoicing for small firms',
        country: 'DE',
        categories: ['software-ai'],
        placeCategory: { id: 'software_and_ai.developer_tools', label: 'Developer tools and APIs', src: 'seen' },
        languages: ['en'],
        doors: [door('mcp', 'askable', ['ask'])],
      },
      nowMs,
    ),
    listing('cafe-gone.example', { name: 'Café Gone', city: 'Lisboa', categories: ['cafe'], geo: LISBON, delistedAt: nowMs - 2 * DAY }, nowMs),
    member('cafe-asleep.example', { name: 'Café Asleep', city: 'Lisboa', categories: ['cafe'], geo: LISBON, dormantSince: nowMs - 9 * DAY, lastPingAt: nowMs - 12 * DAY }, nowMs),
  ];
}

const CAFE = 'cafe-central.example';
const SALAO = 'salao-bela.example';
const PADARIA = 'padaria-porto.example';
const KAFFEE = 'kaffeehaus.example';
const PLUMBER = 'rapid-plumbing.example';
const CERAMICA = 'ceramica-online.example';
const BOOKS = 'quiet-books.example';
const READER = 'reader-site.example';
const WEDDING = 'wedding-planner.example';
const PASTRY = 'pastry-planner.example';
const LEDGER = 'ledger-cloud.example';
const LOCAL = [CAFE, SALAO, PADARIA, KAFFEE, PLUMBER, CERAMICA, BOOKS, READER, WEDDING];
const SOFTWARE = [PASTRY, LEDGER];

describe('GET /v1/businesses under rules 6 (Monday 2026-11-23 10:15Z)', () => {
  let t: TestDirectory;
  const fixtures = handMade(MONDAY);
  beforeAll(async () => {
    t = await startDirectory({ listings: fixtures });
    await t.directory.search.hour();
  });
  afterAll(() => t.close());

  /** Runs a search and checks it found exactly these businesses, in ascending rank_pos. */
  async function expectFound(params: Record<string, string | number | boolean>, expected: string[]): Promise<any[]> {
    const r = await t.get(path({ limit: 100, ...params }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect([...domainsOf(r.body)].sort(), JSON.stringify(params)).toEqual([...expected].sort());
    const positions = r.body.businesses.map((b: any) => b.rank_pos);
    expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
    expect(r.body.next_cursor).toBeNull();
    return r.body.businesses;
  }

  describe('the order and the listing shape', () => {
    it('lists every local business once, in the published rules-6 order, members before every non-member', async () => {
      const r = await t.get(path({ limit: 100 }));
      expect(r.status).toBe(200);
      expect(r.headers.get('etag')).toMatch(/^"[^"]+"$/);
      const expected = orderV6(fixtures, MONDAY).filter((d) => LOCAL.includes(d));
      expect(domainsOf(r.body)).toEqual(expected);
      const sources = r.body.businesses.map((b: any) => b.source);
      expect(sources.lastIndexOf('member')).toBeLessThan(sources.indexOf('found'));
      expect(sources.lastIndexOf('member')).toBeLessThan(sources.indexOf('registered'));
      // the answering members come before the one whose inbox has not answered in a day
      expect(domainsOf(r.body).indexOf(PADARIA)).toBe(2);
    });

    it('gives rank_pos from 1 over the whole order, a 16-hex rank_shuffle string and a why', async () => {
      const r = await t.get(path({ limit: 100, category: 'software-ai' }));
      const local = await t.get(path({ limit: 100 }));
      const all = [...local.body.businesses, ...r.body.businesses];
      const positions = all.map((b: any) => b.rank_pos).sort((a: number, b: number) => a - b);
      expect(positions).toEqual(Array.from({ length: LOCAL.length + SOFTWARE.length }, (_, i) => i + 1));
      const hourStart = Math.floor(MONDAY / HOUR) * HOUR;
      for (const b of all) {
        expect(typeof b.rank_shuffle).toBe('string');
        expect(b.rank_shuffle).toMatch(/^[0-9a-f]{16}$/);
        expect(b.rank_shuffle).toBe(shuffleKey(hourStart, fixtures.find((f) => f.domain === b.domain)!.id));
        expect(b.why).toEqual(expect.stringContaining(`Place ${b.rank_pos} `));
      }
      const found = all.find((b: any) => b.domain === KAFFEE);
      expect(found.why).toMatch(/not a member/i);
    });

    it('shows each listing with the documented fields and no single-business extras', async () => {
      const [cafe] = await expectFound({ q: 'cafe central' }, [CAFE]);
      expect(cafe).toMatchObject({
        domain: CAFE,
        name: 'Café Central',
        city: 'Lisboa',
        country: 'PT',
        categories: ['cafe'],
        languages: ['pt', 'en'],
        item_types: ['booking', 'message'],
        open_now: true,
        answering: true,
        online: true,
        not_answering_since: null,
        source: 'member',
        level: 'bookable',
        has_inbox: true,
        requestable: ['ask'],
        category: { primary: { id: 'amenity.cafe.coffee_shop' }, path: ['cafe', 'amenity.cafe', 'amenity.cafe.coffee_shop'], group: 'cafe' },
      });
      expect(cafe.receipts).toEqual({ issued: 0, acknowledged: 0 });
      expect(cafe).not.toHaveProperty('outcomes');
      expect(cafe).not.toHaveProperty('facts');
      expect(cafe).not.toHaveProperty('distance_km');
      const [padaria] = await expectFound({ q: 'padaria' }, [PADARIA]);
      expect(padaria.answering).toBe(false);
      expect(padaria.not_answering_since).toBe(new Date(MONDAY - 3 * DAY + 24 * HOUR).toISOString());
      expect(padaria.open_now).toBeNull();
    });

    it('answers the same page with the same ETag, and 304 to If-None-Match', async () => {
      const first = await t.get(path({ q: 'cafe' }));
      const etag = first.headers.get('etag')!;
      expect(etag).toBeTruthy();
      const again = await t.get(path({ q: 'cafe' }));
      expect(again.headers.get('etag')).toBe(etag);
      const cached = await t.get(path({ q: 'cafe' }), { 'if-none-match': etag });
      expect(cached.status).toBe(304);
      expect(cached.body).toBe('');
      expect((await t.get(path({ q: 'cafe' }), { 'if-none-match': `W/${etag}` })).status).toBe(304);
      expect((await t.get(path({ q: 'cafe' }), { 'if-none-match': '"something-else"' })).status).toBe(200);
      const other = await t.get(path({ q: 'padaria' }), { 'if-none-match': etag });
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).not.toBe(etag);
      expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    });
  });

  describe('q', () => {
    it.each([
      ['cafe', [CAFE, KAFFEE]],
      ['CAFÉ', [CAFE, KAFFEE]],
      ['Café', [CAFE, KAFFEE]],
      ['cafe lisboa', [CAFE]],
      ['sao paulo', [SALAO]],
      ['SÃO PAULO', [SALAO]],
      ['salao', [SALAO]],
      ['berlin', [KAFFEE]],
      ['sourdough', [PADARIA]],
      ['nata', [PADARIA]],
      ['almoco', [CAFE]],
      ['classico', [SALAO]],
      ['cabeleireiro', [SALAO]],
      ['coffeehouse', [CAFE]],
      ['lisboa', [CAFE, BOOKS, WEDDING]],
      ['cafe porto', []],
    ])('q=%s finds every business holding every word in name, city, description, categories, tags or services', async (q, expected) => {
      await expectFound({ q }, expected);
    });

    it.each([
      ['cafe in lisboa', [CAFE]],
      ['the cafe near lisboa', [CAFE]],
      ['o café em lisboa', [CAFE]],
      ['café perto de lisboa', [CAFE]],
      ['x cafe l lisboa', [CAFE]],
    ])('drops one-letter and filler words (English and Portuguese): q=%s', async (q, expected) => {
      await expectFound({ q }, expected);
    });

    it('takes up to 80 characters, however many words they hold', async () => {
      const q = 'cafe central lisboa pequeno almoco completo latte tea brew drip cocoa';
      expect(q.length).toBeLessThanOrEqual(80);
      await expectFound({ q }, [CAFE]);
      await expectFound({ q: `${'cafe '.repeat(15)}cafe`.padEnd(80, ' ') }, [CAFE, KAFFEE]);
    });

    it.each([['a'], ['the and in'], ['de em perto o'], ['a e o'], ['   '], ['!!! ??'], ['x'.repeat(81)]])('refuses q=%j with 400', async (q) => {
      expectProblem(await t.get(path({ q })), 400, 'bad_request');
    });
  });

  describe('software and AI businesses kept apart', () => {
    it('never appear in a local search: no parameters, near, country or a word of their description', async () => {
      await expectFound({}, LOCAL);
      await expectFound({ near: `${LISBON.lat},${LISBON.lng}` }, [CAFE, BOOKS]);
      await expectFound({ country: 'DE' }, [KAFFEE]);
      await expectFound({ q: 'invoicing' }, []);
      await expectFound({ q: 'scheduling' }, []);
      // PADARIA's inbox has not answered for three days: its own inbox is no live door, so it is below askable
      await expectFound({ level: 'askable' }, [CAFE, SALAO, KAFFEE, PLUMBER, CERAMICA, WEDDING]);
    });

    it('appear alone when category names the group or one of its categories', async () => {
      await expectFound({ category: 'software-ai' }, SOFTWARE);
      await expectFound({ category: 'Software e IA' }, SOFTWARE);
      await expectFound({ category: 'software_and_ai' }, SOFTWARE);
      await expectFound({ category: 'software_and_ai.saas' }, [PASTRY]);
      await expectFound({ category: 'software-ai', country: 'PT' }, [PASTRY]);
    });

    it('appear alone when q names their kind (saas, ai agents)', async () => {
      await expectFound({ q: 'saas' }, SOFTWARE);
      await expectFound({ q: 'ai agents' }, SOFTWARE);
      await expectFound({ q: 'saas invoicing' }, [LEDGER]);
      await expectFound({ q: 'saas lisboa' }, []);
    });

    it('appear in a local search only when every word of q is in their name', async () => {
      await expectFound({ q: 'planner' }, [WEDDING, PASTRY]);
      await expectFound({ q: 'pastry planner' }, [PASTRY]);
      await expectFound({ q: 'ledger' }, [LEDGER]);
      await expectFound({ q: 'ledger invoicing' }, []);
    });
  });

  describe('near and radius_km', () => {
    it('keeps businesses within 10 km by default, each with its distance_km', async () => {
      const found = await expectFound({ near: '38.7223,-9.1393' }, [CAFE, BOOKS]);
      for (const b of found) {
        const f = fixtures.find((x) => x.domain === b.domain)!;
        expect(b.distance_km).toBeGreaterThanOrEqual(0);
        expect(b.distance_km).toBeCloseTo(haversineKm(38.7223, -9.1393, f.geo!.lat, f.geo!.lng), 2);
      }
      expect(found.find((b) => b.domain === CAFE).distance_km).toBe(0);
    });

    it.each([
      [5, [CAFE, BOOKS]],
      [25, [CAFE, BOOKS, WEDDING]],
      [400, [CAFE, BOOKS, WEDDING, PADARIA]],
      [1000, [CAFE, BOOKS, WEDDING, PADARIA, READER]],
      [0.5, [CAFE]],
    ])('radius_km=%s', async (radius, expected) => {
      const found = await expectFound({ near: '38.7223,-9.1393', radius_km: radius }, expected);
      for (const b of found) expect(b.distance_km).toBeLessThanOrEqual(radius);
    });

    it('reads negative and whole-number coordinates', async () => {
      await expectFound({ near: '-23.5505,-46.6333', radius_km: 1 }, [SALAO]);
      await expectFound({ near: '52,13', radius_km: 100 }, [KAFFEE]);
    });

    it.each([['0'], ['-1'], ['1000.5'], ['1001'], ['abc'], ['']])('refuses radius_km=%j', async (radius) => {
      expectProblem(await t.get(path({ near: '38.72,-9.14', radius_km: radius })), 400, 'bad_request');
    });

    it('refuses radius_km without near', async () => {
      expectProblem(await t.get(path({ radius_km: 5 })), 400, 'bad_request');
    });

    it.each([['abc'], ['38.72'], ['38.72,'], ['91,0'], ['0,181'], ['38.72,-9.14,3'], ['38.72;-9.14'], ['38.72, -9.14'], ['1e1,2'], ['+38.7,-9.1'], ['']])(
      'refuses near=%j',
      async (near) => {
        expectProblem(await t.get(path({ near })), 400, 'bad_request');
      },
    );
  });

  describe('category', () => {
    it.each([
      ['cafe', [CAFE, KAFFEE]],
      ['CAFÉS', [CAFE, KAFFEE]],
      ['amenity.cafe', [CAFE, KAFFEE]],
      ['amenity.cafe.coffee_shop', [CAFE]],
      ['Cafetaria', [CAFE]],
      ['Coffeehouse', [CAFE]],
      ['hair-beauty', [SALAO]],
      ['Cabeleireiro', [SALAO]],
      ['hairdresser', [SALAO]],
      ['barbearia', [SALAO]],
      ['shop.hairdresser.barber', [SALAO]],
      ['Padarias', [PADARIA]],
      ['craft.plumber', [PLUMBER]],
      ['trades', [PLUMBER]],
      ['amenity.restaurant', []],
    ])('category=%s finds the group or the place category with every category below it', async (category, expected) => {
      await expectFound({ category }, expected);
    });

    it('matches tags with a category that names nothing under rules 6', async () => {
      await expectFound({ category: 'pastel-de-nata' }, [PADARIA]);
      await expectFound({ category: 'Pastel de Nata' }, [PADARIA]);
      await expectFound({ category: 'casamentos' }, [WEDDING]);
      await expectFound({ category: 'zzqx-nothing' }, []);
    });

    it.each([[''], ['x'.repeat(121)]])('refuses category=%j', async (category) => {
      expectProblem(await t.get(path({ category })), 400, 'bad_request');
    });
  });

  describe('item_type, language', () => {
    it.each([
      ['booking', [CAFE, SALAO]],
      ['order', [PADARIA]],
      ['quote_request', [PLUMBER]],
      ['message', [CAFE, PADARIA]],
      ['refund', []],
    ])('item_type=%s', async (itemType, expected) => {
      await expectFound({ item_type: itemType }, expected);
    });

    it('refuses an unknown item_type', async () => {
      expectProblem(await t.get(path({ item_type: 'haircut' })), 400, 'bad_request');
    });

    it.each([
      ['pt', [CAFE, SALAO, PADARIA, CERAMICA, WEDDING]],
      ['PT', [CAFE, SALAO, PADARIA, CERAMICA, WEDDING]],
      ['pt-br', [SALAO]],
      ['pt-BR', [SALAO]],
      ['pt-pt', []],
      ['en', [CAFE, PLUMBER, CERAMICA, BOOKS, WEDDING]],
      ['en-gb', [PLUMBER]],
      ['de', [KAFFEE]],
      ['fil', []],
    ])('language=%s keeps the businesses that speak it or a variant of it', async (language, expected) => {
      await expectFound({ language }, expected);
    });

    it.each([['p'], ['port'], ['pt_BR'], ['pt-'], ['12'], ['pt-br-xxxxxx1']])('refuses language=%j', async (language) => {
      expectProblem(await t.get(path({ language })), 400, 'bad_request');
    });
  });

  describe('attributes, country, price_band', () => {
    it.each([
      ['wifi', [CAFE, KAFFEE]],
      ['wifi=true', [CAFE, KAFFEE]],
      ['wifi=false', [SALAO]],
      ['wifi,outdoor_seating', [CAFE]],
      ['outdoor_seating, wifi', [CAFE]],
      ['emergency_service', [PLUMBER]],
      ['delivery', []],
    ])('attributes=%s: every key must hold', async (attributes, expected) => {
      await expectFound({ attributes }, expected);
    });

    it.each([
      ['jacuzzi'],
      ['wifi=maybe'],
      ['halal'],
      ['cert=b_corp'],
      [','],
      ['wifi,parking,delivery,takeaway,pickup,remote,walk_ins,same_day,open_late,restroom,kids_area'],
      [`wifi,${'x'.repeat(620)}`],
    ])('refuses attributes=%j', async (attributes) => {
      expectProblem(await t.get(path({ attributes })), 400, 'bad_request');
    });

    it.each([
      ['PT', [CAFE, PADARIA, CERAMICA, BOOKS, WEDDING]],
      ['pt', [CAFE, PADARIA, CERAMICA, BOOKS, WEDDING]],
      ['ES', [CERAMICA, READER]],
      ['FR', [CERAMICA]],
      ['IE', [PLUMBER]],
      ['GB', [PLUMBER]],
      ['US', []],
    ])('country=%s keeps businesses located in, serving or shipping to it', async (country, expected) => {
      await expectFound({ country }, expected);
    });

    it.each([['PRT'], ['P'], ['1A'], ['P1']])('refuses country=%j', async (country) => {
      expectProblem(await t.get(path({ country })), 400, 'bad_request');
    });

    it.each([
      ['1', [CAFE, PADARIA]],
      ['2', [SALAO, KAFFEE]],
      ['1-2', [CAFE, SALAO, PADARIA, KAFFEE]],
      ['3-4', [PLUMBER, CERAMICA]],
      ['1-4', [CAFE, SALAO, PADARIA, KAFFEE, PLUMBER, CERAMICA]],
      ['4-4', [CERAMICA]],
    ])('price_band=%s', async (priceBand, expected) => {
      await expectFound({ price_band: priceBand }, expected);
    });

    it.each([['0'], ['5'], ['2-1'], ['1-5'], ['cheap'], ['1-'], ['12'], ['1,2']])('refuses price_band=%j', async (priceBand) => {
      expectProblem(await t.get(path({ price_band: priceBand })), 400, 'bad_request');
    });
  });

  describe('accepts, requestable, door_type, level, has_inbox, source', () => {
    it.each([
      ['book', [CAFE, SALAO, PLUMBER]],
      ['quote', [PLUMBER, WEDDING]],
      // PADARIA's own inbox takes orders, but it has not answered for three days: not a live door now
      ['order', [CERAMICA]],
      ['pay', [CERAMICA]],
      ['paypal', [KAFFEE, CERAMICA]],
      ['x402', [CERAMICA]],
      ['book,card', [CAFE]],
      ['ask,quote', [WEDDING]],
      ['bizum', []],
    ])('accepts=%s: every kind and payment must hold (live doors only)', async (accepts, expected) => {
      await expectFound({ accepts }, expected);
    });

    it.each([['teleport'], ['ask,ask,ask,ask,ask,ask,ask,ask,ask'], [','], [`ask,${'x'.repeat(330)}`]])('refuses accepts=%j', async (accepts) => {
      expectProblem(await t.get(path({ accepts })), 400, 'bad_request');
    });

    it.each([
      ['ask', [CAFE, KAFFEE, WEDDING]],
      ['quote', [PLUMBER, WEDDING]],
    ])('requestable=%s: a live door declared it answers this kind', async (requestable, expected) => {
      await expectFound({ requestable }, expected);
    });

    it('refuses requestable=book', async () => {
      expectProblem(await t.get(path({ requestable: 'book' })), 400, 'bad_request');
    });

    it.each([
      ['mcp', [KAFFEE]],
      ['inbox', [CAFE, SALAO]],
      ['platform', [CERAMICA]],
      ['platform:shopify', [CERAMICA]],
      ['platform:wix', []],
      ['a2a', [WEDDING]],
      ['nlweb', [READER]],
      ['openapi,mcp', [PLUMBER, KAFFEE]],
      ['api', []],
    ])('door_type=%s: a live door of any of them', async (doorType, expected) => {
      await expectFound({ door_type: doorType }, expected);
    });

    it.each([['fax'], ['webmcp'], ['platform:Bad_Name'], ['platform:'], ['mcp,a2a,api,ucp,acp,nlweb'], [`mcp,${'x'.repeat(250)}`]])('refuses door_type=%j', async (doorType) => {
      expectProblem(await t.get(path({ door_type: doorType })), 400, 'bad_request');
    });

    it.each([
      ['askable', [CAFE, SALAO, KAFFEE, PLUMBER, CERAMICA, WEDDING]],
      ['bookable', [CAFE, SALAO, PLUMBER, CERAMICA]],
      ['orderable', [CAFE, SALAO, PLUMBER, CERAMICA]],
      ['payable', [CERAMICA]],
      ['listed', []],
      ['readable', []],
    ])('level=%s: at this level or above (orderable = bookable; below askable an empty page)', async (level, expected) => {
      await expectFound({ level }, expected);
    });

    it('refuses an unknown level', async () => {
      expectProblem(await t.get(path({ level: 'superb' })), 400, 'bad_request');
    });

    it.each([
      ['true', [CAFE, SALAO]],
      ['false', [PADARIA, KAFFEE, PLUMBER, CERAMICA, BOOKS, READER, WEDDING]],
    ])('has_inbox=%s', async (hasInbox, expected) => {
      await expectFound({ has_inbox: hasInbox }, expected);
    });

    it('refuses has_inbox=maybe and open_now=yes', async () => {
      expectProblem(await t.get(path({ has_inbox: 'maybe' })), 400, 'bad_request');
      expectProblem(await t.get(path({ open_now: 'yes' })), 400, 'bad_request');
    });

    it.each([
      ['member', [CAFE, SALAO, PADARIA]],
      ['found', [KAFFEE, CERAMICA, BOOKS, READER]],
      ['registered', [PLUMBER, WEDDING]],
      ['found,registered', [KAFFEE, CERAMICA, BOOKS, READER, PLUMBER, WEDDING]],
      ['member,found,registered', LOCAL],
    ])('source=%s', async (source, expected) => {
      await expectFound({ source }, expected);
    });

    it.each([['bogus'], ['member,bogus'], [`member,${'x'.repeat(40)}`]])('refuses source=%j', async (source) => {
      expectProblem(await t.get(path({ source })), 400, 'bad_request');
    });
  });

  describe('order, limit and cursors', () => {
    it('refuses order=nearest before rules 7, and an unknown order', async () => {
      const r = await t.get(path({ near: '38.72,-9.14', order: 'nearest' }));
      expectProblem(r, 400, 'bad_request');
      expect(r.body.detail).toMatch(/rules 7/);
      expectProblem(await t.get(path({ order: 'best' })), 400, 'bad_request');
      await expectFound({ order: 'rank', q: 'cafe' }, [CAFE, KAFFEE]);
    });

    it.each([['0'], ['101'], ['-1'], ['1.5'], ['abc'], ['']])('refuses limit=%j', async (limit) => {
      expectProblem(await t.get(path({ limit })), 400, 'bad_request');
    });

    it('pages 20 by default, up to 100, and down to 1', async () => {
      const one = await t.get(path({ limit: 1 }));
      expect(one.body.businesses).toHaveLength(1);
      expect(typeof one.body.next_cursor).toBe('string');
      const hundred = await t.get(path({ limit: 100 }));
      expect(hundred.body.businesses).toHaveLength(LOCAL.length);
      expect(hundred.body.next_cursor).toBeNull();
    });

    it('walks every match exactly once, in order, whatever the page size', async () => {
      const expected = orderV6(fixtures, MONDAY).filter((d) => LOCAL.includes(d));
      for (const limit of [1, 2, 4, 8, 9]) {
        const { listings, pages } = await walk(t, { limit });
        expect(listings.map((b) => b.domain)).toEqual(expected);
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
      }
      const filtered = await walk(t, { limit: 1, level: 'askable', language: 'pt' });
      expect(filtered.listings.map((b) => b.domain)).toEqual(expected.filter((d) => [CAFE, SALAO, CERAMICA, WEDDING].includes(d)));
    });

    it('answers 410 cursor_expired to a cursor of another search, and 400 to one that is not ours', async () => {
      const page = await t.get(path({ limit: 1, q: 'cafe' }));
      const cursor = page.body.next_cursor;
      expect(cursor).toEqual(expect.any(String));
      expect((await t.get(path({ limit: 1, q: 'cafe', cursor }))).status).toBe(200);
      // the page size is not part of the search
      expect((await t.get(path({ limit: 5, q: 'cafe', cursor }))).status).toBe(200);
      expectProblem(await t.get(path({ limit: 1, q: 'lisboa', cursor })), 410, 'cursor_expired');
      expectProblem(await t.get(path({ limit: 1, cursor })), 410, 'cursor_expired');
      expectProblem(await t.get(path({ limit: 1, q: 'cafe', open_now: true, cursor })), 410, 'cursor_expired');
      for (const junk of ['junk', 'eyJ2IjoxfQ', Buffer.from('{"v":1,"h":"x","s":1,"a":0}').toString('base64url'), '%%%']) {
        expectProblem(await t.get(path({ q: 'cafe', cursor: junk })), 400, 'bad_request');
      }
      expectProblem(await t.get(path({ q: 'cafe', cursor: 'a'.repeat(513) })), 400, 'bad_request');
    });
  });
});

describe('q words: folding like the index, and words that only sound like software', () => {
  let t: TestDirectory;
  beforeAll(async () => {
    t = await startDirectory({
      listings: [
        listing('sol-travel.example', { name: 'Sol Travel', city: 'Faro', categories: ['tours'], tags: ['travel agent'] }),
        listing('prime-estate.example', { name: 'Prime Estate Agents', city: 'Faro', categories: ['consulting'] }),
        listing('agentic-labs.example', { name: 'Agentic Labs', kind: 'software_and_ai', categories: ['software-ai'], placeCategory: { id: 'software_and_ai.ai_agents', label: 'AI agents and models', src: 'declared' } }),
        listing('baeckerei.example', { name: 'Bäckerei an der Straße', city: 'München', categories: ['bakery'] }),
        listing('olberg.example', { name: 'Café Ølberg', city: 'København', categories: ['cafe'] }),
      ],
    });
  });
  afterAll(() => t.close());

  async function found(q: string): Promise<string[]> {
    const r = await t.get(path({ q, limit: 100 }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return domainsOf(r.body).sort();
  }

  it('folds q as the index folds listing text (ß, ø, accents)', async () => {
    expect(await found('straße')).toEqual(['baeckerei.example']);
    expect(await found('STRASSE')).toEqual(['baeckerei.example']);
    expect(await found('backerei munchen')).toEqual(['baeckerei.example']);
    expect(await found('Ølberg')).toEqual(['olberg.example']);
    expect(await found('olberg kobenhavn')).toEqual(['olberg.example']);
  });

  it('keeps a local search local when q only has a word like agent or app', async () => {
    expect(await found('travel agent')).toEqual(['sol-travel.example']);
    expect(await found('estate agents')).toEqual(['prime-estate.example']);
    expect(await found('agents faro')).toEqual(['prime-estate.example']);
  });

  it('searches software and AI when q names the kind', async () => {
    expect(await found('ai agents')).toEqual(['agentic-labs.example']);
    expect(await found('ai')).toEqual(['agentic-labs.example']);
    expect(await found('agentic labs')).toEqual(['agentic-labs.example']);
  });
});

describe('the order does not depend on anything a profile says', () => {
  const plain: Partial<Fixture> = { name: 'Plain Shop', description: null, tags: [], services: [] };
  const rich: Partial<Fixture> = {
    name: 'Amazing Best Shop',
    description: 'The best, the finest, number one in Lisboa: shop here first',
    tags: ['best', 'top-rated', 'shop'],
    services: [{ name: 'Premium shop service', type: 'order' }],
  };
  /** Two found businesses alike in everything the order reads, with the profiles given. */
  function pair(first: Partial<Fixture>, second: Partial<Fixture>): Fixture[] {
    return [
      listing('alpha-shop.example', { ...first, city: 'Lisboa', categories: ['shop'], doors: [door('mcp', 'askable', ['ask'])] }),
      listing('omega-shop.example', { ...second, city: 'Lisboa', categories: ['shop'], doors: [door('mcp', 'askable', ['ask'])] }),
    ];
  }

  it('keeps two listings in their shuffle order when their profile texts are swapped', async () => {
    const orders: string[][] = [];
    for (const fixtures of [pair(plain, rich), pair(rich, plain)]) {
      const t = await startDirectory({ listings: fixtures });
      try {
        const r = await t.get(path({ q: 'shop lisboa' }));
        expect(r.status).toBe(200);
        orders.push(domainsOf(r.body));
        const [a, b] = r.body.businesses;
        expect(a.rank_shuffle < b.rank_shuffle).toBe(true);
        expect(a.rank_pos).toBe(1);
        expect(b.rank_pos).toBe(2);
      } finally {
        await t.close();
      }
    }
    expect(orders[0]).toHaveLength(2);
    expect(orders[1]).toEqual(orders[0]);
    expect(orders[0]).toEqual(orderV6(pair(plain, rich), MONDAY));
  });
});

describe('GET /v1/businesses under rules 7 (Tuesday 2026-12-08 10:15Z)', () => {
  let t: TestDirectory;
  const fixtures = handMade(AFTER_RULES_7);
  beforeAll(async () => {
    t = await startDirectory({ listings: fixtures, clock: new TestClock(AFTER_RULES_7) });
  });
  afterAll(() => t.close());

  it('interleaves members and other businesses in the published rules-7 order', async () => {
    const r = await t.get(path({ limit: 100 }));
    expect(r.status).toBe(200);
    const expected = orderV7(fixtures, AFTER_RULES_7).filter((d) => LOCAL.includes(d));
    expect(domainsOf(r.body)).toEqual(expected);
    // a member whose inbox has not answered comes after businesses reachable through live agent doors
    const order = domainsOf(r.body);
    expect(order.indexOf(PLUMBER)).toBeLessThan(order.indexOf(PADARIA));
    expect(order.indexOf(CERAMICA)).toBeLessThan(order.indexOf(PLUMBER));
    expect(r.body.businesses[0].why).toMatch(/rules 7/);
  });

  it('refuses a category that names nothing with category_unresolved and up to 5 candidates', async () => {
    for (const category of ['pastel-de-nata', 'hairdreser', 'zzqx-nothing']) {
      const r = await t.get(path({ category }));
      expectProblem(r, 400, 'category_unresolved');
      expect(Array.isArray(r.body.candidates)).toBe(true);
      expect(r.body.candidates.length).toBeLessThanOrEqual(5);
      for (const candidate of r.body.candidates) {
        const known = await t.get(`/c/${encodeURIComponent(candidate)}`);
        const group = await t.get(`/v1/categories?group=${encodeURIComponent(candidate)}`);
        expect(known.status === 200 || group.status === 200, candidate).toBe(true);
      }
    }
    const typo = await t.get(path({ category: 'hairdreser' }));
    expect(typo.body.candidates).toEqual(expect.arrayContaining(['hair-beauty', 'shop.hairdresser']));
    const tag = await t.get(path({ category: 'pastel-de-nata' }));
    expect(tag.body.candidates).toContain('shop.bakery');
    // a category that resolves is still served
    const cafe = await t.get(path({ category: 'Cafetaria' }));
    expect(domainsOf(cafe.body)).toEqual([CAFE]);
  });

  it('sorts by distance with order=nearest and near, and pages through every match once', async () => {
    const r = await t.get(path({ near: '38.7223,-9.1393', radius_km: 1000, order: 'nearest', limit: 100 }));
    expect(r.status).toBe(200);
    expect(domainsOf(r.body)).toEqual([CAFE, BOOKS, WEDDING, PADARIA, READER]);
    const distances = r.body.businesses.map((b: any) => b.distance_km);
    expect(distances).toEqual([...distances].sort((a: number, b: number) => a - b));
    const { listings } = await walk(t, { near: '38.7223,-9.1393', radius_km: 1000, order: 'nearest', limit: 2 });
    expect(listings.map((b) => b.domain)).toEqual([CAFE, BOOKS, WEDDING, PADARIA, READER]);
    for (const b of listings) expect(b.rank_pos).toBeGreaterThanOrEqual(1);
  });

  it('refuses order=nearest without near', async () => {
    expectProblem(await t.get(path({ order: 'nearest' })), 400, 'bad_request');
  });
});

describe('open_now at fixed clocks, across time zones', () => {
  let t: TestDirectory;
  const clock = new TestClock(MONDAY);
  const allDay: [string, string][] = [['00:00', '24:00']];
  const fixtures = [
    listing('lisbon-weekdays.example', { hours: hours('Europe/Lisbon', { 'mon-fri': [['09:00', '18:00']] }) }),
    listing('nyc-weekdays.example', { hours: hours('America/New_York', { 'mon-fri': [['09:00', '17:00']] }) }),
    listing('tokyo-daily.example', { hours: hours('Asia/Tokyo', { [EVERY_DAY]: [['10:00', '22:00']] }) }),
    listing('lisbon-late-bar.example', { hours: hours('Europe/Lisbon', { 'fri,sat': [['22:00', '02:00']] }) }),
    listing('closed-today.example', { hours: hours('Europe/Lisbon', { [EVERY_DAY]: allDay }, [{ from: '2026-11-23', to: '2026-11-24' }]) }),
    listing('no-hours.example'),
    listing('nyc-sunday.example', { hours: hours('America/New_York', { sun: [['09:00', '10:00']] }) }),
    listing('lisbon-sunday.example', { hours: hours('Europe/Lisbon', { sun: [['09:00', '10:00']] }) }),
  ];
  beforeAll(async () => {
    t = await startDirectory({ listings: fixtures, clock });
  });
  afterAll(() => t.close());

  async function openAt(iso: string): Promise<string[]> {
    clock.set(iso);
    const r = await t.get(path({ open_now: true, limit: 100 }));
    expect(r.status).toBe(200);
    for (const b of r.body.businesses) expect(b.open_now).toBe(true);
    return domainsOf(r.body).sort();
  }

  it.each([
    ['2026-11-23T10:15:00Z', ['lisbon-weekdays.example', 'tokyo-daily.example']],
    ['2026-11-23T15:30:00Z', ['lisbon-weekdays.example', 'nyc-weekdays.example']],
    ['2026-11-25T12:00:00Z', ['closed-today.example', 'lisbon-weekdays.example', 'tokyo-daily.example']],
    ['2026-11-28T01:30:00Z', ['closed-today.example', 'lisbon-late-bar.example', 'tokyo-daily.example']],
    ['2026-11-28T02:30:00Z', ['closed-today.example', 'tokyo-daily.example']],
    // New York leaves daylight time at 06:00Z on Sunday 1 November: 13:30Z is 08:30 EST, 14:30Z is 09:30
    ['2026-11-01T13:30:00Z', ['closed-today.example']],
    ['2026-11-01T14:30:00Z', ['closed-today.example', 'nyc-sunday.example']],
    // Lisbon leaves summer time at 01:00Z on Sunday 25 October: 08:30Z is 08:30 WET, 09:30Z is 09:30
    ['2026-10-25T08:30:00Z', ['closed-today.example', 'tokyo-daily.example']],
    ['2026-10-25T09:30:00Z', ['closed-today.example', 'lisbon-sunday.example', 'tokyo-daily.example']],
  ])('at %s only the businesses open by their own hours are kept', async (iso, expected) => {
    expect(await openAt(iso)).toEqual(expected);
  });

  it('shows open_now false when closed, false on a closure, and null with no hours; a search without open_now keeps them all', async () => {
    clock.set('2026-11-23T10:15:00Z');
    const r = await t.get(path({ limit: 100 }));
    const byDomain = new Map<string, any>(r.body.businesses.map((b: any) => [b.domain, b]));
    expect(byDomain.size).toBe(fixtures.length);
    expect(byDomain.get('lisbon-weekdays.example').open_now).toBe(true);
    expect(byDomain.get('nyc-weekdays.example').open_now).toBe(false);
    expect(byDomain.get('closed-today.example').open_now).toBe(false);
    expect(byDomain.get('closed-today.example').hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-24' }]);
    expect(byDomain.get('no-hours.example').open_now).toBeNull();
    expect(byDomain.get('no-hours.example')).not.toHaveProperty('hours');
    const all = await t.get(path({ open_now: false, limit: 100 }));
    expect(all.body.businesses).toHaveLength(fixtures.length);
    expect((await t.get(path({ open_now: true }))).headers.get('cache-control')).toMatch(/max-age=60\b/);
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* realistic listings: cursor walks against references computed here                              */

const WEEKDAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Open by published hours, in the business's own zone (luxon), a closure winning over the hours. */
function openRef(h: Hours | null, atMs: number): boolean {
  if (!h) return false;
  const local = DateTime.fromMillis(atMs, { zone: h.timezone });
  if (!local.isValid) return false;
  const closed = (date: string) => h.closures.some((c) => c.from <= date && date <= c.to);
  if (closed(local.toISODate()!)) return false;
  const minute = local.hour * 60 + local.minute;
  for (const [o, c] of h.weekly[WEEKDAYS[local.weekday - 1]!] ?? []) {
    const open = minutes(o);
    const close = minutes(c);
    if (close > open ? minute >= open && minute < close : minute >= open) return true;
  }
  if (closed(local.minus({ days: 1 }).toISODate()!)) return false;
  for (const [o, c] of h.weekly[WEEKDAYS[(local.weekday + 5) % 7]!] ?? []) {
    if (minutes(c) <= minutes(o) && minute < minutes(c)) return true;
  }
  return false;
}

describe('cursor walks over 600 realistic listings', () => {
  let t: TestDirectory;
  const clock = new TestClock(MONDAY);
  const generated = [...generateListings({ count: 600, seed: 20261123, nowMs: MONDAY, placeCategoryOf: taxonomyCategoryPicker() })];
  const local = generated.filter((l) => shown(l) && l.kind === 'local_and_retail');
  beforeAll(async () => {
    t = await startDirectory({ listings: generated, clock });
    await t.directory.search.hour();
  });
  afterAll(() => t.close());

  async function expectWalk(params: Record<string, string | number | boolean>, keep: (l: Fixture) => boolean): Promise<any[]> {
    const expected = local.filter(keep).map((l) => l.domain);
    expect(expected.length, 'the reference should not be empty').toBeGreaterThan(0);
    const { listings } = await walk(t, params);
    const domains = listings.map((b) => b.domain);
    expect(new Set(domains).size).toBe(domains.length);
    expect([...domains].sort()).toEqual([...expected].sort());
    const positions = listings.map((b) => b.rank_pos);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]);
    return listings;
  }

  it('returns every local business exactly once, members first, then by the shuffle', async () => {
    const listings = await expectWalk({ limit: 17 }, () => true);
    expect(listings.map((b) => b.domain)).toEqual(orderV6(local, MONDAY));
    const sources = listings.map((b) => b.source);
    expect(sources.lastIndexOf('member')).toBeLessThan(sources.findIndex((s) => s !== 'member'));
    const rest = listings.filter((b) => b.source !== 'member').map((b) => b.rank_shuffle);
    expect(rest).toEqual([...rest].sort());
  });

  it('pages 20 by default', async () => {
    const r = await t.get('/v1/businesses');
    expect(r.body.businesses).toHaveLength(20);
    expect(r.body.businesses.map((b: any) => b.domain)).toEqual(orderV6(local, MONDAY).slice(0, 20));
  });

  it('walks filtered searches: language, country, near, open_now, level', async () => {
    await expectWalk({ language: 'en', limit: 9 }, (l) => l.languages.some((x) => x === 'en' || x.startsWith('en-')));
    const countries = new Map<string, number>();
    for (const l of local) if (l.country) countries.set(l.country, (countries.get(l.country) ?? 0) + 1);
    const [country] = [...countries.entries()].sort((a, b) => b[1] - a[1])[0]!;
    await expectWalk({ country, limit: 6 }, (l) =>
      [l.country, l.address?.country, l.place?.country, ...(l.place?.serviceArea?.countries ?? []), ...(l.place?.shipsTo ?? [])].includes(country),
    );
    const centre = local.find((l) => l.geo && l.country === country)!.geo!;
    await expectWalk({ near: `${centre.lat},${centre.lng}`, radius_km: 800, limit: 5 }, (l) => {
      const g = shownGeo(l);
      return !!g && haversineKm(centre.lat, centre.lng, g.lat, g.lng) <= 800;
    });
    await expectWalk({ open_now: true, limit: 13 }, (l) => openRef(l.hours, MONDAY));
    await expectWalk({ level: 'bookable', has_inbox: false, limit: 11 }, (l) => levelOf(l) >= 3 && !l.doors.some((d) => d.status === 'live' && d.type === 'inbox'));
  });

  it('expires a cursor once the hour turns (410), and the new hour pages from the start', async () => {
    const first = await t.get(path({ limit: 10 }));
    const cursor = first.body.next_cursor;
    expect((await t.get(path({ limit: 10, cursor }))).status).toBe(200);
    clock.advance(HOUR);
    expectProblem(await t.get(path({ limit: 10, cursor })), 410, 'cursor_expired');
    const fresh = await t.get(path({ limit: 10 }));
    expect(fresh.status).toBe(200);
    expect(fresh.body.businesses[0].rank_pos).toBe(1);
    clock.advance(-HOUR);
  });
});
