/**
 * Owner setup (inbox spec §4 "Setup operations"): profile, services, products, opening hours and
 * closures, and how each shows on the public side (get_business_profile, list_services,
 * list_products, check_availability).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';

describe('update_profile', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('merges the fields sent, counts versions and shows on the public profile', async () => {
    const before = await t.owner('GET', '/v1/owner/profile');
    expect(before.status).toBe(200);
    expect(before.body.profile).toMatchObject({ name: 'Salão Aurora', timeZone: 'Europe/Lisbon', currency: 'EUR', telephone: '+351 213 000 000' });
    const version = before.body.version;
    expect(version).toBeGreaterThanOrEqual(1);

    const r = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { description: 'Now open on Saturdays too.', languages: ['pt-PT', 'en', 'es'] } } });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(version + 1);
    // Fields not sent stay as they were.
    expect(r.body.profile).toEqual({ ...before.body.profile, description: 'Now open on Saturdays too.', languages: ['pt-PT', 'en', 'es'] });

    const pub = await t.request('GET', '/v1/business');
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ name: 'Salão Aurora', description: 'Now open on Saturdays too.', languages: ['pt-PT', 'en', 'es'] });
  });

  it('removes an optional field sent as null', async () => {
    const r = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { telephone: null } } });
    expect(r.status).toBe(200);
    expect(r.body.profile).not.toHaveProperty('telephone');
    expect((await t.request('GET', '/v1/business')).body).not.toHaveProperty('telephone');
    expect(r.body.profile.name).toBe('Salão Aurora');
  });

  it('refuses an invalid time zone, currency or unknown field with 422 and keeps the profile', async () => {
    const before = await t.owner('GET', '/v1/owner/profile');
    const cases: [Record<string, unknown>, string][] = [
      [{ timeZone: 'Mars/Olympus_Mons' }, 'profile.timeZone'],
      [{ currency: 'euro' }, 'profile.currency'],
      [{ name: null }, 'profile.name'],
      [{ itemTypes: ['parcel'] }, 'profile.itemTypes.0'],
      [{ favouriteColour: 'blue' }, 'profile.favouriteColour'],
    ];
    for (const [profile, path] of cases) {
      const r = await t.owner('PATCH', '/v1/owner/profile', { body: { profile } });
      expect(r.status, JSON.stringify(profile)).toBe(422);
      expect(r.body.code).toBe('invalid_input');
      expect(r.body.fields.map((f: any) => f.path)).toContain(path);
    }
    expect(await t.owner('GET', '/v1/owner/profile')).toMatchObject({ body: before.body });
  });

  it('refuses a stale expected_version with 409 and accepts the current one', async () => {
    const { version } = (await t.owner('GET', '/v1/owner/profile')).body;
    const stale = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Other name' }, expected_version: version - 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('version_conflict');
    expect((await t.request('GET', '/v1/business')).body.name).toBe('Salão Aurora');

    const ok = await t.owner('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Salão Aurora & Filhos' }, expected_version: version } });
    expect(ok.status).toBe(200);
    expect(ok.body.version).toBe(version + 1);
    expect((await t.request('GET', '/v1/business')).body.name).toBe('Salão Aurora & Filhos');
  });

  it('is an owner operation', async () => {
    expect((await t.request('PATCH', '/v1/owner/profile', { body: { profile: { name: 'Hijacked' } } })).status).toBe(401);
    expect((await t.request('GET', '/v1/business')).body.name).not.toBe('Hijacked');
  });
});

describe('services', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  const publicServiceIds = async () => (await t.request('GET', '/v1/services?limit=100')).body.items.map((s: any) => s.id);

  it('creates a service with 201 and changes it with 200', async () => {
    const service = { id: 'kids-cut', name: 'Kids cut', durationMinutes: 30, priceModel: 'fixed', price: 1500 };
    const created = await t.owner('POST', '/v1/owner/services', { body: { service } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...service, priceCurrency: 'EUR', capacity: 1, maxPartySize: 1, active: true, description: null });
    expect(await publicServiceIds()).toContain('kids-cut');

    const changed = await t.owner('POST', '/v1/owner/services', { body: { service: { ...service, price: 1800, description: 'Under 12.' } } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: 'kids-cut', price: 1800, description: 'Under 12.' });
    const listed = (await t.request('GET', '/v1/services?limit=100')).body.items.filter((s: any) => s.id === 'kids-cut');
    expect(listed).toHaveLength(1);
    expect(listed[0].price).toBe(1800);
  });

  it('makes an id from the name when none is sent', async () => {
    const r = await t.owner('POST', '/v1/owner/services', { body: { service: { name: 'Escova Clássica', durationMinutes: 30, priceModel: 'none' } } });
    expect(r.status).toBe(201);
    expect(r.body.id).toBe('escova-classica');
  });

  it('refuses a fixed or from price model without a price, and other invalid services, with 422', async () => {
    const fixed = await t.owner('POST', '/v1/owner/services', { body: { service: { id: 'free-lunch', name: 'Free lunch', durationMinutes: 30, priceModel: 'fixed' } } });
    expect(fixed.status).toBe(422);
    expect(fixed.body.fields.map((f: any) => f.path)).toEqual(['service.price']);
    const from = await t.owner('POST', '/v1/owner/services', { body: { service: { id: 'free-lunch', name: 'Free lunch', durationMinutes: 30, priceModel: 'from', price: null } } });
    expect(from.status).toBe(422);
    const short = await t.owner('POST', '/v1/owner/services', { body: { service: { id: 'free-lunch', name: 'Free lunch', durationMinutes: 1, priceModel: 'none' } } });
    expect(short.status).toBe(422);
    expect(short.body.fields.map((f: any) => f.path)).toContain('service.durationMinutes');
    const party = await t.owner('POST', '/v1/owner/services', {
      body: { service: { id: 'free-lunch', name: 'Free lunch', durationMinutes: 30, priceModel: 'none', capacity: 2, maxPartySize: 3 } },
    });
    expect(party.status).toBe(422);
    expect(party.body.fields.map((f: any) => f.path)).toContain('service.maxPartySize');
    expect(await publicServiceIds()).not.toContain('free-lunch');
  });

  it('archives a service: gone from the public list and from booking, kept for the owner', async () => {
    expect(await publicServiceIds()).toContain('beard-trim');
    const r = await t.owner('DELETE', '/v1/owner/services/beard-trim');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 'beard-trim', active: false });
    expect(await publicServiceIds()).not.toContain('beard-trim');

    const owners = (await t.owner('GET', '/v1/owner/services?limit=100')).body.items;
    expect(owners.find((s: any) => s.id === 'beard-trim')).toMatchObject({ active: false });

    // Reading an archived service's times: the service is not there (404); booking it is bad input (422).
    const availability = await t.request('GET', '/v1/availability?service=beard-trim&from=2026-11-24&to=2026-11-24');
    expect(availability.status).toBe(404);
    expect(availability.body.code).toBe('not_found');
    const booking = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'beard-trim', startTime: '2026-11-24T10:00:00Z' } } });
    expect(booking.status).toBe(422);

    expect((await t.owner('DELETE', '/v1/owner/services/no-such-service')).status).toBe(404);
  });
});

describe('products', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  const publicProducts = async (q?: string) =>
    (await t.request('GET', `/v1/products?limit=100${q ? `&q=${encodeURIComponent(q)}` : ''}`)).body.items as any[];

  it('creates a product with 201, changes it with 200, and lists it publicly', async () => {
    const product = { productId: 'curl-cream', sku: 'AUR-CC-100', name: 'Curl cream 100 ml', price: 1650, category: 'Styling' };
    const created = await t.owner('POST', '/v1/owner/products', { body: { product } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...product, priceCurrency: 'EUR', inStock: true, active: true });
    expect((await publicProducts('curl')).map((p) => p.productId)).toEqual(['curl-cream']);

    const changed = await t.owner('POST', '/v1/owner/products', { body: { product: { ...product, price: 1700 } } });
    expect(changed.status).toBe(200);
    expect(changed.body.price).toBe(1700);
    expect((await publicProducts('curl'))[0].price).toBe(1700);
  });

  it('refuses a SKU that already belongs to another product with 422 naming the sku', async () => {
    const r = await t.owner('POST', '/v1/owner/products', { body: { product: { productId: 'copycat', sku: 'AUR-SH-250', name: 'Copycat shampoo', price: 100 } } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_input');
    expect(r.body.fields.map((f: any) => f.path)).toEqual(['product.sku']);
    expect((await t.owner('GET', '/v1/owner/products?limit=100')).body.items.map((p: any) => p.productId)).not.toContain('copycat');

    // Without a productId the id comes from the SKU, so it is still another product.
    const implicit = await t.owner('POST', '/v1/owner/products', { body: { product: { sku: 'AUR-SH-250', name: 'Copycat shampoo', price: 100 } } });
    expect(implicit.status).toBe(422);

    // The product holding the SKU may keep it.
    const same = await t.owner('POST', '/v1/owner/products', { body: { product: { productId: 'argan-shampoo', sku: 'AUR-SH-250', name: 'Argan shampoo 250 ml', price: 1450 } } });
    expect(same.status).toBe(200);
  });

  it('archives a product: gone from the public list, kept for the owner, no longer priced in orders', async () => {
    expect((await publicProducts()).map((p) => p.productId)).toContain('wooden-comb');
    const r = await t.owner('DELETE', '/v1/owner/products/wooden-comb');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ productId: 'wooden-comb', active: false });
    expect((await publicProducts()).map((p) => p.productId)).not.toContain('wooden-comb');
    expect((await publicProducts('comb')).length).toBe(0);
    const owners = (await t.owner('GET', '/v1/owner/products?q=comb')).body.items;
    expect(owners).toEqual([expect.objectContaining({ productId: 'wooden-comb', active: false })]);

    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1 }] } } });
    expect(order.status).toBe(201);
    expect(order.body.payload.lines[0]).toMatchObject({ price: null, priceStatus: 'awaiting_business' });

    expect((await t.owner('DELETE', '/v1/owner/products/no-such-product')).status).toBe(404);
  });
});

describe('opening hours and closures', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  // Clock: Monday 2026-11-23 10:00Z. Lisbon is on UTC in November and December.
  const slots = async (from: string, to: string, service = 'beard-trim') => {
    const r = await t.request('GET', `/v1/availability?service=${service}&from=${from}&to=${to}`);
    expect(r.status).toBe(200);
    return (r.body.slots as { start: string }[]).map((s) => new Date(s.start).toISOString().slice(0, 16));
  };

  it('starts from the demo hours: closed on Mondays, open on Tuesdays', async () => {
    expect(await slots('2026-11-30', '2026-11-30')).toEqual([]);
    expect((await slots('2026-12-01', '2026-12-01')).length).toBeGreaterThan(0);
  });

  it('replaces the weekly hours, and check_availability follows', async () => {
    const r = await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: [{ dayOfWeek: 1, opens: '10:00', closes: '11:00' }] } });
    expect(r.status).toBe(200);
    expect(r.body.openingHours).toEqual([{ dayOfWeek: 1, opens: '10:00', closes: '11:00' }]);
    expect(r.body.timeZone).toBe('Europe/Lisbon');

    // Beard trim: 20 minutes every 10 minutes, so starts 10:00 … 10:40.
    expect(await slots('2026-11-30', '2026-11-30')).toEqual([
      '2026-11-30T10:00',
      '2026-11-30T10:10',
      '2026-11-30T10:20',
      '2026-11-30T10:30',
      '2026-11-30T10:40',
    ]);
    expect(await slots('2026-12-01', '2026-12-01')).toEqual([]);
    expect((await t.owner('GET', '/v1/owner/availability')).body.openingHours).toEqual(r.body.openingHours);
  });

  it('replaces the closures, and check_availability follows', async () => {
    const before = (await t.owner('GET', '/v1/owner/availability')).body.closures;
    expect(before.map((c: any) => c.startDate)).toEqual(['2026-12-24']);

    const r = await t.owner('PUT', '/v1/owner/availability/closures', {
      body: { closures: [{ startDate: '2026-11-30', endDate: '2026-11-30', reason: 'Staff training' }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.closures).toEqual([{ id: expect.any(String), startDate: '2026-11-30', endDate: '2026-11-30', reason: 'Staff training' }]);

    expect(await slots('2026-11-30', '2026-11-30')).toEqual([]);
    // The Monday after is open again; the Christmas closure was replaced.
    expect(await slots('2026-12-07', '2026-12-07')).toHaveLength(5);

    const cleared = await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [] } });
    expect(cleared.body.closures).toEqual([]);
    expect(await slots('2026-11-30', '2026-11-30')).toHaveLength(5);
  });

  it('refuses invalid hours and closures with 422 and keeps what was set', async () => {
    const set = (await t.owner('GET', '/v1/owner/availability')).body;
    const badHours = [
      [{ dayOfWeek: 8, opens: '10:00', closes: '11:00' }, 'openingHours.0.dayOfWeek'],
      [{ dayOfWeek: 1, opens: '25:00', closes: '11:00' }, 'openingHours.0.opens'],
      [{ dayOfWeek: 1, opens: '9:00', closes: '11:00' }, 'openingHours.0.opens'],
    ] as const;
    for (const [range, path] of badHours) {
      const r = await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: [range] } });
      expect(r.status, JSON.stringify(range)).toBe(422);
      expect(r.body.fields.map((f: any) => f.path)).toContain(path);
    }
    const backwards = await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-12-10', endDate: '2026-12-09' }] } });
    expect(backwards.status).toBe(422);
    expect(backwards.body.fields.map((f: any) => f.path)).toContain('closures.0.endDate');
    const notADate = await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-02-30', endDate: '2026-03-01' }] } });
    expect(notADate.status).toBe(422);

    expect((await t.owner('GET', '/v1/owner/availability')).body).toEqual(set);
  });

  it('keeps availability writes for the owner', async () => {
    const r = await t.request('PUT', '/v1/owner/availability/hours', { body: { openingHours: [] } });
    expect(r.status).toBe(401);
    expect((await t.owner('GET', '/v1/owner/availability')).body.openingHours).toHaveLength(1);
  });
});
