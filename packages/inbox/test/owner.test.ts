/**
 * Owner operations over REST (inbox spec §4 "Owner operations", §5 Authentication, §7, §8):
 * Bearer keys, list_items with its filters and paging, get_item, reply and set_item_flags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { haircutAt, startInbox, type TestInbox } from './support/harness.js';

const MINUTE = 60_000;

/** Free haircut starts on Tuesday 2026-11-24 (Lisbon is on UTC in November; open 09:30–13:00, 14:00–19:30). */
function tuesdayAt(hhmm: string): string {
  return `2026-11-24T${hhmm}:00Z`;
}

async function createMessage(t: TestInbox, text: string, extra: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/messages', { body: { message: text, contact: { name: 'Rui Costa', email: 'rui@example.com' }, ...extra } });
  expect(r.status).toBe(201);
  return r.body as { id: string; accessToken: string; state: string; version: number };
}

async function createBooking(t: TestInbox, start: string, extra: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/bookings', { body: { ...haircutAt(start), ...extra } });
  expect(r.status).toBe(201);
  return r.body as { id: string; accessToken: string; state: string; version: number };
}

function ids(r: { body: { items: { id: string }[] } }): string[] {
  return r.body.items.map((i) => i.id);
}

describe('owner authentication', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('refuses a call without Authorization with 401, a challenge and a problem document', async () => {
    const r = await t.request('GET', '/v1/owner/items');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(r.body.type).toMatch(/\/unauthorized$/);
  });

  it('refuses an unknown key and a malformed header with 401', async () => {
    const wrong = await t.request('GET', '/v1/owner/items', { headers: { authorization: 'Bearer svc_own_notakey' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('unauthorized');
    expect(wrong.headers.get('www-authenticate')).toMatch(/invalid_token/);

    const basic = await t.request('GET', '/v1/owner/items', { headers: { authorization: `Basic ${t.ownerKey}` } });
    expect(basic.status).toBe(401);

    // The owner key itself works, so the refusals above are about the key, not the route.
    expect((await t.owner('GET', '/v1/owner/items')).status).toBe(200);
  });

  it('accepts a second owner key made as `npm run new-owner-key` does, next to the first', async () => {
    const second = await createOwnerKey(t.inbox.store, 'Owner key (cli)', t.clock.now());
    expect(second.value).toMatch(/^svc_own_/);
    expect(second.value).not.toBe(t.ownerKey);
    const withSecond = await t.request('GET', '/v1/owner/settings', { headers: { authorization: `Bearer ${second.value}` } });
    expect(withSecond.status).toBe(200);
    expect((await t.owner('GET', '/v1/owner/settings')).status).toBe(200);

    // The key shows up as the actor of what it does.
    const item = await createMessage(t, 'Hello from the key test');
    const flagged = await t.request('PATCH', `/v1/owner/items/${item.id}/flags`, {
      body: { priority: 1 },
      headers: { authorization: `Bearer ${second.value}` },
    });
    expect(flagged.status).toBe(200);
    const flagEvent = flagged.body.events.find((e: any) => e.type === 'message.flags');
    expect(flagEvent.by).toEqual({ kind: 'owner', id: second.id, name: 'Owner key (cli)' });
  });
});

describe('list_items', () => {
  let t: TestInbox;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    t = await startInbox();
    // Created in this order, a minute apart, so newest first is the reverse.
    made.booking = (await createBooking(t, tuesdayAt('10:00'))).id;
    t.clock.advance(MINUTE);
    made.beard = (
      await t.request('POST', '/v1/bookings', {
        body: { payload: { serviceId: 'beard-trim', startTime: tuesdayAt('11:00') }, contact: { name: 'José Conceição', email: 'jose@example.com' } },
      })
    ).body.id;
    t.clock.advance(MINUTE);
    made.order = (
      await t.request('POST', '/v1/orders', {
        body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 2 }] }, contact: { name: 'Marta Reis' } },
      })
    ).body.id;
    t.clock.advance(MINUTE);
    made.message = (await createMessage(t, 'Olá! Qual é o preço da coloração?')).id;
    t.clock.advance(MINUTE);
    made.sandbox = (await createMessage(t, 'A test conversation', { sandbox: true })).id;
    t.clock.advance(MINUTE);
    made.declined = (await createBooking(t, tuesdayAt('15:00'))).id;
    const declined = await t.owner('POST', `/v1/owner/items/${made.declined}/transitions`, { body: { event: 'decline' } });
    expect(declined.body.state).toBe('declined');
    for (const id of Object.values(made)) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
  afterAll(() => t.close());

  it('lists open items newest first and hides items in a final state by default', async () => {
    const r = await t.owner('GET', '/v1/owner/items');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(ids(r)).toEqual([made.sandbox, made.message, made.order, made.beard, made.booking]);
    expect(r.body.next_cursor).toBeNull();
    const entry = r.body.items.find((i: any) => i.id === made.order);
    expect(entry).toMatchObject({ type: 'order', state: 'received', version: 1, contact: { name: 'Marta Reis' }, channel: 'rest' });
    expect(entry.payload.lines[0]).toMatchObject({ productId: 'argan-shampoo', quantity: 2 });
  });

  it('shows final items with open_only=false', async () => {
    const r = await t.owner('GET', '/v1/owner/items?open_only=false');
    expect(ids(r)).toEqual([made.declined, made.sandbox, made.message, made.order, made.beard, made.booking]);
    const closed = await t.owner('GET', '/v1/owner/items?open_only=false&state=declined');
    expect(ids(closed)).toEqual([made.declined]);
  });

  it('filters by type, state, needs_human and sandbox', async () => {
    expect(ids(await t.owner('GET', '/v1/owner/items?type=booking'))).toEqual([made.beard, made.booking]);
    expect(ids(await t.owner('GET', '/v1/owner/items?type=booking&open_only=false'))).toEqual([made.declined, made.beard, made.booking]);
    expect(ids(await t.owner('GET', '/v1/owner/items?state=received'))).toEqual([made.order]);
    // New conversations need a human; a fixed-price booking in opening hours does not.
    expect(ids(await t.owner('GET', '/v1/owner/items?needs_human=true'))).toEqual([made.sandbox, made.message]);
    expect(ids(await t.owner('GET', '/v1/owner/items?needs_human=false'))).toEqual([made.order, made.beard, made.booking]);
    expect(ids(await t.owner('GET', '/v1/owner/items?sandbox=true'))).toEqual([made.sandbox]);
    expect(ids(await t.owner('GET', '/v1/owner/items?sandbox=false'))).toEqual([made.message, made.order, made.beard, made.booking]);
    expect(ids(await t.owner('GET', '/v1/owner/items?type=message&sandbox=false'))).toEqual([made.message]);
  });

  it('refuses an unknown type value with 422 naming the field', async () => {
    const r = await t.owner('GET', '/v1/owner/items?type=parcel');
    expect(r.status).toBe(422);
    expect(r.body.fields.map((f: any) => f.path)).toContain('type');
  });

  it('searches with q, ignoring case and accents, over contact, service, lines and message text', async () => {
    const search = async (q: string) => ids(await t.owner('GET', `/v1/owner/items?q=${encodeURIComponent(q)}`));
    expect(await search('jose')).toEqual([made.beard]);
    expect(await search('CONCEIÇÃO')).toEqual([made.beard]);
    expect(await search('conceicao')).toEqual([made.beard]);
    expect(await search('Beard')).toEqual([made.beard]);
    expect(await search('ARGAN')).toEqual([made.order]);
    expect(await search('preco coloracao')).toEqual([made.message]);
    expect(await search('PREÇO')).toEqual([made.message]);
    // Every word must match.
    expect(await search('preco argan')).toEqual([]);
    expect(await search('nothing-like-this')).toEqual([]);
  });

  it('finds an item by the text of an owner reply', async () => {
    const r = await t.owner('POST', `/v1/owner/items/${made.order}/replies`, { body: { message: 'Enviámos hoje pela transportadora.' } });
    expect(r.status).toBe(201);
    expect(ids(await t.owner('GET', '/v1/owner/items?q=enviamos'))).toEqual([made.order]);
  });

  it('refuses a limit outside 1..100 and a cursor it did not give out', async () => {
    for (const limit of ['0', '101', 'ten']) {
      const r = await t.owner('GET', `/v1/owner/items?limit=${limit}`);
      expect(r.status, `limit=${limit}`).toBe(422);
      expect(r.body.code).toBe('invalid_input');
      expect(r.body.fields.map((f: any) => f.path)).toContain('limit');
    }
    expect((await t.owner('GET', '/v1/owner/items?limit=1')).body.items).toHaveLength(1);
    expect((await t.owner('GET', '/v1/owner/items?limit=100')).status).toBe(200);

    const notUlid = Buffer.from(JSON.stringify({ k: 'not-an-id' })).toString('base64url');
    for (const cursor of ['junk!!', 'bm90IGpzb24', notUlid]) {
      const r = await t.owner('GET', `/v1/owner/items?cursor=${encodeURIComponent(cursor)}`);
      expect(r.status, `cursor=${cursor}`).toBe(422);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.fields).toEqual([expect.objectContaining({ path: 'cursor', problem: 'invalid' })]);
    }
  });
});

