/**
 * Receipts are signed exactly at the moves the machines name (docs/receipts.md "When a receipt is
 * issued"), in the same transaction as the move: a move refused or rolled back signs nothing. Every
 * receipt verifies with jose against /.well-known/jwks.json, binds the item, the business, the
 * promise and its outcome, and carries no customer data in clear. It shows on the owner's get_item,
 * on the customer's status view (REST and MCP), in the event stream and, in full style, as
 * data.receipt of a webhook.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../test-support/mcp-client.js';
import { moveItem } from '../src/domain/items/item-writer.js';
import { fullReceiptEventSchema } from '../src/domain/events/event-schemas.js';
import { DAY, HOUR, createBooking, expectProblem, ownerMove, setSettings, status } from './support/customer-calls.js';
import { startInbox, type TestInbox } from './support/harness.js';
import { receiptWords, receiptsOf, verifyReceiptWithJose } from './support/receipts.js';
import { startWebhookInbox } from './support/webhooks-inbox.js';
import { startReceiver } from './support/webhook-receiver.js';

const TUESDAY_2PM = '2026-11-24T14:00:00Z';
const startMs = Date.parse(TUESDAY_2PM);

async function createOrder(t: TestInbox, email = 'ana@example.com') {
  const r = await t.request('POST', '/v1/orders', {
    body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 2 }] }, contact: { name: 'Ana Silva', email, phone: '+351 912 345 678' } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string };
}

async function customerCancel(t: TestInbox, id: string, token: string) {
  const r = await t.request('POST', `/v1/items/${id}/cancel`, { body: {}, headers: { 'x-access-token': token } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe('receipts are issued at the moves that make them due', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(async () => {
    await t.close();
  });

  it('a confirmed booking: a receipt jose verifies, binding item, business and promise, no personal data', async () => {
    const booking = await createBooking(t, 'haircut', TUESDAY_2PM);
    expect(await receiptWords(t, booking.id)).toEqual([]);
    const confirmed = await ownerMove(t, booking.id, 'confirm');
    expect(confirmed.version).toBe(2);
    const [receipt] = confirmed.receipts;
    expect(confirmed.receipts).toHaveLength(1);

    const { header, claims } = await verifyReceiptWithJose(t, receipt.jws);
    const jwks = (await t.request('GET', '/.well-known/jwks.json')).body;
    expect(header).toEqual({ alg: 'EdDSA', typ: 'svc-receipt+jws', kid: jwks.keys[0].kid });
    expect(claims).toEqual({
      ver: 2,
      iss: 'http://127.0.0.1',
      sub: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      itm: booking.id,
      typ: 'booking',
      knd: 'confirmed',
      iat: Math.floor(t.clock.now() / 1000),
      nonce: receipt.receipt_id,
      due: startMs / 1000,
      end: startMs / 1000 + 45 * 60,
      amt: 2500,
      cur: 'EUR',
      evt: 'booking.confirm',
    });
    expect(receipt).toMatchObject({ kind: 'confirmed', outcome: null, event: 'booking.confirm', kid: header.kid, claims, sandbox: false, acknowledged: false, acknowledgement: null });
    expect(receipt.receipt_id).toMatch(/^[0-9a-f]{32}$/);
    // Nothing of the customer in clear: not the name, the email, nor the access token.
    const decoded = Buffer.from(receipt.jws.split('.')[1], 'base64url').toString('utf8');
    for (const secret of ['Ana', 'ana@example.com', 'example.com', booking.accessToken]) expect(decoded).not.toContain(secret);

    // The customer sees it on the status view, REST and MCP alike.
    const view = await status(t, booking.id, booking.accessToken);
    expect(view.receipts).toEqual(confirmed.receipts);
    const mcp = await connectMcp(`${t.baseUrl}/mcp`);
    try {
      const viaMcp = (await mcp.client.callTool({ name: 'get_item_status', arguments: { id: booking.id, access_token: booking.accessToken } })) as any;
      expect(viaMcp.structuredContent.receipts).toEqual(confirmed.receipts);
    } finally {
      await mcp.close();
    }

    // The receipt event follows the move and leaves the version as it was.
    const events = confirmed.events.map((e: any) => [e.type, e.version]);
    expect(events).toEqual([
      ['booking.create', 1],
      ['booking.confirm', 2],
      ['booking.receipt_issued', 2],
    ]);
    expect(confirmed.events[2].data).toEqual({ receipt_id: receipt.receipt_id, kind: 'confirmed', outcome: null });
    const stream = await t.owner('GET', '/v1/owner/events?types=booking.receipt_issued');
    expect(stream.body.events.map((e: any) => e.data.id)).toEqual([booking.id]);
  });

  it('one customer is one pseudonym: the same email gives the same sub, another email another', async () => {
    const first = await createOrder(t, 'ana@example.com');
    const second = await createOrder(t, 'ANA@Example.COM');
    const other = await createOrder(t, 'bea@example.com');
    const subs = [];
    for (const order of [first, second, other]) subs.push((await ownerMove(t, order.id, 'accept')).receipts[0].claims.sub);
    expect(subs[0]).toBe(subs[1]);
    expect(subs[2]).not.toBe(subs[0]);
  });

  it('a booking: confirmed, then how it ended; corrections point at the outcome they correct', async () => {
    const booking = await createBooking(t, 'haircut', TUESDAY_2PM);
    await ownerMove(t, booking.id, 'confirm');
    t.clock.set('2026-11-24T15:00:00Z');
    await ownerMove(t, booking.id, 'complete');
    await ownerMove(t, booking.id, 'no_show');
    await ownerMove(t, booking.id, 'complete');
    const receipts = await receiptsOf(t, booking.id);
    expect(receipts.map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}` : r.kind))).toEqual([
      'confirmed',
      'outcome booking.completed',
      'outcome booking.no_show_customer',
      'outcome booking.completed',
    ]);
    const [promise, done, noShow, corrected] = receipts as any[];
    for (const r of receipts) expect((await verifyReceiptWithJose(t, r.jws)).claims.nonce).toBe(r.receipt_id);
    expect(done.claims).toMatchObject({ knd: 'outcome', out: 'booking.completed', ref: promise.receipt_id, due: startMs / 1000, evt: 'booking.complete' });
    expect(done.claims.prv).toBeUndefined();
    expect(noShow.claims).toMatchObject({ out: 'booking.no_show_customer', ref: promise.receipt_id, prv: done.receipt_id });
    expect(corrected.claims).toMatchObject({ out: 'booking.completed', ref: promise.receipt_id, prv: noShow.receipt_id });
    expect(done.claims.aut).toBeUndefined();
  });

  it('the system completing a booking signs with aut: 1', async () => {
    const booking = await createBooking(t, 'haircut', TUESDAY_2PM);
    await ownerMove(t, booking.id, 'confirm');
    t.clock.set('2026-11-24T14:45:00Z');
    t.clock.advance(48 * HOUR);
    expect(await t.inbox.jobs.runDue()).toBeGreaterThan(0);
    const receipts = await receiptsOf(t, booking.id);
    expect(receipts.map((r) => r.outcome)).toEqual([null, 'booking.completed']);
    expect(receipts[1]!.claims).toMatchObject({ aut: 1, evt: 'booking.complete' });
    expect((await verifyReceiptWithJose(t, receipts[1]!.jws)).claims.aut).toBe(1);
  });

  it('every way a booking ends before or after its promise', async () => {
    // Cancelled by the customer in the window, late, and by the business before and after confirming.
    const inWindow = await createBooking(t, 'haircut', '2026-11-25T14:00:00Z');
    await ownerMove(t, inWindow.id, 'confirm');
    await customerCancel(t, inWindow.id, inWindow.accessToken);
    expect(await receiptWords(t, inWindow.id)).toEqual(['confirmed', 'outcome booking.cancelled_by_customer']);

    const late = await createBooking(t, 'haircut', '2026-11-24T09:30:00Z');
    await ownerMove(t, late.id, 'confirm');
    expect((await customerCancel(t, late.id, late.accessToken)).state).toBe('cancelled_late');
    expect(await receiptWords(t, late.id)).toEqual(['confirmed', 'outcome booking.cancelled_late_by_customer']);

    const unconfirmed = await createBooking(t, 'haircut', '2026-11-26T14:00:00Z');
    await ownerMove(t, unconfirmed.id, 'cancel_by_business');
    expect(await receiptWords(t, unconfirmed.id)).toEqual([]);

    const byBusiness = await createBooking(t, 'haircut', '2026-11-26T15:00:00Z');
    await ownerMove(t, byBusiness.id, 'confirm');
    await ownerMove(t, byBusiness.id, 'cancel_by_business');
    expect(await receiptWords(t, byBusiness.id)).toEqual(['confirmed', 'outcome booking.cancelled_by_business']);

    // Requested, asked for details, declined or cancelled before the promise: nothing.
    const declined = await createBooking(t, 'haircut', '2026-11-27T14:00:00Z');
    await ownerMove(t, declined.id, 'request_info');
    await ownerMove(t, declined.id, 'decline');
    expect(await receiptWords(t, declined.id)).toEqual([]);
    const early = await createBooking(t, 'haircut', '2026-11-27T15:00:00Z');
    await customerCancel(t, early.id, early.accessToken);
    expect(await receiptWords(t, early.id)).toEqual([]);

    // Proposed by the business and accepted by the customer: confirmed by the customer's move.
    const proposed = await createBooking(t, 'haircut', '2026-11-27T16:00:00Z');
    await ownerMove(t, proposed.id, 'propose', { startTime: '2026-11-27T17:00:00Z' });
    const accepted = await t.request('POST', `/v1/items/${proposed.id}/accept`, { body: {}, headers: { 'x-access-token': proposed.accessToken } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.receipts.map((r: any) => r.kind)).toEqual(['confirmed']);
    expect(accepted.body.receipts[0].claims).toMatchObject({ evt: 'booking.accept', due: Date.parse('2026-11-27T17:00:00Z') / 1000 });
  });

  it('an order: accepted, paid and how it ended; nothing on requests, declines or completion', async () => {
    const order = await createOrder(t);
    await ownerMove(t, order.id, 'accept');
    await ownerMove(t, order.id, 'request_payment');
    await ownerMove(t, order.id, 'record_payment');
    await ownerMove(t, order.id, 'start_fulfilment');
    await ownerMove(t, order.id, 'fulfil');
    await ownerMove(t, order.id, 'complete');
    const receipts = await receiptsOf(t, order.id);
    expect(receipts.map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}` : r.kind))).toEqual(['accepted', 'paid', 'outcome order.fulfilled']);
    const [accepted, paid, fulfilled] = receipts as any[];
    expect(accepted.claims).toMatchObject({ typ: 'order', knd: 'accepted', amt: 2900, cur: 'EUR', due: accepted.claims.iat + 30 * 86_400, evt: 'order.accept' });
    expect(accepted.claims.end).toBeUndefined();
    expect(accepted.claims.pay).toBeUndefined();
    expect(paid.claims).toMatchObject({ knd: 'paid', pay: 1, due: accepted.claims.due });
    expect(paid.claims.ref).toBeUndefined();
    expect(fulfilled.claims).toMatchObject({ out: 'order.fulfilled', ref: accepted.receipt_id, pay: 1, due: accepted.claims.due });
    // The phone number is not in it either.
    for (const r of receipts) expect(Buffer.from(r.jws.split('.')[1]!, 'base64url').toString()).not.toMatch(/912\s?345\s?678|351\s?912/);

    const declined = await createOrder(t);
    await ownerMove(t, declined.id, 'request_info');
    await ownerMove(t, declined.id, 'decline');
    expect(await receiptWords(t, declined.id)).toEqual([]);
  });

  it('an order cancelled by the customer, by the business, after payment; a failed payment and a charge-back', async () => {
    const byCustomer = await createOrder(t);
    await ownerMove(t, byCustomer.id, 'accept');
    await customerCancel(t, byCustomer.id, byCustomer.accessToken);
    expect(await receiptWords(t, byCustomer.id)).toEqual(['accepted', 'outcome order.cancelled_by_customer']);

    const byBusiness = await createOrder(t);
    await ownerMove(t, byBusiness.id, 'accept');
    await ownerMove(t, byBusiness.id, 'cancel');
    expect(await receiptWords(t, byBusiness.id)).toEqual(['accepted', 'outcome order.not_fulfilled']);

    const beforePromise = await createOrder(t);
    await customerCancel(t, beforePromise.id, beforePromise.accessToken);
    expect(await receiptWords(t, beforePromise.id)).toEqual([]);

    const failed = await createOrder(t);
    await ownerMove(t, failed.id, 'accept');
    await ownerMove(t, failed.id, 'request_payment');
    await ownerMove(t, failed.id, 'payment_failed');
    await ownerMove(t, failed.id, 'record_payment');
    await ownerMove(t, failed.id, 'charge_back');
    expect(await receiptWords(t, failed.id)).toEqual(['accepted', 'outcome order.payment_failed', 'paid', 'outcome order.charged_back']);

    const paidThenCancelled = await createOrder(t);
    await ownerMove(t, paidThenCancelled.id, 'accept');
    await ownerMove(t, paidThenCancelled.id, 'record_payment');
    const cancelled = await ownerMove(t, paidThenCancelled.id, 'cancel');
    expect(await receiptWords(t, paidThenCancelled.id)).toEqual(['accepted', 'paid', 'outcome order.not_fulfilled']);

    // The refund it opened: accepted when approved, honoured when the money went back in time.
    const refundId = cancelled.payload.refundItemId as string;
    await ownerMove(t, refundId, 'approve');
    t.clock.advance(3 * DAY);
    await ownerMove(t, refundId, 'refund');
    const refund = await receiptsOf(t, refundId);
    expect(refund.map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}` : r.kind))).toEqual(['accepted', 'outcome refund.honoured']);
    expect(refund[0]!.claims).toMatchObject({ typ: 'refund', knd: 'accepted', amt: 2900, due: refund[0]!.claims.iat + 14 * 86_400 });
    expect(refund[1]!.claims).toMatchObject({ out: 'refund.honoured', ref: refund[0]!.receipt_id });
  });

  it('a refund paid after its due date is late; one paid at once is accepted and honoured together', async () => {
    const makeRefund = async () => {
      const order = await createOrder(t);
      await ownerMove(t, order.id, 'accept');
      await ownerMove(t, order.id, 'record_payment');
      return (await ownerMove(t, order.id, 'cancel')).payload.refundItemId as string;
    };
    const late = await makeRefund();
    await ownerMove(t, late, 'approve');
    t.clock.advance(15 * DAY);
    await ownerMove(t, late, 'refund');
    expect(await receiptWords(t, late)).toEqual(['accepted', 'outcome refund.late']);

    const atOnce = await makeRefund();
    await ownerMove(t, atOnce, 'refund', { amount: 1000 });
    const receipts = await receiptsOf(t, atOnce);
    expect(receipts.map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}` : r.kind))).toEqual(['accepted', 'outcome refund.honoured']);
    expect(receipts[1]!.claims).toMatchObject({ ref: receipts[0]!.receipt_id, amt: 1000, evt: 'refund.refund' });
  });

  it('an unpaid order lapsing is closed by the system (aut: 1)', async () => {
    await setSettings(t, { orders: { payDays: 2 } });
    const order = await createOrder(t);
    await ownerMove(t, order.id, 'accept');
    await ownerMove(t, order.id, 'request_payment');
    t.clock.advance(2 * DAY);
    expect(await t.inbox.jobs.runDue()).toBeGreaterThan(0);
    const receipts = await receiptsOf(t, order.id);
    expect(receipts.map((r) => r.outcome)).toEqual([null, 'order.lapsed']);
    expect(receipts[1]!.claims).toMatchObject({ aut: 1, evt: 'order.lapse' });
  });

  it('a test item gets receipts marked sbx', async () => {
    const r = await t.request('POST', '/v1/bookings', {
      body: { payload: { serviceId: 'haircut', startTime: TUESDAY_2PM }, contact: { name: 'Test' }, sandbox: true },
    });
    expect(r.status).toBe(201);
    const confirmed = await ownerMove(t, r.body.id, 'confirm');
    expect(confirmed.receipts[0]).toMatchObject({ sandbox: true, claims: { sbx: 1 } });
  });
});

describe('receipts stand or fall with their move', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(async () => {
    await t.close();
  });

  it('a refused move signs nothing', async () => {
    // The haircut takes two at once: a third confirmation in the same slot is slot_taken.
    const bookings = [];
    for (let i = 0; i < 3; i += 1) bookings.push(await createBooking(t, 'haircut', TUESDAY_2PM));
    await ownerMove(t, bookings[0]!.id, 'confirm');
    await ownerMove(t, bookings[1]!.id, 'confirm');
    const refused = await t.owner('POST', `/v1/owner/items/${bookings[2]!.id}/transitions`, { body: { event: 'confirm' } });
    expectProblem(refused, 409, 'slot_taken');
    expect(await receiptWords(t, bookings[2]!.id)).toEqual([]);
    // A stale expected_version: refused, nothing signed.
    const order = await createOrder(t);
    const stale = await t.owner('POST', `/v1/owner/items/${order.id}/transitions`, { body: { event: 'accept', expected_version: 7 } });
    expectProblem(stale, 409, 'version_conflict');
    expect(await receiptWords(t, order.id)).toEqual([]);
  });

  it('a move whose transaction rolls back leaves no receipt, no event, no job', async () => {
    const booking = await createBooking(t, 'haircut', TUESDAY_2PM);
    const before = await t.inbox.store.items.get(booking.id);
    const jobsBefore = (await t.inbox.store.jobs.list()).length;
    await expect(
      t.inbox.store.transaction(async (tx) => {
        const ctx = { store: tx, clock: t.clock, receipts: t.inbox.receipts };
        const moved = await moveItem(ctx, { actor: { kind: 'owner', id: null, name: null }, channel: 'rest' }, before!, { events: ['confirm'] });
        expect(moved.state).toBe('confirmed');
        expect(await tx.receipts.listForItem(booking.id)).toHaveLength(1);
        throw new Error('the transaction fails after the move');
      }),
    ).rejects.toThrow('the transaction fails after the move');
    expect(await t.inbox.store.receipts.listForItem(booking.id)).toEqual([]);
    expect((await t.inbox.store.items.get(booking.id))!.state).toBe('requested');
    expect((await t.inbox.store.items.listEvents(booking.id)).map((e) => e.type)).toEqual(['booking.create']);
    expect((await t.inbox.store.jobs.list()).length).toBe(jobsBefore);
  });

  it('a move that makes a receipt due never happens unsigned', async () => {
    const booking = await createBooking(t, 'haircut', TUESDAY_2PM);
    const item = await t.inbox.store.items.get(booking.id);
    await expect(
      t.inbox.store.transaction((tx) => moveItem({ store: tx, clock: t.clock }, { actor: { kind: 'owner', id: null, name: null }, channel: 'rest' }, item!, { events: ['confirm'] })),
    ).rejects.toThrow(/no receipt signer/);
    expect((await t.inbox.store.items.get(booking.id))!.state).toBe('requested');
  });
});

describe('receipt events in full webhook payloads', () => {
  it('carry data.receipt, the same receipt the owner sees', async () => {
    const t = await startWebhookInbox();
    const receiver = await startReceiver();
    try {
      const hook = await t.owner('POST', '/v1/owner/webhooks', {
        body: { url: receiver.url, events: ['booking.receipt_issued', 'booking.confirm'], payload_style: 'full' },
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const booking = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: TUESDAY_2PM }, contact: { name: 'Ana Silva' } } });
      const confirmed = await ownerMove(t, booking.body.id, 'confirm');
      await t.deliver();
      const deliveries = await receiver.waitFor(2);
      expect(deliveries.map((d) => d.json.type)).toEqual(['booking.confirm', 'booking.receipt_issued']);
      const receiptEvent = deliveries[1]!.json;
      receiver.verify(deliveries[1]!, hook.body.secret);
      expect(fullReceiptEventSchema.safeParse(receiptEvent).success).toBe(true);
      expect(receiptEvent.data.receipt).toEqual(confirmed.receipts[0]);
      expect(receiptEvent.data.version).toBe(2);
      expect(receiptEvent.data.human).toMatch(/signed a receipt \(confirmed\)/);
      expect((await verifyReceiptWithJose(t, receiptEvent.data.receipt.jws)).claims.itm).toBe(booking.body.id);
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});
