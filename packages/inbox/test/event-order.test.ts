/**
 * Cause before effect (inbox spec §6 rule 6: oldest first; issue 35): when one write records several
 * events, the event that caused the others comes first in the polled stream, with an id (ULID) and a
 * timestamp no later than theirs, and webhooks carry the same ids and timestamps. The causes looked
 * at: a paid order cancelled (its refund opens; its outcome receipt is signed), a quote accepted (its
 * order opens), a booking confirmed (its receipt), a customer's message on an item waiting for details
 * (provide_info follows), and a rule firing on the refund.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haircutAt } from './support/harness.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import { startWebhookInbox, type WebhookTestInbox } from './support/webhooks-inbox.js';

interface Entry {
  id: string;
  type: string;
  timestamp: string;
  data: { id: string; version: number };
}

let t: WebhookTestInbox;
let receiver: Receiver;
let endpoint: { id: string; secret: string };

beforeAll(async () => {
  t = await startWebhookInbox();
  receiver = await startReceiver();
  const made = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url } });
  expect(made.status).toBe(201);
  endpoint = made.body;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function move(itemId: string, event: string, input?: Record<string, unknown>) {
  const r = await t.owner('POST', `/v1/owner/items/${itemId}/transitions`, { body: { event, ...(input ? { input } : {}) } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The whole polled stream, oldest first. */
async function stream(): Promise<Entry[]> {
  const events: Entry[] = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; body: { events: Entry[]; next_cursor: string | null } } = await t.owner('GET', `/v1/owner/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    events.push(...r.body.events);
    cursor = r.body.next_cursor;
  } while (cursor);
  return events;
}

/** Where the latest `type` event of the item is. */
function indexOf(events: Entry[], type: string, itemId: string): number {
  const at = events.findLastIndex((e) => e.type === type && e.data.id === itemId);
  expect(at, `${type} of ${itemId} in ${events.map((e) => e.type).join(', ')}`).toBeGreaterThanOrEqual(0);
  return at;
}

/** `cause` comes before each effect: in the list, by id, and by timestamp. */
function expectCauseFirst(events: Entry[], cause: [string, string], ...effects: [string, string][]): void {
  const c = indexOf(events, ...cause);
  for (const effect of effects) {
    const e = indexOf(events, ...effect);
    expect(c, `${cause[0]} before ${effect[0]}`).toBeLessThan(e);
    expect(events[c]!.id < events[e]!.id, `${cause[0]}'s id sorts before ${effect[0]}'s`).toBe(true);
    expect(Date.parse(events[c]!.timestamp)).toBeLessThanOrEqual(Date.parse(events[e]!.timestamp));
  }
}

describe('events one write records come cause first', () => {
  let orderId = '';
  let refundId = '';
  let quoteId = '';
  let quoteOrderId = '';
  let bookingId = '';
  let askedId = '';

  beforeAll(async () => {
    const rule = await t.owner('POST', '/v1/owner/rules', {
      body: { rule: { id: 'refunds-first', name: 'Refunds first', when: { event: 'refund.create' }, then: { do: 'set_flags', needsHuman: true, priority: 3 } } },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBeLessThan(300);

    // A paid order the business cancels: the refund opens in the same write.
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'repair-mask', quantity: 1 }] }, contact: { name: 'Ana', email: 'ana@example.com' } } });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    orderId = order.body.id;
    await move(orderId, 'accept');
    t.clock.advance(1_000);
    await move(orderId, 'record_payment');
    t.clock.advance(1_000);
    refundId = (await move(orderId, 'cancel')).payload.refundItemId;
    expect(typeof refundId).toBe('string');
    await t.inbox.jobs.runDue();

    // A quote the customer accepts: its order opens in the same write.
    const quote = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Hair for a wedding party of five' } } });
    quoteId = quote.body.id;
    await move(quoteId, 'quote', { totalPrice: 45000, validThrough: '2026-11-30T10:00:00Z' });
    t.clock.advance(1_000);
    const accepted = await t.request('POST', `/v1/items/${quoteId}/accept`, { body: { idempotency_key: 'accept-quote' }, headers: { 'x-access-token': quote.body.accessToken } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    quoteOrderId = accepted.body.linkedItemId;

    // A booking confirmed: its receipt is signed in the same write.
    const booking = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T10:00:00Z') });
    bookingId = booking.body.id;
    await move(bookingId, 'confirm');

    // A booking waiting for details: the customer's message moves it on.
    const asked = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-11-24T11:00:00Z') });
    askedId = asked.body.id;
    await move(askedId, 'request_info');
    const said = await t.request('POST', '/v1/messages', { body: { item_id: askedId, message: 'It is for my son, he is six.' }, headers: { 'x-access-token': asked.body.accessToken } });
    expect(said.status, JSON.stringify(said.body)).toBe(200);
  });

  it('in the polled stream: ids and timestamps follow the stream order, and each cause precedes its effects', async () => {
    const events = await stream();
    for (let i = 1; i < events.length; i += 1) {
      expect(events[i - 1]!.id < events[i]!.id, `${events[i - 1]!.type} then ${events[i]!.type}`).toBe(true);
      expect(Date.parse(events[i - 1]!.timestamp)).toBeLessThanOrEqual(Date.parse(events[i]!.timestamp));
    }
    expectCauseFirst(events, ['order.cancel', orderId], ['order.receipt_issued', orderId], ['refund.create', refundId]);
    expect(events.filter((e) => e.data.id === orderId && e.type === 'order.receipt_issued').length).toBeGreaterThanOrEqual(1);
    expectCauseFirst(events, ['refund.create', refundId], ['refund.flags', refundId]);
    expectCauseFirst(events, ['quote_request.accept', quoteId], ['order.create', quoteOrderId]);
    expectCauseFirst(events, ['booking.confirm', bookingId], ['booking.receipt_issued', bookingId]);
    expectCauseFirst(events, ['booking.message', askedId], ['booking.provide_info', askedId]);
  });

  it('in webhooks: the same ids and timestamps, so a receiver ordering by webhook-id sees the cause first', async () => {
    await t.deliver();
    const bodies = receiver.received.map((d) => {
      receiver.verify(d, endpoint.secret);
      expect(d.headers['webhook-id']).toBe(d.json.id);
      return d.json as Entry;
    });
    const byId = [...bodies].sort((a, b) => (a.id < b.id ? -1 : 1));
    const polled = await stream();
    expect(byId.map((e) => [e.id, e.type, e.timestamp])).toEqual(polled.map((e) => [e.id, e.type, e.timestamp]));
    expectCauseFirst(byId, ['order.cancel', orderId], ['order.receipt_issued', orderId], ['refund.create', refundId]);
    expectCauseFirst(byId, ['quote_request.accept', quoteId], ['order.create', quoteOrderId]);
  });
});