describe('list_items paging', () => {
  let t: TestInbox;
  const created: string[] = [];
  beforeAll(async () => {
    t = await startInbox();
    // Same clock instant for all seven: ids must still sort in creation order.
    for (let i = 0; i < 7; i++) created.push((await createMessage(t, `Question number ${i}`)).id);
  });
  afterAll(() => t.close());

  it('walks 7 items with limit 3 in pages of 3, 3 and 1, each exactly once, newest first', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const r = await t.owner('GET', `/v1/owner/items${query}`);
      expect(r.status).toBe(200);
      sizes.push(r.body.items.length);
      seen.push(...ids(r));
      cursor = r.body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual([...created].reverse());
    expect(new Set(seen).size).toBe(7);
  });

  it('ends with a null cursor when the last page is exactly full', async () => {
    const first = await t.owner('GET', '/v1/owner/items?limit=4');
    expect(first.body.items).toHaveLength(4);
    const second = await t.owner('GET', `/v1/owner/items?limit=3&cursor=${first.body.next_cursor}`);
    expect(second.body.items).toHaveLength(3);
    expect(second.body.next_cursor).toBeNull();
  });

  it('keeps filters across pages', async () => {
    // Two items the filter must leave out, newer than the seven.
    await createMessage(t, 'Another topic altogether');
    await createMessage(t, 'Unrelated as well');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2&q=question${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await t.owner('GET', `/v1/owner/items${query}`);
      seen.push(...ids(r));
      cursor = r.body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual([...created].reverse());
  });
});

