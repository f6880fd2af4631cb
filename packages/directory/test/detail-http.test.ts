/**
 * GET /v1/businesses/{domain} over real HTTP (directory spec §2 Listing, §3, §4): what a single
 * business adds (outcomes, receipts.customers, facts), what is never shown (a street before the
 * entry is claimed, contact details, attributes that need a register's proof), X-Robots-Tag for
 * businesses the service found, 404 that says whether it left or was set aside, and 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, EVERY_DAY, MONDAY, door, hours, listing, member } from './support/fixtures.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';

function expectProblem(r: ApiResponse, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, code, detail: expect.any(String) }));
}

const at = (ms: number) => new Date(ms).toISOString();

/** A valid domain of 190 characters (labels of at most 63). */
const LONG = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example`;

const fixtures = [
  listing(LONG, { name: 'Long Name Shop', doors: [door('mcp', 'askable', ['ask'])] }),
  member('salon.example', {
    name: 'Salon Lumière',
    city: 'Lisboa',
    country: 'PT',
    address: { street: 'Rua das Flores 10', locality: 'Lisboa', postalCode: '1200-195', country: 'PT' },
    geo: { lat: 38.711234, lng: -9.143219 },
    categories: ['hair-beauty'],
    placeCategory: { id: 'shop.hairdresser', label: 'Hairdresser', src: 'declared' },
    placeAlternates: [
      { id: 'shop.beauty', label: 'Beauty Shop', src: 'declared' },
      { id: 'shop.beauty.nails', label: 'Nail Salon', src: 'declared' },
      { id: 'shop.tattoo', label: 'Tattoo Parlor', src: 'declared' },
    ],
    languages: ['pt', 'en'],
    itemTypes: ['booking', 'message'],
    hours: hours('Europe/Lisbon', { 'tue-sat': [['09:00', '19:00']] }),
    services: [{ name: 'Haircut', type: 'booking' }],
    attributes: {
      wifi: { v: true, src: 'declared' },
      halal: { v: true, src: 'declared' },
      cert: { v: 'b_corp', src: 'declared' },
      made_up_key: { v: true, src: 'declared' },
    },
    receipts: { issued: 12, acknowledged: 11, customers: 5, lastAt: MONDAY - DAY },
    outcomes: { kept: 7, broken: 1, cancelled: 2 },
  }),
  listing('found-bakery.example', {
    name: 'Found Bakery',
    city: 'Porto',
    country: 'PT',
    address: { street: 'Rua de Santa Catarina 5', locality: 'Porto', postalCode: '4000-001', country: 'PT' },
    geo: { lat: 41.157944, lng: -8.629105 },
    categories: ['bakery'],
    placeCategory: { id: 'shop.bakery', label: 'Bakery', src: 'seen' },
    doors: [door('mcp', 'askable', ['ask'], { src: 'seen', checkedAt: at(MONDAY - 5 * DAY), protocol: 'mcp/2025-06-18' })],
    place: { kind: ['storefront'], locality: 'Porto', region: 'Porto', country: 'PT' },
    facts: [
      { field: 'name', v: 'Found Bakery', src: 'seen', at: at(MONDAY - 5 * DAY), url: 'https://found-bakery.example/' },
      { field: 'hours', v: 'mon-sat 07:00-19:00', src: 'seen', at: at(MONDAY - 5 * DAY), url: 'https://found-bakery.example/contact', via: 'schema.org' },
      { field: 'phone', v: '+351 222 000 000', src: 'seen', at: at(MONDAY - 5 * DAY) },
      { field: 'contact.email', v: 'hello@found-bakery.example', src: 'seen', at: at(MONDAY - 5 * DAY) },
      { field: 'note', v: 'write to orders@found-bakery.example', src: 'seen', at: at(MONDAY - 5 * DAY) },
    ],
    outcomes: {},
  }),
  listing('registered-shop.example', {
    source: 'registered',
    name: 'Registered Shop',
    city: 'Braga',
    country: 'PT',
    claimed: true,
    address: { street: 'Avenida Central 1', locality: 'Braga', postalCode: '4710-229', country: 'PT' },
    geo: { lat: 41.550323, lng: -8.420052 },
    categories: ['shop'],
    doors: [door('openapi', 'bookable', ['book'])],
    place: { kind: ['storefront', 'online'], locality: 'Braga', country: 'PT', shipsTo: ['ES'] },
    facts: [{ field: 'name', v: 'Registered Shop', src: 'declared', at: at(MONDAY - 9 * DAY) }],
  }),
  listing('left.example', { name: 'Left Behind', delistedAt: Date.parse('2026-11-20T08:00:00Z') }),
  member('sleepy.example', { name: 'Sleepy Inbox', dormantSince: Date.parse('2026-11-10T12:00:00Z'), lastPingAt: Date.parse('2026-11-01T12:00:00Z') }),
];

let t: TestDirectory;
beforeAll(async () => {
  t = await startDirectory({ listings: fixtures });
});
afterAll(() => t.close());

describe('a member', () => {
  it('comes with outcomes, receipts.customers, its reputation record and no facts', async () => {
    const r = await t.get('/v1/businesses/salon.example');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-robots-tag')).toBeNull();
    expect(r.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(r.body).toMatchObject({
      domain: 'salon.example',
      name: 'Salon Lumière',
      source: 'member',
      claimed: true,
      proof: 'domain',
      address: { street: 'Rua das Flores 10', locality: 'Lisboa', postal_code: '1200-195', country: 'PT' },
      geo: { lat: 38.711234, lng: -9.143219 },
      manifest_url: 'https://salon.example/.well-known/agent-inbox.json',
      verified_at: at(MONDAY - 20 * DAY),
      last_ping_at: at(MONDAY - 3_600_000),
      answering: true,
      online: true,
      not_answering_since: null,
      outcomes: { kept: 7, broken: 1, cancelled: 2 },
      receipts: { issued: 12, acknowledged: 11, customers: 5, last_at: at(MONDAY - DAY) },
      // Not scored by a snapshot yet (it is no registered instance here): no record, under the rules in force.
      reputation: { ranked: false, score: 0, tier: 'new', kept: 0, broken: 0, customers: 0, verified_share: 0, rules: 6, rules_url: 'http://127.0.0.1/v1/ranking?version=6' },
      software: { version: '0.4.0', runtime: 'node' },
      protocols: { rest: 'https://salon.example/v1', openapi: 'https://salon.example/openapi.json' },
    });
    expect(r.body).not.toHaveProperty('facts');
    expect(r.body).not.toHaveProperty('place');
    expect(r.body).not.toHaveProperty('found');
    expect(r.body.category.alternates).toHaveLength(2);
    expect(r.body.category.path).toEqual(['hair-beauty', 'shop.hairdresser']);
    expect(r.body.hours.timezone).toBe('Europe/Lisbon');
    expect(r.body.open_now).toBe(false); // Monday: closed
  });

  it('shows only attribute keys of GET /v1/attributes that can be filtered on', async () => {
    const detail = await t.get('/v1/businesses/salon.example');
    expect(detail.body.attributes).toEqual({ wifi: { v: true, src: 'declared' } });
    const search = await t.get('/v1/businesses?q=lumiere');
    expect(search.body.businesses[0].attributes).toEqual({ wifi: { v: true, src: 'declared' } });
  });

  it('answers 304 to If-None-Match with its ETag', async () => {
    const first = await t.get('/v1/businesses/salon.example');
    const etag = first.headers.get('etag')!;
    const again = await t.get('/v1/businesses/salon.example', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await t.get('/v1/businesses/salon.example', { 'if-none-match': '"stale"' })).status).toBe(200);
  });
});

describe('a business the service found', () => {
  it('is served with X-Robots-Tag: noindex, found {note, checked_at, about_url}, and every fact with its source and date', async () => {
    const r = await t.get('/v1/businesses/found-bakery.example');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-robots-tag')).toBe('noindex');
    expect(r.body.source).toBe('found');
    expect(r.body.found).toEqual({
      note: 'Found on its own web site.',
      checked_at: at(MONDAY - 5 * DAY),
      about_url: 'http://127.0.0.1/about/found/found-bakery.example',
    });
    // Every value shown that the business published, as shown, under the listing's own names (issue 20).
    expect(r.body.facts.map((f: { field: string }) => f.field)).toEqual(['name', 'city', 'country', 'address', 'categories', 'geo', 'url', 'category', 'place']);
    for (const fact of r.body.facts) expect(fact.v, fact.field).toEqual(r.body[fact.field]);
    // A kept fact gives its page and means; a fact of something not shown (hours it no longer publishes) is not shown.
    expect(r.body.facts[0]).toEqual({ field: 'name', v: 'Found Bakery', src: 'seen', at: at(MONDAY - 5 * DAY), url: 'https://found-bakery.example/' });
    expect(r.body.facts.find((f: { field: string }) => f.field === 'geo')).toEqual({
      field: 'geo',
      v: { lat: 41.16, lng: -8.63 },
      src: 'seen',
      at: at(MONDAY - 5 * DAY),
      via: 'rounded to about a kilometre until the business claims its entry',
    });
    expect(r.body.outcomes).toEqual({});
    expect(r.body.receipts).toEqual({ issued: 0, acknowledged: 0, customers: 0 });
    expect(r.body).not.toHaveProperty('reputation');
    expect(r.body.doors).toEqual([
      { type: 'mcp', url: 'https://doors.example/mcp', level: 'askable', status: 'live', kinds: ['ask'], src: 'seen', protocol: 'mcp/2025-06-18', checked_at: at(MONDAY - 5 * DAY) },
    ]);
    expect(r.body.answering).toBe(false);
    expect(r.body.not_answering_since).toBeNull();
  });

  it('never shows a phone number or an e-mail address', async () => {
    const r = await t.get('/v1/businesses/found-bakery.example');
    const text = JSON.stringify(r.body);
    expect(text).not.toContain('+351');
    expect(text).not.toMatch(/@found-bakery\.example/);
  });

  it('shows its town, never its street, until it claims its entry', async () => {
    const r = await t.get('/v1/businesses/found-bakery.example');
    expect(r.body.address).toEqual({ locality: 'Porto', country: 'PT' });
    expect(r.body.geo).toEqual({ lat: 41.16, lng: -8.63 });
    expect(r.body.place).toEqual({ kind: ['storefront'], locality: 'Porto', region: 'Porto', country: 'PT' });
    expect(JSON.stringify(r.body)).not.toContain('Santa Catarina');
  });

  it('keeps X-Robots-Tag on a 304', async () => {
    const first = await t.get('/v1/businesses/found-bakery.example');
    const again = await t.get('/v1/businesses/found-bakery.example', { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-robots-tag')).toBe('noindex');
  });
});

describe('a registered business', () => {
  it('has facts, no noindex, and its street once claimed', async () => {
    const r = await t.get('/v1/businesses/registered-shop.example');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-robots-tag')).toBeNull();
    expect(r.body.source).toBe('registered');
    expect(r.body.facts[0]).toEqual({ field: 'name', v: 'Registered Shop', src: 'declared', at: at(MONDAY - 9 * DAY) });
    expect(r.body.facts.map((f: { field: string }) => f.field)).toEqual(['name', 'city', 'country', 'address', 'categories', 'geo', 'url', 'place']);
    for (const fact of r.body.facts) expect(fact.v, fact.field).toEqual(r.body[fact.field]);
    // Its place as shown (ships_to, not shipsTo), and its precise point: it is claimed.
    expect(r.body.facts.find((f: { field: string }) => f.field === 'place').v).toEqual({ kind: ['storefront', 'online'], locality: 'Braga', country: 'PT', ships_to: ['ES'] });
    expect(r.body.facts.find((f: { field: string }) => f.field === 'geo')).toEqual({ field: 'geo', v: { lat: 41.550323, lng: -8.420052 }, src: 'declared', at: at(MONDAY - 2 * DAY) });
    expect(r.body.address).toEqual({ street: 'Avenida Central 1', locality: 'Braga', postal_code: '4710-229', country: 'PT' });
    expect(r.body.place).toEqual({ kind: ['storefront', 'online'], locality: 'Braga', country: 'PT', ships_to: ['ES'] });
    expect(r.body).not.toHaveProperty('found');
  });
});

describe('place in the order', () => {
  it('gives the same rank_pos, rank_shuffle and why as the search, and the search leaves out the single-business fields', async () => {
    const search = await t.get('/v1/businesses?limit=100');
    expect(search.status).toBe(200);
    expect(search.body.businesses.map((b: any) => b.domain).sort()).toEqual(['found-bakery.example', 'registered-shop.example', 'salon.example', LONG].sort());
    for (const hit of search.body.businesses) {
      expect(hit).not.toHaveProperty('outcomes');
      expect(hit).not.toHaveProperty('facts');
      expect(hit.receipts).not.toHaveProperty('customers');
      const detail = await t.get(`/v1/businesses/${hit.domain}`);
      expect(detail.body.rank_pos).toBe(hit.rank_pos);
      expect(detail.body.rank_shuffle).toBe(hit.rank_shuffle);
      expect(detail.body.why).toBe(hit.why);
    }
  });
});

describe('refusals', () => {
  it('answers 404 saying that a business left the directory', async () => {
    const r = await t.get('/v1/businesses/left.example');
    expectProblem(r, 404, 'not_found');
    expect(r.body.detail).toMatch(/left the directory/);
    expect(r.body.detail).toContain('2026-11-20');
  });

  it('answers 404 saying that a business was set aside', async () => {
    const r = await t.get('/v1/businesses/sleepy.example');
    expectProblem(r, 404, 'not_found');
    expect(r.body.detail).toMatch(/set aside/);
    expect(r.body.detail).toContain('2026-11-10');
    expect(r.body.detail).not.toMatch(/left the directory/);
  });

  it('answers 404 to a domain it does not know, and 400 to one longer than 253 characters', async () => {
    expectProblem(await t.get('/v1/businesses/nobody.example'), 404, 'not_found');
    expectProblem(await t.get(`/v1/businesses/${'a'.repeat(250)}.com`), 400, 'bad_request');
    expectProblem(await t.get(`/v1/businesses/${'a'.repeat(600)}.com`), 400, 'bad_request');
  });

  it('serves a business whose domain is long but valid (up to 253 characters)', async () => {
    expect(LONG.length).toBeGreaterThan(100);
    const r = await t.get(`/v1/businesses/${LONG}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.domain).toBe(LONG);
    expectProblem(await t.get(`/v1/businesses/${'d'.repeat(60)}.${LONG}`), 404, 'not_found');
  });

  it('reads a domain in any case and with a trailing dot', async () => {
    const r = await t.get('/v1/businesses/SALON.Example.');
    expect(r.status).toBe(200);
    expect(r.body.domain).toBe('salon.example');
  });
});

