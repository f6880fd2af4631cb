/**
 * The polled event stream, GET /v1/owner/events (inbox spec §4 rule 6): oldest first, ULID ids,
 * cursors, filters, refusals, and no event skipped even when ids do not follow commit order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { monotonicFactory } from 'ulid';
import { startWebhookInbox, type WebhookTestInbox } from './support/webhooks-inbox.js';
import { haircutAt } from './support/harness.js';
import { recordEvent } from '../src/domain/events/record-event.js';

let t: WebhookTestInbox;

beforeEach(async () => {
  t = await startWebhookInbox();
});

afterEach(async () => {
  await t.close();
});

async function newConversation(message = 'Hello') {
  const res = await t.request('POST', '/v1/messages', { body: { message } });
  expect(res.status).toBe(201);
  return res.body as { id: string; accessToken: string };
}

async function readAll(query = '') {
  const events: any[] = [];
  let cursor: string | null = null;
  for (;;) {
    const res: any = await t.owner('GET', `/v1/owner/events?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    cursor = res.body.next_cursor;
    if (!cursor) return events;
  }
}

describe('the event stream', () => {
  it('starts at the beginning, oldest first, in pages, with ULID ids and the thin data', async () => {
    const first = await newConversation('one');
    t.clock.advance(1_000);
    const booking = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-12-01T10:00:00Z') });
    t.clock.advance(1_000);
    await t.owner('POST', `/v1/owner/items/${booking.body.id}/transitions`, { body: { event: 'confirm' } });

    const events = await readAll();
    expect(events.map((e) => e.type)).toEqual(['message.create', 'booking.create', 'booking.confirm', 'booking.receipt_issued']);
    for (const event of events) expect(event.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(events[0]).toEqual({
      id: expect.any(String),
      type: 'message.create',
      timestamp: '2026-11-23T10:00:00.000Z',
      data: {
        id: first.id,
        type: 'message',
        state: 'open',
        version: 1,
        url: `http://127.0.0.1/v1/owner/items/${first.id}`,
        actor: { kind: 'customer_agent', id: null, name: null },
        channel: 'rest',
        sandbox: false,
      },
    });
    expect(events[2].data).toMatchObject({ id: booking.body.id, state: 'confirmed', version: 2, actor: { kind: 'owner' } });
  });

  it('answers next_cursor null when caught up, and goes on from the id of the last event read', async () => {
    await newConversation('one');
    const page = await t.owner('GET', '/v1/owner/events');
    expect(page.body.events).toHaveLength(1);
    expect(page.body.next_cursor).toBeNull();
    const lastId = page.body.events[0].id;
    expect((await t.owner('GET', `/v1/owner/events?cursor=${lastId}`)).body).toEqual({ events: [], next_cursor: null });
    await newConversation('two');
    const next = await t.owner('GET', `/v1/owner/events?cursor=${lastId}`);
    expect(next.body.events.map((e: { type: string }) => e.type)).toEqual(['message.create']);
    expect(next.body.events[0].id).not.toBe(lastId);
  });

  it('re-reads the same page for free, byte for byte', async () => {
    await newConversation('one');
    await newConversation('two');
    await newConversation('three');
    const a = await t.owner('GET', '/v1/owner/events?limit=2');
    const b = await t.owner('GET', '/v1/owner/events?limit=2');
    expect(b.body).toEqual(a.body);
    const c = await t.owner('GET', `/v1/owner/events?limit=2&cursor=${a.body.next_cursor}`);
    const d = await t.owner('GET', `/v1/owner/events?limit=2&cursor=${a.body.next_cursor}`);
    expect(d.body).toEqual(c.body);
    expect(c.body.events).toHaveLength(1);
  });

  it('filters by type patterns (comma-separated or repeated) and by since', async () => {
    const item = await newConversation('one');
    t.clock.advance(60_000);
    const booking = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-12-01T10:00:00Z') });
    await t.owner('POST', `/v1/owner/items/${booking.body.id}/transitions`, { body: { event: 'confirm' } });
    await t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.accessToken, message: 'more' } });

    const types = async (query: string) => (await readAll(query)).map((e) => e.type);
    expect(await types('&types=booking.*')).toEqual(['booking.create', 'booking.confirm', 'booking.receipt_issued']);
    expect(await types('&types=booking.confirm,message.create')).toEqual(['message.create', 'booking.confirm']);
    expect(await types('&types=booking.confirm&types=message.message')).toEqual(['booking.confirm', 'message.message']);
    expect(await types('&types=*')).toHaveLength(5);
    expect(await types('&types=quote_request.*')).toEqual([]);
    expect(await types(`&since=${encodeURIComponent('2026-11-23T10:00:30Z')}`)).toEqual(['booking.create', 'booking.confirm', 'booking.receipt_issued', 'message.message']);
    expect(await types(`&since=${encodeURIComponent('2026-11-23T11:00:30+01:00')}&types=message.*`)).toEqual(['message.message']);
  });

  it('reports a message event with the version it did not change', async () => {
    const item = await newConversation('one');
    await t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.accessToken, message: 'more' } });
    const events = (await t.owner('GET', '/v1/owner/events')).body.events;
    expect(events.map((e: { type: string; data: { version: number } }) => [e.type, e.data.version])).toEqual([
      ['message.create', 1],
      ['message.message', 1],
    ]);
  });

  it.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=ten'],
    ['cursor=not-a-cursor'],
    ['cursor=01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    [`cursor=${Buffer.from(JSON.stringify({ p: -1 })).toString('base64url')}`],
    ['types=booking'],
    ['types=flights.*'],
    ['since=yesterday'],
  ])('refuses %s with 422 invalid_input', async (query) => {
    const res = await t.owner('GET', `/v1/owner/events?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.fields.length).toBeGreaterThan(0);
  });

  it('never skips an event whose id sorts before one already read (ids do not follow commit order)', async () => {
    const item = await newConversation('one');
    const read = await t.owner('GET', '/v1/owner/events');
    const lastId: string = read.body.events[0].id;
    // A writer whose clock is behind (another process, a slow transaction) commits an event whose
    // ULID is older than the one the reader already has.
    const behind = monotonicFactory()(t.clock.now() - 60_000);
    expect(behind < lastId).toBe(true);
    await t.inbox.store.transaction((store) =>
      recordEvent(
        { store, clock: t.clock },
        {
          id: behind,
          itemId: item.id,
          seq: null,
          type: 'message.flags',
          event: 'flags',
          fromState: 'open',
          toState: 'open',
          version: 1,
          actor: { kind: 'system', id: null, name: 'clock behind' },
          channel: 'system',
          sandbox: false,
          reason: null,
          data: { needsHuman: true, priority: 0 },
          createdAt: t.clock.now() - 60_000,
        },
      ),
    );
    const next = await t.owner('GET', `/v1/owner/events?cursor=${lastId}`);
    expect(next.body.events.map((e: { id: string }) => e.id)).toEqual([behind]);
    // And the whole stream, read from the start, is in commit order, not id order.
    const all = (await t.owner('GET', '/v1/owner/events')).body.events.map((e: { id: string }) => e.id);
    expect(all).toEqual([lastId, behind]);
  });

  it('is consistent under concurrent writers: every event read exactly once by a poller', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let lastId: string | null = null;
    const poll = async () => {
      const from: string | null = cursor ?? lastId;
      const res: any = await t.owner('GET', `/v1/owner/events?limit=7${from ? `&cursor=${from}` : ''}`);
      for (const e of res.body.events) seen.push(e.id);
      if (res.body.events.length > 0) lastId = res.body.events[res.body.events.length - 1].id;
      cursor = res.body.next_cursor;
    };
    const writers = Array.from({ length: 40 }, (_, n) => newConversation(`n${n}`));
    const polling = (async () => {
      for (let n = 0; n < 30; n += 1) await poll();
    })();
    await Promise.all([...writers, polling]);
    for (let n = 0; n < 10; n += 1) await poll();
    const all = (await readAll()).map((e) => e.id);
    expect(all).toHaveLength(40);
    expect(seen).toEqual(all);
  });
});