describe('get_item', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('returns typed fields, events with by and channel, transitions, and the conversation with notes', async () => {
    const created = await createBooking(t, tuesdayAt('10:00'), { message: 'First time here.' });
    await t.owner('POST', `/v1/owner/items/${created.id}/replies`, { body: { message: 'Regular of Luísa; give her the window seat.', internal: true } });
    await t.owner('POST', `/v1/owner/items/${created.id}/transitions`, { body: { event: 'confirm', reason: 'Slot free' } });

    const r = await t.owner('GET', `/v1/owner/items/${created.id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const item = r.body;
    expect(item).toMatchObject({ id: created.id, type: 'booking', state: 'confirmed', version: 2, sandbox: false, needsHuman: false, priority: 0 });
    expect(item.payload).toMatchObject({
      serviceId: 'haircut',
      serviceName: 'Haircut',
      durationMinutes: 45,
      partySize: 1,
      priceModel: 'fixed',
      price: 2500,
      priceCurrency: 'EUR',
    });
    expect(Date.parse(item.payload.startTime)).toBe(Date.parse(tuesdayAt('10:00')));
    expect(Date.parse(item.payload.endTime)).toBe(Date.parse(tuesdayAt('10:45')));
    expect(item.contact).toEqual({ name: 'Ana Silva', email: 'ana@example.com' });

    expect(item.events.map((e: any) => [e.type, e.version])).toEqual([
      ['booking.create', 1],
      ['booking.confirm', 2],
      ['booking.receipt_issued', 2],
    ]);
    expect(item.receipts.map((r: any) => r.kind)).toEqual(['confirmed']);
    const [create, confirm] = item.events;
    expect(create.by).toEqual({ kind: 'customer_agent', id: null, name: null });
    expect(create.channel).toBe('rest');
    expect(confirm.by).toEqual({ kind: 'owner', id: expect.any(String), name: 'test owner' });
    expect(confirm).toMatchObject({ channel: 'rest', fromState: 'requested', toState: 'confirmed', reason: 'Slot free' });

    expect(item.conversation.map((m: any) => [m.from, m.internal, m.text])).toEqual([
      ['customer', false, 'First time here.'],
      ['business', true, 'Regular of Luísa; give her the window seat.'],
    ]);
    expect(item.receipts).toEqual([expect.objectContaining({ kind: 'confirmed', event: 'booking.confirm', acknowledged: false })]);

    const events = item.transitions.map((x: any) => x.event);
    expect(events).toContain('cancel_by_business');
    expect(events).not.toContain('confirm');
    for (const x of item.transitions) expect(x.label).toEqual(expect.any(String));
  });

  it('lists the owner\'s next moves with their input schemas on a requested booking', async () => {
    const created = await createBooking(t, tuesdayAt('11:00'));
    const r = await t.owner('GET', `/v1/owner/items/${created.id}`);
    const events = r.body.transitions.map((x: any) => x.event);
    expect(events).toEqual(expect.arrayContaining(['confirm', 'decline']));
    // Customer moves are not the owner's.
    expect(events).not.toContain('cancel');
    const confirm = r.body.transitions.find((x: any) => x.event === 'confirm');
    expect(confirm.input === null || typeof confirm.input === 'object').toBe(true);
  });

  it('says a repeat email is a weak match, and a first one none', async () => {
    const first = await createMessage(t, 'First contact', { contact: { name: 'Inês', email: 'ines@example.com' } });
    const firstView = await t.owner('GET', `/v1/owner/items/${first.id}`);
    expect(firstView.body.customer).toMatchObject({ match: 'none', known: false, history: { items: 0 } });

    const again = await createMessage(t, 'Me again', { contact: { name: 'Inês', email: 'ines@example.com' } });
    const againView = await t.owner('GET', `/v1/owner/items/${again.id}`);
    expect(againView.body.customer).toMatchObject({ match: 'weak', possible: 'ines@example.com', known: true, history: { items: 1 } });
  });

  it('answers 404 for an unknown item', async () => {
    const r = await t.owner('GET', '/v1/owner/items/01JZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});

describe('reply', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('keeps an internal note from the customer and shows a reply', async () => {
    const booking = await createBooking(t, tuesdayAt('16:00'), { message: 'Can I bring my son?' });
    const note = await t.owner('POST', `/v1/owner/items/${booking.id}/replies`, { body: { message: 'Son is 4; needs booster seat.', internal: true } });
    expect(note.status).toBe(201);
    expect(note.body.version).toBe(1);
    const reply = await t.owner('POST', `/v1/owner/items/${booking.id}/replies`, { body: { message: 'Of course, see you then.' } });
    expect(reply.status).toBe(201);
    expect(reply.body.version).toBe(1);
    expect(reply.body.state).toBe('requested');
    expect(reply.body.conversation.map((m: any) => [m.text, m.internal])).toEqual([
      ['Can I bring my son?', false],
      ['Son is 4; needs booster seat.', true],
      ['Of course, see you then.', false],
    ]);

    const status = await t.request('GET', `/v1/items/${booking.id}?access_token=${encodeURIComponent(booking.accessToken)}`);
    expect(status.status).toBe(200);
    const texts = status.body.conversation.map((m: any) => m.text);
    expect(texts).toEqual(['Can I bring my son?', 'Of course, see you then.']);
    expect(JSON.stringify(status.body)).not.toContain('booster');
    expect(status.body.conversation[1]).toMatchObject({ from: 'business', internal: false, authorKind: 'owner' });
  });

  it('marks an open conversation answered on a reply, but not on a note', async () => {
    const message = await createMessage(t, 'Do you cut curly hair?');
    expect(message.state).toBe('open');
    const note = await t.owner('POST', `/v1/owner/items/${message.id}/replies`, { body: { message: 'Ask Carla', internal: true } });
    expect(note.body).toMatchObject({ state: 'open', version: 1 });

    const reply = await t.owner('POST', `/v1/owner/items/${message.id}/replies`, { body: { message: 'Yes, Carla specialises in curls.' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ state: 'answered', version: 2 });
    const answer = reply.body.events.find((e: any) => e.type === 'message.answer');
    expect(answer).toMatchObject({ fromState: 'open', toState: 'answered', version: 2, channel: 'rest', by: { kind: 'owner' } });

    const status = await t.request('GET', `/v1/items/${message.id}`, { headers: { 'x-access-token': message.accessToken } });
    expect(status.body.state).toBe('answered');
    expect(status.body.conversation.map((m: any) => m.text)).toEqual(['Do you cut curly hair?', 'Yes, Carla specialises in curls.']);
  });

  it('writes a reply once when it is retried with the same idempotency key', async () => {
    const message = await createMessage(t, 'Are you open on Sunday?');
    const send = () =>
      t.owner('POST', `/v1/owner/items/${message.id}/replies`, { body: { message: 'No, Tuesday to Saturday.' }, headers: { 'idempotency-key': 'reply-sunday' } });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const view = await t.owner('GET', `/v1/owner/items/${message.id}`);
    expect(view.body.conversation.filter((m: any) => m.text === 'No, Tuesday to Saturday.')).toHaveLength(1);
    expect(view.body.version).toBe(2);
  });

  it('refuses an empty reply and an unknown item', async () => {
    const message = await createMessage(t, 'Hi');
    const empty = await t.owner('POST', `/v1/owner/items/${message.id}/replies`, { body: { message: '   ' } });
    expect(empty.status).toBe(422);
    expect(empty.body.fields.map((f: any) => f.path)).toContain('message');
    const unknown = await t.owner('POST', '/v1/owner/items/01JZZZZZZZZZZZZZZZZZZZZZZZ/replies', { body: { message: 'Hello' } });
    expect(unknown.status).toBe(404);
  });
});

describe('set_item_flags', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('raises needsHuman and sets priority without changing the version, as a <type>.flags event', async () => {
    const booking = await createBooking(t, tuesdayAt('17:00'));
    expect(booking.version).toBe(1);
    const r = await t.owner('PATCH', `/v1/owner/items/${booking.id}/flags`, { body: { needsHuman: true, priority: 2 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ needsHuman: true, priority: 2, version: 1, state: 'requested' });
    const flags = r.body.events.filter((e: any) => e.type === 'booking.flags');
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ event: 'flags', version: 1, channel: 'rest', data: { needsHuman: true, priority: 2 }, by: { kind: 'owner', name: 'test owner' } });

    const listed = await t.owner('GET', '/v1/owner/items?needs_human=true');
    expect(ids(listed)).toContain(booking.id);

    // Clearing it is a second flags event; the version still does not move.
    const cleared = await t.owner('PATCH', `/v1/owner/items/${booking.id}/flags`, { body: { needsHuman: false } });
    expect(cleared.body).toMatchObject({ needsHuman: false, priority: 2, version: 1 });
    expect(cleared.body.events.filter((e: any) => e.type === 'booking.flags')).toHaveLength(2);
    expect(ids(await t.owner('GET', '/v1/owner/items?needs_human=true'))).not.toContain(booking.id);

    // A transition afterwards still goes from version 1 to 2.
    const confirmed = await t.owner('POST', `/v1/owner/items/${booking.id}/transitions`, { body: { event: 'confirm', expected_version: 1 } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.version).toBe(2);
  });

  it('records nothing when nothing changes, and refuses a priority outside 0..3', async () => {
    const message = await createMessage(t, 'Flag me');
    const same = await t.owner('PATCH', `/v1/owner/items/${message.id}/flags`, { body: { needsHuman: true } });
    expect(same.status).toBe(200);
    expect(same.body.events.filter((e: any) => e.type === 'message.flags')).toHaveLength(0);

    const bad = await t.owner('PATCH', `/v1/owner/items/${message.id}/flags`, { body: { priority: 4 } });
    expect(bad.status).toBe(422);
    expect(bad.body.fields.map((f: any) => f.path)).toEqual(['priority']);
  });
});

describe('a key\'s last use', () => {
  it('is recorded to the minute', async () => {
    const t = await startInbox();
    try {
      const lastUse = async () => (await t.inbox.store.apiKeys.list()).find((k) => k.name === 'test owner')?.lastUsedAt ?? null;
      expect(await lastUse()).toBeNull();
      expect((await t.owner('GET', '/v1/owner/items')).status).toBe(200);
      const first = t.clock.now();
      expect(await lastUse()).toBe(first);
      t.clock.advance(30_000);
      await t.owner('GET', '/v1/owner/items');
      expect(await lastUse()).toBe(first);
      t.clock.advance(31_000);
      await t.owner('GET', '/v1/owner/items');
      expect(await lastUse()).toBe(t.clock.now());
    } finally {
      await t.close();
    }
  });
});
