/**
 * Pricing rules 1–5 of create_booking and create_order (inbox spec §4), over real HTTP: the
 * catalogue's price wins, a different stated price is kept as customerStatedPrice, catalogue names
 * replace the request's, contradictions and totals too large to write exactly are refused, and what
 * the catalogue does not price waits for the business (§3 rule 2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';
import { booking, expectFieldProblem, expectProblem, ownerItem } from './support/customer-calls.js';

let t: TestInbox;
const MAX = Number.MAX_SAFE_INTEGER;

beforeAll(async () => {
  t = await startInbox();
  const products = [
    { productId: 'diamond-tiara', sku: 'AUR-DT-01', name: 'Diamond tiara', price: MAX },
    { productId: 'half-max', sku: 'AUR-HM-01', name: 'Half of the largest price', price: Math.floor(MAX / 2) },
    { productId: 'retired-brush', sku: 'AUR-RB-01', name: 'Retired brush', price: 900 },
  ];
  for (const product of products) expect((await t.owner('POST', '/v1/owner/products', { body: { product } })).status).toBe(201);
  expect((await t.owner('DELETE', '/v1/owner/products/retired-brush')).status).toBe(200);
});
afterAll(() => t.close());

const order = (lines: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  t.request('POST', '/v1/orders', { body: { payload: { lines, ...extra }, contact: { name: 'Rui Pinto' } } });

describe('bookings', () => {
  it('a fixed-price service costs what the catalogue says; a different stated price is kept aside', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T10:00:00Z', { price: 1000 }) });
    expect(r.status).toBe(201);
    expect(r.body.payload).toMatchObject({ price: 2500, priceStatus: 'catalogue', priceModel: 'fixed', customerStatedPrice: 1000, serviceName: 'Haircut' });
    expect(r.body.needsHuman).toBe(false);
    const owner = await ownerItem(t, r.body.id);
    expect(owner.payload).toMatchObject({ price: 2500, customerStatedPrice: 1000 });
  });

  it('a stated price equal to the catalogue is not kept, and none stated keeps none', async () => {
    const same = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T11:00:00Z', { price: 2500 }) });
    expect(same.body.payload.price).toBe(2500);
    expect(same.body.payload).not.toHaveProperty('customerStatedPrice');
    const none = await t.request('POST', '/v1/bookings', { body: booking('beard-trim', '2026-11-24T11:00:00Z') });
    expect(none.body.payload).toMatchObject({ price: 1200, priceStatus: 'catalogue', serviceName: 'Beard trim', durationMinutes: 20 });
    expect(none.body.payload).not.toHaveProperty('customerStatedPrice');
  });

  it('a stated price above the largest exact amount is refused', async () => {
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T12:00:00Z', { price: MAX + 2 }) }), 'payload.price');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T12:00:00Z', { price: 12.5 }) }), 'payload.price');
    expectFieldProblem(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T12:00:00Z', { price: -1 }) }), 'payload.price');
  });

  it.each([
    ['colouring', 'from'],
    ['bridal-styling', 'quote'],
    ['consultation', 'none'],
  ])('a %s service (priced %s) waits for the business to price it', async (serviceId, model) => {
    const r = await t.request('POST', '/v1/bookings', { body: booking(serviceId, '2026-11-25T14:00:00Z', { price: 5000 }) });
    expect(r.status).toBe(201);
    expect(r.body.payload).toMatchObject({ priceModel: model, price: null, priceStatus: 'awaiting_business', customerStatedPrice: 5000 });
    expect(r.body.needsHuman).toBe(true);
  });

  it('a fixed-price service booked for longer than it lasts waits for the business', async () => {
    const r = await t.request('POST', '/v1/bookings', {
      body: booking('haircut', '2026-11-26T10:00:00Z', { endTime: '2026-11-26T11:30:00Z' }),
    });
    expect(r.status).toBe(201);
    expect(r.body.payload).toMatchObject({ durationMinutes: 90, price: null, priceStatus: 'awaiting_business', priceModel: 'fixed' });
    expect(r.body.payload).not.toHaveProperty('customerStatedPrice');
    expect(r.body.needsHuman).toBe(true);
    // Exactly its duration, or shorter, is the catalogue price.
    const exact = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-26T14:00:00Z', { endTime: '2026-11-26T14:45:00Z' }) });
    expect(exact.body.payload).toMatchObject({ durationMinutes: 45, price: 2500, priceStatus: 'catalogue' });
    expect(exact.body.needsHuman).toBe(false);
  });

  it('a booking the business must price is priced when it confirms it', async () => {
    const r = await t.request('POST', '/v1/bookings', { body: booking('colouring', '2026-11-27T14:00:00Z', { price: 6000 }) });
    const confirmed = await t.owner('POST', `/v1/owner/items/${r.body.id}/transitions`, { body: { event: 'confirm', input: { price: 8500 } } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.payload).toMatchObject({ price: 8500, priceStatus: 'business', customerStatedPrice: 6000 });
  });
});

describe('orders', () => {
  it('lines cost the catalogue price; the total is prices times quantities', async () => {
    const r = await order([
      { productId: 'argan-shampoo', quantity: 3 },
      { sku: 'AUR-MK-200', quantity: 2 },
      { productId: 'wooden-comb', sku: 'AUR-CB-01', quantity: 1 },
    ]);
    expect(r.status).toBe(201);
    expect(r.body.needsHuman).toBe(false);
    expect(r.body.payload).toEqual({
      lines: [
        { productId: 'argan-shampoo', sku: 'AUR-SH-250', name: 'Argan shampoo 250 ml', quantity: 3, price: 1450, priceStatus: 'catalogue' },
        { productId: 'repair-mask', sku: 'AUR-MK-200', name: 'Repair mask 200 ml', quantity: 2, price: 1890, priceStatus: 'catalogue' },
        { productId: 'wooden-comb', sku: 'AUR-CB-01', name: 'Wooden comb', quantity: 1, price: 650, priceStatus: 'catalogue' },
      ],
      totalPrice: 3 * 1450 + 2 * 1890 + 650,
      priceCurrency: 'EUR',
    });
  });

  it('different stated prices are kept per line and for the total; equal ones are not', async () => {
    const r = await order(
      [
        { productId: 'argan-shampoo', quantity: 2, price: 999 },
        { productId: 'wooden-comb', quantity: 1, price: 650 },
      ],
      { totalPrice: 1000 },
    );
    expect(r.status).toBe(201);
    const [shampoo, comb] = r.body.payload.lines;
    expect(shampoo).toMatchObject({ price: 1450, customerStatedPrice: 999 });
    expect(comb.price).toBe(650);
    expect(comb).not.toHaveProperty('customerStatedPrice');
    expect(r.body.payload).toMatchObject({ totalPrice: 2 * 1450 + 650, customerStatedPrice: 1000 });
    const equalTotal = await order([{ productId: 'wooden-comb', quantity: 2 }], { totalPrice: 1300 });
    expect(equalTotal.body.payload.totalPrice).toBe(1300);
    expect(equalTotal.body.payload).not.toHaveProperty('customerStatedPrice');
  });

  it("catalogue names replace the request's name, sku and productId", async () => {
    const r = await order([
      { sku: 'AUR-SH-250', name: 'Cheap shampoo', quantity: 1 },
      { productId: 'repair-mask', name: 'Mask (the green one)', quantity: 1 },
      { productId: 'sea-salt-spray', sku: 'AUR-SP-150', name: 'Spray', quantity: 1 },
    ]);
    expect(r.status).toBe(201);
    expect(r.body.payload.lines.map((l: any) => [l.productId, l.sku, l.name])).toEqual([
      ['argan-shampoo', 'AUR-SH-250', 'Argan shampoo 250 ml'],
      ['repair-mask', 'AUR-MK-200', 'Repair mask 200 ml'],
      ['sea-salt-spray', 'AUR-SP-150', 'Sea salt spray 150 ml'],
    ]);
  });

  it('a productId and sku naming two different products are refused with 422 naming both fields', async () => {
    const r = await order([
      { productId: 'wooden-comb', quantity: 1 },
      { productId: 'argan-shampoo', sku: 'AUR-MK-200', quantity: 1 },
    ]);
    expectProblem(r, 422, 'invalid_input');
    expect(r.body.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'payload.lines.1.productId', problem: 'invalid' }),
        expect.objectContaining({ path: 'payload.lines.1.sku', problem: 'invalid' }),
      ]),
    );
    const items = await t.owner('GET', '/v1/owner/items?type=order&q=argan');
    expect(items.body.items.every((i: any) => i.payload.lines.length !== 2 || i.payload.lines[1].sku !== 'AUR-MK-200')).toBe(true);
  });

  it('a line naming no product the business has waits for the business', async () => {
    const r = await order([
      { productId: 'argan-shampoo', quantity: 1 },
      { name: 'Hair dryer', quantity: 1, price: 4000 },
      { sku: 'NOT-A-SKU', quantity: 2 },
      { productId: 'retired-brush', quantity: 1 },
    ]);
    expect(r.status).toBe(201);
    expect(r.body.needsHuman).toBe(true);
    expect(r.body.payload.totalPrice).toBeNull();
    const [known, dryer, unknownSku, retired] = r.body.payload.lines;
    expect(known).toMatchObject({ price: 1450, priceStatus: 'catalogue' });
    expect(dryer).toEqual({ productId: null, sku: null, name: 'Hair dryer', quantity: 1, price: null, priceStatus: 'awaiting_business', customerStatedPrice: 4000 });
    expect(unknownSku).toMatchObject({ productId: null, sku: 'NOT-A-SKU', price: null, priceStatus: 'awaiting_business' });
    expect(unknownSku.name).toEqual(expect.any(String));
    expect(retired).toMatchObject({ productId: 'retired-brush', price: null, priceStatus: 'awaiting_business' });
    // Nothing accepts it automatically: the owner must price the open lines.
    const refused = await t.owner('POST', `/v1/owner/items/${r.body.id}/transitions`, { body: { event: 'accept' } });
    expectProblem(refused, 409, 'guard_failed');
    const accepted = await t.owner('POST', `/v1/owner/items/${r.body.id}/transitions`, {
      body: { event: 'accept', input: { linePrices: [{ line: 1, price: 3500 }, { line: 2, price: 100 }, { line: 3, price: 900 }] } },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.payload.totalPrice).toBe(1450 + 3500 + 200 + 900);
  });

  it('a total exactly at the largest exact amount is taken; one above it is refused with 422', async () => {
    const atMax = await order([{ productId: 'diamond-tiara', quantity: 1 }]);
    expect(atMax.status).toBe(201);
    expect(atMax.body.payload.totalPrice).toBe(MAX);
    const twice = await order([{ productId: 'diamond-tiara', quantity: 2 }]);
    expectProblem(twice, 422, 'invalid_input');
    expect(twice.body.fields).toEqual([expect.objectContaining({ path: expect.stringMatching(/^payload\.lines/), problem: 'invalid' })]);
    const twoLines = await order([
      { productId: 'half-max', quantity: 2 },
      { productId: 'wooden-comb', quantity: 1 },
    ]);
    expectProblem(twoLines, 422, 'invalid_input');
    const many = await order([{ productId: 'gift-card-50', quantity: 100_000 }]);
    expect(many.status).toBe(201);
    expect(many.body.payload.totalPrice).toBe(5000 * 100_000);
    expectFieldProblem(await order([{ productId: 'wooden-comb', quantity: 1 }], { totalPrice: MAX + 2 }), 'payload.totalPrice');
  });

  it('an order in another currency is refused', async () => {
    expectFieldProblem(await order([{ productId: 'wooden-comb', quantity: 1 }], { priceCurrency: 'USD' }), 'payload.priceCurrency');
    const eur = await order([{ productId: 'wooden-comb', quantity: 1 }], { priceCurrency: 'EUR' });
    expect(eur.status).toBe(201);
  });

  it('a line must name something', async () => {
    const r = await order([{ quantity: 1 }]);
    expectProblem(r, 422, 'invalid_input');
    expect(r.body.fields[0].path).toMatch(/^payload\.lines\.0/);
  });
});

describe('rule 5: a custom job is a quote request', () => {
  it('prices nothing itself and leaves the price to the business', async () => {
    const r = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Custom wig', budget: 20000 } } });
    expect(r.status).toBe(201);
    expect(r.body.payload).toEqual({ description: 'Custom wig', budget: 20000 });
    expect(r.body.needsHuman).toBe(true);
    const quoted = await t.owner('POST', `/v1/owner/items/${r.body.id}/transitions`, {
      body: { event: 'quote', input: { totalPrice: 25000, validThrough: '2026-12-15T00:00:00Z' } },
    });
    expect(quoted.body.payload.quote).toMatchObject({ totalPrice: 25000, priceCurrency: 'EUR' });
    expect(quoted.body.payload.budget).toBe(20000);
  });
});
