/**
 * Public (customer) operations over real HTTP (inbox spec §4 public operations, §3 booking rows, §7).
 * The clock starts Monday 2026-11-23T10:00Z; Lisbon is on UTC+0 in winter; the salon is closed on
 * Mondays and open Tue–Fri 09:30–13:00 and 14:00–19:30, Saturday 09:00–17:00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';
import {
  DAY,
  booking,
  createBooking,
  expectFieldProblem,
  expectProblem,
  ownerItem,
  ownerMove,
  setSettings,
  status,
} from './support/customer-calls.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(() => t.close());

describe('get_business_profile', () => {
  it('answers the profile, cacheable for five minutes', async () => {
    const r = await t.request('GET', '/v1/business');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    expect(r.body).toMatchObject({
      name: 'Salão Aurora',
      timeZone: 'Europe/Lisbon',
      currency: 'EUR',
      languages: ['pt-PT', 'en'],
      itemTypes: ['message', 'quote_request', 'booking', 'order'],
    });
  });
});

describe('list_services', () => {
  it('lists every bookable service with duration and price model, cacheable for a minute', async () => {
    const r = await t.request('GET', '/v1/services');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items.map((s: any) => s.id)).toEqual(['haircut', 'beard-trim', 'colouring', 'bridal-styling', 'consultation']);
    expect(r.body.items[0]).toMatchObject({ id: 'haircut', name: 'Haircut', durationMinutes: 45, priceModel: 'fixed', price: 2500, priceCurrency: 'EUR' });
    expect(r.body.items.map((s: any) => s.priceModel)).toEqual(['fixed', 'fixed', 'from', 'quote', 'none']);
  });

  it('walks pages with the cursor, returning each service exactly once', async () => {
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `?limit=${limit}`;
        const r = await t.request('GET', `/v1/services${query}`);
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(limit);
        seen.push(...r.body.items.map((s: any) => s.id));
        cursor = r.body.next_cursor;
        pages += 1;
        expect(pages).toBeLessThan(10);
      } while (cursor);
      expect(seen).toEqual(['haircut', 'beard-trim', 'colouring', 'bridal-styling', 'consultation']);
      expect(pages).toBe(Math.ceil(5 / limit));
    }
  });

  it('leaves archived services out', async () => {
    const added = await t.owner('POST', '/v1/owner/services', {
      body: { service: { id: 'scalp-massage', name: 'Scalp massage', durationMinutes: 30, priceModel: 'fixed', price: 1500 } },
    });
    expect(added.status).toBe(201);
    expect((await t.request('GET', '/v1/services?limit=100')).body.items.map((s: any) => s.id)).toContain('scalp-massage');
    expect((await t.owner('DELETE', '/v1/owner/services/scalp-massage')).status).toBe(200);
    expect((await t.request('GET', '/v1/services?limit=100')).body.items.map((s: any) => s.id)).not.toContain('scalp-massage');
  });

  it('refuses limits outside 1 to 100 and cursors it never gave out', async () => {
    for (const limit of ['0', '101', '-1', 'abc', '2.5']) {
      expectFieldProblem(await t.request('GET', `/v1/services?limit=${limit}`), 'limit');
    }
    expect((await t.request('GET', '/v1/services?limit=100')).status).toBe(200);
    expect((await t.request('GET', '/v1/services?limit=1')).status).toBe(200);
    expectFieldProblem(await t.request('GET', '/v1/services?cursor=not-a-cursor'), 'cursor');
    const foreign = Buffer.from(JSON.stringify({ k: '"x"' })).toString('base64url');
    expectFieldProblem(await t.request('GET', `/v1/services?cursor=${foreign}`), 'cursor');
  });
});

describe('list_products', () => {
  beforeAll(async () => {
    const products = [
      { productId: 'mascara-cafe', sku: 'AUR-MC-01', name: 'Máscara de Café 200 ml', price: 2100, category: 'Hair care' },
      { productId: 'hair-tie-black', sku: 'AUR-HT-B', name: 'Hair tie', price: 150 },
      { productId: 'hair-tie-brown', sku: 'AUR-HT-W', name: 'Hair tie', price: 150 },
    ];
    for (const product of products) expect((await t.owner('POST', '/v1/owner/products', { body: { product } })).status).toBe(201);
  });

  it('lists products by name with prices in minor units', async () => {
    const r = await t.request('GET', '/v1/products');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.body.next_cursor).toBeNull();
    const names = r.body.items.map((p: any) => p.name);
    expect(names).toEqual([...names].sort());
    expect(r.body.items).toContainEqual(
      expect.objectContaining({ productId: 'argan-shampoo', sku: 'AUR-SH-250', name: 'Argan shampoo 250 ml', price: 1450, priceCurrency: 'EUR' }),
    );
    expect(r.body.items).toHaveLength(8);
  });

  it('finds products by every word of q, ignoring case and accents', async () => {
    const ids = async (q: string) => {
      const r = await t.request('GET', `/v1/products?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      return r.body.items.map((p: any) => p.productId);
    };
    expect(await ids('SHAMPOO')).toEqual(['argan-shampoo']);
    expect(await ids('argan Shampoo')).toEqual(['argan-shampoo']);
    expect(await ids('mascara cafe')).toEqual(['mascara-cafe']);
    expect(await ids('MÁSCARA')).toEqual(['mascara-cafe']);
    expect(await ids('máscara CAFÉ')).toEqual(['mascara-cafe']);
    expect(await ids('aur-mc-01')).toEqual(['mascara-cafe']);
    expect(await ids('hair care')).toEqual(expect.arrayContaining(['argan-shampoo', 'repair-mask', 'mascara-cafe']));
    expect(await ids('shampoo comb')).toEqual([]);
    expect(await ids('nothing-like-this')).toEqual([]);
  });

  it('walks pages (also with q), each product exactly once, even with equal names', async () => {
    const walk = async (q: string | null, limit: number) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const params = new URLSearchParams({ limit: String(limit) });
        if (q) params.set('q', q);
        if (cursor) params.set('cursor', cursor);
        const r = await t.request('GET', `/v1/products?${params.toString()}`);
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(limit);
        seen.push(...r.body.items.map((p: any) => p.productId));
        cursor = r.body.next_cursor;
        pages += 1;
        expect(pages).toBeLessThan(20);
      } while (cursor);
      return seen;
    };
    const all = (await t.request('GET', '/v1/products?limit=100')).body.items.map((p: any) => p.productId);
    for (const limit of [1, 3]) {
      const seen = await walk(null, limit);
      expect(seen).toEqual(all);
      expect(new Set(seen).size).toBe(seen.length);
    }
    expect(await walk('hair tie', 1)).toEqual(['hair-tie-black', 'hair-tie-brown']);
    expectFieldProblem(await t.request('GET', '/v1/products?limit=0'), 'limit');
    expectFieldProblem(await t.request('GET', '/v1/products?limit=101'), 'limit');
  });
});

describe('check_availability', () => {
  it('answers the free starts of a day in the business zone', async () => {
    const r = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-11-24');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      service: { id: 'haircut', name: 'Haircut', durationMinutes: 45 },
      timeZone: 'Europe/Lisbon',
      partySize: 1,
    });
    const slots = r.body.slots as { start: string; end: string }[];
    expect(slots[0]).toEqual({ start: '2026-11-24T09:30:00.000+00:00', end: '2026-11-24T10:15:00.000+00:00' });
    expect(slots.map((s) => s.start)).toContain('2026-11-24T12:15:00.000+00:00');
    expect(slots.map((s) => s.start)).not.toContain('2026-11-24T12:30:00.000+00:00'); // would end after 13:00
    expect(slots.map((s) => s.start)).not.toContain('2026-11-24T13:30:00.000+00:00'); // lunch
    expect(slots[slots.length - 1]?.start).toBe('2026-11-24T18:45:00.000+00:00');
  });

  it('has nothing on a closed day (Monday) and takes instants with offsets', async () => {
    const monday = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-23&to=2026-11-23');
    expect(monday.status).toBe(200);
    expect(monday.body.slots).toEqual([]);
    const from = encodeURIComponent('2026-11-24T14:00:00+00:00');
    const to = encodeURIComponent('2026-11-24T15:00:00Z');
    const r = await t.request('GET', `/v1/availability?service=haircut&from=${from}&to=${to}`);
    expect(r.status).toBe(200);
    expect(r.body.slots.map((s: any) => s.start)).toEqual([
      '2026-11-24T14:00:00.000+00:00',
      '2026-11-24T14:15:00.000+00:00',
      '2026-11-24T14:30:00.000+00:00',
      '2026-11-24T14:45:00.000+00:00',
    ]);
  });

  it('takes party_size: a party larger than the service takes has no starts; 0 is refused', async () => {
    const one = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-11-24&party_size=1');
    expect(one.status).toBe(200);
    expect(one.body.slots.length).toBeGreaterThan(0);
    const two = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-11-24&party_size=2');
    expect(two.status).toBe(200);
    expect(two.body.partySize).toBe(2);
    expect(two.body.slots).toEqual([]);
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-11-24&party_size=0'), 'party_size');
  });

  it('allows a window of 14 days and refuses a longer one', async () => {
    const ok = await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-12-07');
    expect(ok.status).toBe(200);
    expect(ok.body.slots.length).toBeGreaterThan(0);
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-12-08'), 'to');
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2027-11-24'), 'to');
  });

  it('refuses an end before the start, an unknown service, bad dates and missing fields', async () => {
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-11-26&to=2026-11-24'), 'to');
    const from = encodeURIComponent('2026-11-24T15:00:00Z');
    const to = encodeURIComponent('2026-11-24T14:00:00Z');
    expectFieldProblem(await t.request('GET', `/v1/availability?service=haircut&from=${from}&to=${to}`), 'to');
    // A service the business does not offer is a resource that is not there (spec §7), not bad input.
    expectProblem(await t.request('GET', '/v1/availability?service=no-such-service&from=2026-11-24&to=2026-11-25'), 404, 'not_found');
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-13-45&to=2026-11-25'), 'from');
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=2026-11-24&to=2026-02-30'), 'to');
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&from=tomorrow-ish&to=2026-11-25'), 'from');
    expectFieldProblem(await t.request('GET', '/v1/availability?from=2026-11-24&to=2026-11-25'), 'service', 'missing');
    expectFieldProblem(await t.request('GET', '/v1/availability?service=haircut&to=2026-11-25'), 'from', 'missing');
  });

  it('refuses an instant without an offset', async () => {
    const from = encodeURIComponent('2026-11-24T10:00:00');
    expectFieldProblem(await t.request('GET', `/v1/availability?service=haircut&from=${from}&to=2026-11-25`), 'from');
  });

  it('no longer offers a start a confirmed booking fills (capacity 1)', async () => {
    const b = await createBooking(t, 'beard-trim', '2026-12-01T10:00:00Z');
    await ownerMove(t, b.id, 'confirm');
    const r = await t.request('GET', '/v1/availability?service=beard-trim&from=2026-12-01&to=2026-12-01');
    const starts = r.body.slots.map((s: any) => s.start);
    expect(starts).toContain('2026-12-01T09:40:00.000+00:00');
    expect(starts).not.toContain('2026-12-01T09:50:00.000+00:00');
    expect(starts).not.toContain('2026-12-01T10:00:00.000+00:00');
    expect(starts).not.toContain('2026-12-01T10:10:00.000+00:00');
    expect(starts).toContain('2026-12-01T10:20:00.000+00:00');
  });
});

describe('create calls', () => {
  it('create_booking answers 201 with the item, its access token, identity and Location', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T10:00:00Z', {}, 'Bruno Costa') });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('location')).toBe(`/v1/items/${r.body.id}`);
    expect(r.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.body).toMatchObject({
      type: 'booking',
      state: 'requested',
      version: 1,
      sandbox: false,
      needsHuman: false,
      linkedItemId: null,
      closedAt: null,
      payload: {
        serviceId: 'haircut',
        serviceName: 'Haircut',
        startTime: '2026-11-25T10:00:00.000+00:00',
        endTime: '2026-11-25T10:45:00.000+00:00',
        durationMinutes: 45,
        partySize: 1,
        priceModel: 'fixed',
        price: 2500,
        priceCurrency: 'EUR',
        priceStatus: 'catalogue',
      },
      identity: { recognised: expect.stringMatching(/^(none|weak)$/), passes: [], networks: {}, guide: expect.any(String) },
    });
    expect(typeof r.body.accessToken).toBe('string');
    expect(r.body.accessToken.length).toBeGreaterThanOrEqual(20);
    expect(r.body.next).toContainEqual(expect.objectContaining({ event: 'cancel', operation: 'cancel_item' }));
    const owner = await ownerItem(t, r.body.id);
    expect(owner.events).toEqual([
      expect.objectContaining({ type: 'booking.create', toState: 'requested', version: 1, by: { kind: 'customer_agent', id: null, name: null }, channel: 'rest' }),
    ]);
  });

  it('recognises an email seen before as a weak match, a new one as none', async () => {
    const fresh = await t.request('POST', '/v1/bookings', {
      body: { payload: { serviceId: 'haircut', startTime: '2026-11-25T11:00:00Z' }, contact: { email: 'first.time@example.com' } },
    });
    expect(fresh.status).toBe(201);
    expect(fresh.body.identity.recognised).toBe('none');
    const again = await t.request('POST', '/v1/orders', {
      body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1 }] }, contact: { email: 'first.time@example.com' } },
    });
    expect(again.status).toBe(201);
    expect(again.body.identity.recognised).toBe('weak');
  });

  it('create_booking with a message starts the conversation', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: { ...booking('haircut', '2026-11-25T14:00:00Z'), message: 'Short on the sides, please.' } });
    expect(r.status).toBe(201);
    expect(r.body.conversation).toEqual([
      expect.objectContaining({ from: 'customer', authorKind: 'customer_agent', text: 'Short on the sides, please.', internal: false, channel: 'rest' }),
    ]);
  });

  it('a booking outside opening hours is refused with the next free times (booking-time.test.ts has the rest)', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-30T10:00:00Z') }); // a Monday
    expectProblem(r, 409, 'slot_taken');
    expect(r.body.fields).toContainEqual(expect.objectContaining({ path: 'payload.startTime' }));
    expect(r.body.detail).toMatch(/closed on Mondays/);
    expect(r.body.next_free[0].start).toBe('2026-12-01T09:30:00.000+00:00');
  });

  it('a start with another offset is kept as the same instant in the business zone', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T16:30:00+01:00') });
    expect(r.status).toBe(201);
    expect(r.body.payload).toMatchObject({ startTime: '2026-11-25T15:30:00.000+00:00', endTime: '2026-11-25T16:15:00.000+00:00' });
  });

  it('a sandbox booking neither is blocked by nor blocks a real slot', async () => {
    const real = await createBooking(t, 'beard-trim', '2026-12-02T15:00:00Z');
    await ownerMove(t, real.id, 'confirm');
    const sandbox = await t.request('POST', '/v1/bookings', { body: { ...booking('beard-trim', '2026-12-02T15:00:00Z'), sandbox: true } });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.sandbox).toBe(true);
    const test = await t.request('POST', '/v1/bookings', { body: { ...booking('beard-trim', '2026-12-02T16:00:00Z'), sandbox: true } });
    await ownerMove(t, test.body.id, 'confirm');
    const other = await createBooking(t, 'beard-trim', '2026-12-02T16:00:00Z');
    expect((await ownerMove(t, other.id, 'confirm')).state).toBe('confirmed');
  });

  it('create_booking refuses a slot that confirmed bookings fill', async () => {
    const first = await createBooking(t, 'beard-trim', '2026-12-02T11:00:00Z');
    await ownerMove(t, first.id, 'confirm');
    const r = await t.request('POST', '/v1/bookings', { body: booking('beard-trim', '2026-12-02T11:10:00Z') });
    expectProblem(r, 409, 'slot_taken');
  });

  it('request_quote creates a quote_request waiting for the business', async () => {
    const r = await t.request('POST', '/v1/quotes', {
      body: { payload: { description: 'Bridal hair for 4 people on location', serviceId: 'bridal-styling', budget: 40000 }, contact: { name: 'Inês' } },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/items/${r.body.id}`);
    expect(r.body).toMatchObject({
      type: 'quote_request',
      state: 'received',
      version: 1,
      needsHuman: true,
      payload: { description: 'Bridal hair for 4 people on location', serviceId: 'bridal-styling', budget: 40000 },
    });
    expect(r.body.accessToken).toEqual(expect.any(String));
    expectFieldProblem(await t.request('POST', '/v1/quotes', { body: { payload: {} } }), 'payload.description', 'missing');
    expectFieldProblem(await t.request('POST', '/v1/quotes', { body: { payload: { description: 'x', serviceId: 'nope' } } }), 'payload.serviceId');
    expectFieldProblem(await t.request('POST', '/v1/quotes', { body: { payload: { description: 'x', budget: -1 } } }), 'payload.budget');
  });

  it('create_order creates a received order with catalogue prices', async () => {
    const r = await t.request('POST', '/v1/orders', {
      body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 2 }, { sku: 'AUR-CB-01', quantity: 1 }] }, contact: { name: 'Rui' } },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/items/${r.body.id}`);
    expect(r.body).toMatchObject({ type: 'order', state: 'received', version: 1, needsHuman: false, payload: { totalPrice: 2 * 1450 + 650, priceCurrency: 'EUR' } });
    expectFieldProblem(await t.request('POST', '/v1/orders', { body: { payload: { lines: [] } } }), 'payload.lines');
    expectFieldProblem(await t.request('POST', '/v1/orders', { body: { payload: {} } }), 'payload.lines', 'missing');
    expectFieldProblem(await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 0 }] } } }), 'payload.lines.0.quantity');
  });

  it('refuses a body that is not an object, and bad JSON', async () => {
    expectProblem(await t.request('POST', '/v1/bookings', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }), 422, 'invalid_input');
    expectProblem(await t.request('POST', '/v1/bookings', { rawBody: '{"payload":', headers: { 'content-type': 'application/json' } }), 400, 'bad_request');
  });
});

describe('payload validation of create_booking', () => {
  it('names a missing serviceId and startTime', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: { payload: { startTime: '2026-11-25T10:00:00Z' } } });
    expectFieldProblem(r, 'payload.serviceId', 'missing');
    expect(r.body.fields.find((f: any) => f.path === 'payload.serviceId').message).toMatch(/required/i);
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut' } } }), 'payload.startTime', 'missing');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: {} }), 'payload', 'missing');
  });

  it('refuses a start in the past or now, or without an offset', async () => {
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-20T10:00:00Z') }), 'payload.startTime');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-23T10:00:00Z') }), 'payload.startTime');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T10:00:00') }), 'payload.startTime');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', 'next tuesday') }), 'payload.startTime');
  });

  it('refuses a party larger than the service takes, and a party of zero', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T15:00:00Z', { partySize: 2 }) });
    expectFieldProblem(r, 'payload.partySize');
    expect(r.body.detail).toMatch(/at most 1/);
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T15:00:00Z', { partySize: 0 }) }), 'payload.partySize');
  });

  it('refuses unknown payload fields', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T15:00:00Z', { colour: 'blue' }) });
    expectProblem(r, 422, 'invalid_input');
    expect(r.body.fields).toContainEqual(expect.objectContaining({ path: 'payload.colour', problem: 'invalid' }));
    const line = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1, colour: 'red' }] } } });
    expectProblem(line, 422, 'invalid_input');
    expect(line.body.fields).toContainEqual(expect.objectContaining({ path: 'payload.lines.0.colour', problem: 'invalid' }));
  });

  it('refuses an unknown or archived service, an end before the start and a bad contact', async () => {
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('perm', '2026-11-25T15:00:00Z') }), 'payload.serviceId');
    expectFieldProblem(
      await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T15:00:00Z', { endTime: '2026-11-25T14:00:00Z' }) }),
      'payload.endTime',
    );
    expectFieldProblem(
      await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: '2026-11-25T15:00:00Z' }, contact: { email: 'not-an-email' } } }),
      'contact.email',
    );
    await t.owner('POST', '/v1/owner/services', { body: { service: { id: 'old-service', name: 'Old', durationMinutes: 30, priceModel: 'none' } } });
    expect((await t.owner('DELETE', '/v1/owner/services/old-service')).status).toBe(200);
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('old-service', '2026-11-25T15:00:00Z') }), 'payload.serviceId');
  });
});

describe('get_item_status', () => {
  let item: { id: string; accessToken: string };
  beforeAll(async () => {
    item = await createBooking(t, 'haircut', '2026-11-26T10:00:00Z');
  });

  it('reads the status with the token in the query or the x-access-token header', async () => {
    const byQuery = await t.request('GET', `/v1/items/${item.id}?access_token=${encodeURIComponent(item.accessToken)}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.headers.get('cache-control')).toBe('no-store');
    expect(byQuery.body).toMatchObject({ id: item.id, type: 'booking', state: 'requested', version: 1 });
    expect(byQuery.body.next).toEqual([{ event: 'cancel', operation: 'cancel_item', label: 'Cancel' }]);
    expect(byQuery.body).not.toHaveProperty('accessToken');
    expect(byQuery.body).not.toHaveProperty('events');
    const byHeader = await t.request('GET', `/v1/items/${item.id}`, { headers: { 'x-access-token': item.accessToken } });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body).toEqual(byQuery.body);
  });

  it('needs the token: missing or wrong is 401, an unknown id 404', async () => {
    const missing = await t.request('GET', `/v1/items/${item.id}`);
    expectProblem(missing, 401, 'unauthorized');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectProblem(await t.request('GET', `/v1/items/${item.id}?access_token=wrong-token`), 401, 'unauthorized');
    expectProblem(await t.request('GET', `/v1/items/${item.id}`, { headers: { 'x-access-token': `${item.accessToken}x` } }), 401, 'unauthorized');
    const other = await createBooking(t, 'haircut', '2026-11-26T11:00:00Z');
    expectProblem(await t.request('GET', `/v1/items/${item.id}`, { headers: { 'x-access-token': other.accessToken } }), 401, 'unauthorized');
    expectProblem(await t.request('GET', '/v1/items/01JZZZZZZZZZZZZZZZZZZZZZZZ', { headers: { 'x-access-token': item.accessToken } }), 404, 'not_found');
  });

  it('an owner key is not an item token', async () => {
    const r = await t.request('GET', `/v1/items/${item.id}`, { headers: { authorization: `Bearer ${t.ownerKey}` } });
    expectProblem(r, 401, 'unauthorized');
  });
});

describe('cancel_item', () => {
  it('cancels a requested booking, even close to its start, with the token in the body', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-24T11:00:00Z');
    const r = await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { access_token: b.accessToken, reason: 'Plans changed' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: b.id, state: 'cancelled', version: 2, next: [] });
    expect(r.body.closedAt).toEqual(expect.any(String));
    const owner = await ownerItem(t, b.id);
    expect(owner.events.map((e: any) => e.type)).toEqual(['booking.create', 'booking.cancel']);
    expect(owner.events[1]).toMatchObject({ fromState: 'requested', toState: 'cancelled', reason: 'Plans changed', by: { kind: 'customer_agent' }, channel: 'rest' });
  });

  it('takes the token from the query too, and refuses without one', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-26T14:00:00Z');
    expectProblem(await t.request('POST', `/v1/items/${b.id}/cancel`, { body: {} }), 401, 'unauthorized');
    expectProblem(await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { access_token: 'nope' } }), 401, 'unauthorized');
    const r = await t.request('POST', `/v1/items/${b.id}/cancel?access_token=${encodeURIComponent(b.accessToken)}`);
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('cancelled');
  });

  it('a second cancel is wrong_state; expected_version guards', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-26T15:00:00Z');
    expectProblem(
      await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { expected_version: 2 }, headers: { 'x-access-token': b.accessToken } }),
      409,
      'version_conflict',
    );
    expect((await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { expected_version: 1 }, headers: { 'x-access-token': b.accessToken } })).status).toBe(200);
    const again = await t.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
    expectProblem(again, 409, 'wrong_state');
  });

  it('cancels an order, declines a quote request and closes a conversation', async () => {
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1 }] } } });
    const quote = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Wedding hair' } } });
    const message = await t.request('POST', '/v1/messages', { body: { message: 'Do you sell gift cards?' } });
    const cancel = (created: any) => t.request('POST', `/v1/items/${created.body.id}/cancel`, { headers: { 'x-access-token': created.body.accessToken } });
    expect((await cancel(order)).body).toMatchObject({ state: 'cancelled', version: 2 });
    expect((await cancel(quote)).body).toMatchObject({ state: 'declined', version: 2 });
    expect((await cancel(message)).body).toMatchObject({ state: 'closed', version: 2 });
    expect((await ownerItem(t, quote.body.id)).events.map((e: any) => e.type)).toContain('quote_request.decline');
    expect((await ownerItem(t, message.body.id)).events.map((e: any) => e.type)).toContain('message.close');
  });
});

describe('cancel_item on orders and refunds', () => {
  it('cancels an order until it is paid; a paid order and its refund are the business\'s to handle', async () => {
    const unpaid = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1 }] } } });
    await ownerMove(t, unpaid.body.id, 'accept');
    await ownerMove(t, unpaid.body.id, 'request_payment');
    const cancelled = await t.request('POST', `/v1/items/${unpaid.body.id}/cancel`, { headers: { 'x-access-token': unpaid.body.accessToken } });
    expect(cancelled.body).toMatchObject({ state: 'cancelled', version: 4 });

    const paid = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'repair-mask', quantity: 1 }] } } });
    await ownerMove(t, paid.body.id, 'accept');
    await ownerMove(t, paid.body.id, 'record_payment');
    expect((await status(t, paid.body.id, paid.body.accessToken)).next.map((n: any) => n.event)).not.toContain('cancel');
    expectProblem(await t.request('POST', `/v1/items/${paid.body.id}/cancel`, { headers: { 'x-access-token': paid.body.accessToken } }), 409, 'wrong_state');
    await ownerMove(t, paid.body.id, 'cancel');
    const order = await status(t, paid.body.id, paid.body.accessToken);
    expect(order.state).toBe('cancelled');
    const refundId = order.payload.refundItemId as string;
    const refund = await status(t, refundId, paid.body.accessToken);
    expect(refund).toMatchObject({ type: 'refund', linkedItemId: paid.body.id, payload: { orderId: paid.body.id, amount: 1890, priceCurrency: 'EUR' } });
    expectProblem(await t.request('POST', `/v1/items/${refundId}/cancel`, { headers: { 'x-access-token': paid.body.accessToken } }), 403, 'not_allowed');
    // Accepting an order is the business's move, never the customer's.
    expectProblem(await t.request('POST', `/v1/items/${paid.body.id}/accept`, { headers: { 'x-access-token': paid.body.accessToken } }), 403, 'not_allowed');
  });
});

describe('cancel_item on confirmed bookings and the cancellation window', () => {
  let c: TestInbox;
  beforeAll(async () => {
    c = await startInbox();
  });
  afterAll(() => c.close());

  it('cancels a confirmed booking freely inside the window', async () => {
    c.clock.set('2026-11-23T10:00:00Z');
    const b = await createBooking(c, 'haircut', '2026-11-27T10:00:00Z');
    await ownerMove(c, b.id, 'confirm');
    c.clock.set('2026-11-26T09:59:00Z'); // 24 h 1 min before: still free
    const r = await c.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'cancelled', version: 3 });
    const owner = await ownerItem(c, b.id);
    expect(owner.events.at(-2)).toMatchObject({ type: 'booking.cancel', fromState: 'confirmed', toState: 'cancelled' });
    expect(owner.receipts.map((r: any) => r.outcome)).toEqual([null, 'booking.cancelled_by_customer']);
  });

  it('records a late cancellation after the window (booking.lateCancellation record, the default)', async () => {
    c.clock.set('2026-11-23T10:00:00Z');
    const b = await createBooking(c, 'haircut', '2026-11-27T11:00:00Z');
    await ownerMove(c, b.id, 'confirm');
    c.clock.set('2026-11-26T12:00:00Z'); // 23 h before
    const view = await status(c, b.id, b.accessToken);
    expect(view.next).toContainEqual(expect.objectContaining({ event: 'cancel', operation: 'cancel_item' }));
    const r = await c.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'cancelled_late', version: 3 });
    const owner = await ownerItem(c, b.id);
    expect(owner.receipts.map((r: any) => r.outcome)).toEqual([null, 'booking.cancelled_late_by_customer']);
    expect(owner.events.at(-2)).toMatchObject({
      type: 'booking.cancel_late',
      event: 'cancel_late',
      fromState: 'confirmed',
      toState: 'cancelled_late',
      version: 3,
      by: { kind: 'customer_agent', id: null, name: null },
      channel: 'rest',
    });
  });

  it('refuses after the window when the business refuses late cancellations, leaving the booking as it was', async () => {
    c.clock.set('2026-11-23T10:00:00Z');
    const settings = await setSettings(c, { booking: { lateCancellation: 'refuse' } });
    expect(settings.settings.booking.lateCancellation).toBe('refuse');
    try {
      const b = await createBooking(c, 'haircut', '2026-11-27T14:00:00Z');
      await ownerMove(c, b.id, 'confirm');
      // Inside the window the refusal setting changes nothing.
      expect((await status(c, b.id, b.accessToken)).next).toContainEqual(expect.objectContaining({ event: 'cancel' }));
      c.clock.set('2026-11-27T09:00:00Z'); // 5 h before
      const r = await c.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
      expectProblem(r, 409, 'guard_failed');
      expect(r.body.detail).toMatch(/does not accept late cancellations/);
      const after = await status(c, b.id, b.accessToken);
      expect(after).toMatchObject({ state: 'confirmed', version: 2 });
      expect(after.next.map((n: any) => n.event)).not.toContain('cancel');
      const owner = await ownerItem(c, b.id);
      expect(owner.events.map((e: any) => e.type)).toEqual(['booking.create', 'booking.confirm', 'booking.receipt_issued']);
    } finally {
      await setSettings(c, { booking: { lateCancellation: null } });
    }
  });

  it('a custom window applies: 2 hours', async () => {
    c.clock.set('2026-11-23T10:00:00Z');
    await setSettings(c, { booking: { cancellationWindowMinutes: 120 } });
    try {
      const b = await createBooking(c, 'haircut', '2026-11-27T16:00:00Z');
      await ownerMove(c, b.id, 'confirm');
      c.clock.set('2026-11-27T13:30:00Z'); // 2.5 h before: free
      const r = await c.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
      expect(r.body.state).toBe('cancelled');
    } finally {
      await setSettings(c, { booking: { cancellationWindowMinutes: null } });
    }
  });
});

describe('send_message', () => {
  it('starts a new conversation: 201 message item', async () => {
    const r = await t.request('POST', '/v1/messages', {
      body: { message: 'Olá! Do you cut curly hair?', payload: { subject: 'Curly hair' }, contact: { name: 'Marta', email: 'marta@example.com' } },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/v1/items/${r.body.id}`);
    expect(r.body).toMatchObject({ type: 'message', state: 'open', version: 1, needsHuman: true, payload: { subject: 'Curly hair' } });
    expect(r.body.accessToken).toEqual(expect.any(String));
    expect(r.body.conversation).toEqual([expect.objectContaining({ from: 'customer', text: 'Olá! Do you cut curly hair?', authorName: 'Marta' })]);
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { payload: { subject: 'x' } } }), 'message', 'missing');
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: '   ' } }), 'message');
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: 'x', payload: { topic: 'y' } } }), 'payload.topic');
  });

  it('a reply on an item does not change its version and records a <type>.message event', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-27T10:00:00Z');
    const r = await t.request('POST', '/v1/messages', { body: { item_id: b.id, message: 'I may be 5 minutes late.' }, headers: { 'x-access-token': b.accessToken } });
    expect(r.status).toBe(200);
    expect(r.headers.get('location')).toBeNull();
    expect(r.body).toMatchObject({ id: b.id, state: 'requested', version: 1 });
    expect(r.body).not.toHaveProperty('accessToken');
    expect(r.body.conversation).toEqual([expect.objectContaining({ from: 'customer', text: 'I may be 5 minutes late.' })]);
    expect((await status(t, b.id, b.accessToken)).version).toBe(1);
    const owner = await ownerItem(t, b.id);
    expect(owner.version).toBe(1);
    expect(owner.events).toContainEqual(
      expect.objectContaining({ type: 'booking.message', fromState: 'requested', toState: 'requested', version: 1, by: expect.objectContaining({ kind: 'customer_agent' }) }),
    );
    // The body token works too, and the owner can find the item by the message's words.
    const second = await t.request('POST', '/v1/messages', { body: { item_id: b.id, access_token: b.accessToken, message: 'Zanzibar parking question' } });
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(1);
    const found = await t.owner('GET', '/v1/owner/items?q=zanzibar');
    expect(found.body.items.map((i: any) => i.id)).toEqual([b.id]);
  });

  it('a reply needs the item token and an existing item', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-27T11:00:00Z');
    expectProblem(await t.request('POST', '/v1/messages', { body: { item_id: b.id, message: 'hi' } }), 401, 'unauthorized');
    expectProblem(await t.request('POST', '/v1/messages', { body: { item_id: b.id, message: 'hi', access_token: 'bad' } }), 401, 'unauthorized');
    expectProblem(
      await t.request('POST', '/v1/messages', { body: { item_id: '01JZZZZZZZZZZZZZZZZZZZZZZZ', message: 'hi', access_token: b.accessToken } }),
      404,
      'not_found',
    );
    expect((await ownerItem(t, b.id)).events.map((e: any) => e.type)).toEqual(['booking.create']);
  });

  it('a reply on an item waiting for details moves it back (provide_info)', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-27T14:00:00Z');
    await ownerMove(t, b.id, 'request_info');
    const waiting = await status(t, b.id, b.accessToken);
    expect(waiting).toMatchObject({ state: 'needs_info', version: 2 });
    expect(waiting.next).toContainEqual(expect.objectContaining({ event: 'provide_info', operation: 'send_message' }));
    const r = await t.request('POST', '/v1/messages', { body: { item_id: b.id, message: 'It is for my son, age 8.' }, headers: { 'x-access-token': b.accessToken } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'requested', version: 3 });
    const owner = await ownerItem(t, b.id);
    expect(owner.events.map((e: any) => e.type)).toEqual(['booking.create', 'booking.request_info', 'booking.message', 'booking.provide_info']);
    expect(owner.events.at(-1)).toMatchObject({ fromState: 'needs_info', toState: 'requested', version: 3, by: expect.objectContaining({ kind: 'customer_agent' }) });
  });

  it('a reply on a closed conversation reopens it; on an order waiting for details it moves on', async () => {
    const m = await t.request('POST', '/v1/messages', { body: { message: 'Question one' } });
    await t.request('POST', `/v1/items/${m.body.id}/cancel`, { headers: { 'x-access-token': m.body.accessToken } });
    const r = await t.request('POST', '/v1/messages', { body: { item_id: m.body.id, message: 'One more thing' }, headers: { 'x-access-token': m.body.accessToken } });
    expect(r.body).toMatchObject({ state: 'open', version: 3 });
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ name: 'Hair dryer', quantity: 1 }] } } });
    await ownerMove(t, order.body.id, 'request_info');
    const answer = await t.request('POST', '/v1/messages', { body: { item_id: order.body.id, message: 'The Dyson one' }, headers: { 'x-access-token': order.body.accessToken } });
    expect(answer.body).toMatchObject({ state: 'received', version: 3 });
    const owner = await ownerItem(t, order.body.id);
    expect(owner.events.map((e: any) => e.type)).toEqual(['order.create', 'order.request_info', 'order.message', 'order.provide_info']);
  });
});

describe('accept_offer and decline_offer', () => {
  it('accepts the time the business proposed for a booking', async () => {
    const b = await createBooking(t, 'haircut', '2026-12-03T10:00:00Z');
    const proposed = await ownerMove(t, b.id, 'propose', { startTime: '2026-12-03T15:00:00Z', note: 'Morning is full' });
    expect(proposed.state).toBe('proposed');
    const view = await status(t, b.id, b.accessToken);
    expect(view.payload.proposal).toEqual({ startTime: '2026-12-03T15:00:00.000+00:00', endTime: '2026-12-03T15:45:00.000+00:00', note: 'Morning is full' });
    expect(view.next).toContainEqual(expect.objectContaining({ event: 'accept', operation: 'accept_offer' }));
    expectProblem(
      await t.request('POST', `/v1/items/${b.id}/accept`, { body: { expected_version: 1 }, headers: { 'x-access-token': b.accessToken } }),
      409,
      'version_conflict',
    );
    expectProblem(await t.request('POST', `/v1/items/${b.id}/accept`), 401, 'unauthorized');
    const r = await t.request('POST', `/v1/items/${b.id}/accept`, { body: { expected_version: 2 }, headers: { 'x-access-token': b.accessToken } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'confirmed', version: 3 });
    expect(r.body.payload).toMatchObject({ startTime: '2026-12-03T15:00:00.000+00:00', endTime: '2026-12-03T15:45:00.000+00:00', price: 2500 });
    expect(r.body.payload).not.toHaveProperty('proposal');
    const owner = await ownerItem(t, b.id);
    expect(owner.events.at(-2)).toMatchObject({ type: 'booking.accept', fromState: 'proposed', toState: 'confirmed', by: expect.objectContaining({ kind: 'customer_agent' }) });
    expect(owner.events.at(-1)).toMatchObject({ type: 'booking.receipt_issued', version: 3, by: expect.objectContaining({ kind: 'customer_agent' }) });
    expectProblem(await t.request('POST', `/v1/items/${b.id}/accept`, { headers: { 'x-access-token': b.accessToken } }), 409, 'wrong_state');
  });

  it('accepting a proposal whose slot was filled meanwhile is slot_taken', async () => {
    const b = await createBooking(t, 'beard-trim', '2026-12-03T10:00:00Z');
    await ownerMove(t, b.id, 'propose', { startTime: '2026-12-03T16:00:00Z' });
    const rival = await createBooking(t, 'beard-trim', '2026-12-03T16:00:00Z');
    await ownerMove(t, rival.id, 'confirm');
    const r = await t.request('POST', `/v1/items/${b.id}/accept`, { headers: { 'x-access-token': b.accessToken } });
    expectProblem(r, 409, 'slot_taken');
    expect((await status(t, b.id, b.accessToken)).state).toBe('proposed');
  });

  it('a proposed time that has passed can no longer be accepted', async () => {
    const b = await createBooking(t, 'haircut', '2026-12-08T10:00:00Z');
    await ownerMove(t, b.id, 'propose', { startTime: '2026-11-24T15:00:00Z' });
    const before = t.clock.now();
    t.clock.set('2026-11-24T15:30:00Z');
    try {
      expectProblem(await t.request('POST', `/v1/items/${b.id}/accept`, { headers: { 'x-access-token': b.accessToken } }), 409, 'guard_failed');
      expect((await status(t, b.id, b.accessToken)).state).toBe('proposed');
    } finally {
      t.clock.set(new Date(before).toISOString());
    }
  });

  it('accepting a quote creates the linked order, readable with the same token', async () => {
    const q = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Hair extensions, 40 cm' }, contact: { name: 'Sofia', email: 'sofia@example.com' } } });
    expectProblem(await t.request('POST', `/v1/items/${q.body.id}/accept`, { headers: { 'x-access-token': q.body.accessToken } }), 409, 'wrong_state');
    await ownerMove(t, q.body.id, 'quote', { totalPrice: 45000, validThrough: '2026-12-10T00:00:00Z', description: 'Extensions package' });
    const quoted = await status(t, q.body.id, q.body.accessToken);
    expect(quoted.payload.quote).toMatchObject({ totalPrice: 45000, priceCurrency: 'EUR', creates: 'order', validThrough: '2026-12-10T00:00:00.000Z' });
    expect(quoted.next.map((n: any) => [n.event, n.operation])).toEqual(expect.arrayContaining([['accept', 'accept_offer'], ['decline', 'decline_offer']]));
    const r = await t.request('POST', `/v1/items/${q.body.id}/accept`, { headers: { 'x-access-token': q.body.accessToken } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'accepted', version: 3, linkedItemId: expect.any(String) });
    expect(r.body.payload.acceptedItemId).toBe(r.body.linkedItemId);
    const order = await status(t, r.body.linkedItemId, q.body.accessToken);
    expect(order).toMatchObject({
      type: 'order',
      state: 'received',
      version: 1,
      linkedItemId: q.body.id,
      payload: { totalPrice: 45000, priceCurrency: 'EUR', lines: [{ name: 'Extensions package', quantity: 1, price: 45000, priceStatus: 'business' }] },
    });
    const ownerOrder = await ownerItem(t, r.body.linkedItemId);
    expect(ownerOrder.contact).toMatchObject({ name: 'Sofia', email: 'sofia@example.com' });
  });

  it('accepting a quote that creates a booking makes the booking', async () => {
    const q = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Bridal trial', serviceId: 'bridal-styling' } } });
    await ownerMove(t, q.body.id, 'quote', {
      totalPrice: 12000,
      validThrough: '2026-12-01T00:00:00Z',
      creates: 'booking',
      startTime: '2026-12-04T10:00:00Z',
      endTime: '2026-12-04T12:00:00Z',
    });
    const r = await t.request('POST', `/v1/items/${q.body.id}/accept`, { body: { access_token: q.body.accessToken } });
    expect(r.status).toBe(200);
    const created = await status(t, r.body.linkedItemId, q.body.accessToken);
    expect(created).toMatchObject({
      type: 'booking',
      state: 'requested',
      linkedItemId: q.body.id,
      payload: { serviceId: 'bridal-styling', price: 12000, priceStatus: 'business', durationMinutes: 120 },
    });
  });

  it('declines a quote, and refuses to accept one past its date', async () => {
    const q = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Highlights' } } });
    await ownerMove(t, q.body.id, 'quote', { totalPrice: 9000, validThrough: '2026-11-25T00:00:00Z' });
    const declined = await t.request('POST', `/v1/items/${q.body.id}/decline`, { body: { reason: 'Too expensive' }, headers: { 'x-access-token': q.body.accessToken } });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ state: 'declined', version: 3, linkedItemId: null });
    expect((await ownerItem(t, q.body.id)).events.at(-1)).toMatchObject({ type: 'quote_request.decline', reason: 'Too expensive' });

    const late = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Perm' } } });
    await ownerMove(t, late.body.id, 'quote', { totalPrice: 9000, validThrough: '2026-11-24T00:00:00Z' });
    const before = t.clock.now();
    t.clock.advance(2 * DAY);
    try {
      const r = await t.request('POST', `/v1/items/${late.body.id}/accept`, { headers: { 'x-access-token': late.body.accessToken } });
      expectProblem(r, 409, 'guard_failed');
      expect((await status(t, late.body.id, late.body.accessToken))).toMatchObject({ state: 'quoted', version: 2, linkedItemId: null });
    } finally {
      t.clock.set(new Date(before).toISOString());
    }
  });

  it('decline_offer is not for a booking proposal (the customer cancels instead)', async () => {
    const b = await createBooking(t, 'haircut', '2026-12-04T10:00:00Z');
    await ownerMove(t, b.id, 'propose', { startTime: '2026-12-04T15:00:00Z' });
    const r = await t.request('POST', `/v1/items/${b.id}/decline`, { headers: { 'x-access-token': b.accessToken } });
    expectProblem(r, 403, 'not_allowed');
    const cancelled = await t.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } });
    expect(cancelled.body.state).toBe('cancelled');
  });
});