describe('closures by the business\'s own calendar', () => {
  it('shows a closure until it ends in the business\'s time zone, and open_now agrees', async () => {
    const clock = new TestClock(Date.parse('2026-11-24T03:00:00Z')); // New York: 22:00 on the 23rd; Tokyo: 12:00 on the 24th
    const allDay: [string, string][] = [['00:00', '24:00']];
    const d = await startDirectory({
      clock,
      listings: [
        listing('ny-closed.example', { hours: hours('America/New_York', { [EVERY_DAY]: allDay }, [{ from: '2026-11-23', to: '2026-11-23' }]) }),
        listing('tokyo-reopened.example', { hours: hours('Asia/Tokyo', { [EVERY_DAY]: allDay }, [{ from: '2026-11-23', to: '2026-11-23' }]) }),
      ],
    });
    try {
      const ny = (await d.get('/v1/businesses/ny-closed.example')).body;
      expect(ny.open_now).toBe(false);
      expect(ny.hours.closures).toEqual([{ from: '2026-11-23', to: '2026-11-23' }]);
      clock.set('2026-11-23T16:00:00Z'); // Tokyo: 01:00 on the 24th, the closure is over; UTC is still the 23rd
      const tokyo = (await d.get('/v1/businesses/tokyo-reopened.example')).body;
      expect(tokyo.open_now).toBe(true);
      expect(tokyo.hours.closures).toEqual([]);
    } finally {
      await d.close();
    }
  });
});
