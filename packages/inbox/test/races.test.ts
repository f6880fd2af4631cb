/**
 * Concurrent calls over real HTTP: one idempotency key makes one item however many retries race;
 * confirmations racing for one slot of a capacity-limited service leave exactly as many winners as
 * there are places; racing moves of one item leave exactly one winner (inbox spec §3 rule 1, §9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type ApiResponse, type TestInbox } from './support/harness.js';
import { booking, createBooking, expectProblem, ownerItem, ownerMove, status } from './support/customer-calls.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(() => t.close());

async function listByName(q: string, type?: string): Promise<any[]> {
  const filter = type ? `&type=${type}` : '';
  const r = await t.owner('GET', `/v1/owner/items?open_only=false&limit=100&q=${encodeURIComponent(q)}${filter}`);
  expect(r.status).toBe(200);
  return r.body.items;
}

function tally(responses: ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

const confirm = (itemId: string, body: Record<string, unknown> = {}) =>
  t.owner('POST', `/v1/owner/items/${itemId}/transitions`, { body: { event: 'confirm', ...body } });

describe('one idempotency key, many parallel requests', () => {
  it('20 parallel create_booking calls with one Idempotency-Key create exactly one item', async () => {
    const body = booking('haircut', '2026-11-24T10:00:00Z', {}, 'Racer Quebec');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'race-key-1' } })),
    );
    expect(tally(responses)).toEqual({ 201: 1, 200: 19 });
    const ids = new Set(responses.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(new Set(responses.map((r) => r.body.accessToken)).size).toBe(1);
    for (const r of responses.filter((x) => x.status === 200)) expect(r.headers.get('idempotent-replayed')).toBe('true');
    const items = await listByName('quebec');
    expect(items.map((i) => i.id)).toEqual([...ids]);
    expect((await ownerItem(t, [...ids][0] as string)).events).toHaveLength(1);
  });

  it('20 parallel create_order calls with one body idempotency_key create exactly one item', async () => {
    const body = { payload: { lines: [{ productId: 'argan-shampoo', quantity: 1 }] }, contact: { name: 'Racer Romeo' }, idempotency_key: 'race-key-2' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => t.request('POST', '/v1/orders', { body })));
    expect(tally(responses)).toEqual({ 201: 1, 200: 19 });
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await listByName('romeo', 'order')).toHaveLength(1);
  });

  it('parallel calls with one key but different requests: one item, the others refused as mismatches', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request('POST', '/v1/messages', { body: { message: `Message number ${i}`, contact: { name: 'Racer Sierra' } }, headers: { 'idempotency-key': 'race-key-3' } }),
      ),
    );
    expect(tally(responses)).toEqual({ 201: 1, 422: 9 });
    for (const r of responses.filter((x) => x.status === 422)) expectProblem(r, 422, 'idempotency_mismatch');
    expect(await listByName('sierra')).toHaveLength(1);
  });

  it('parallel calls without a key each create their own item', async () => {
    const body = { message: 'Parallel hello', contact: { name: 'Racer Tango' } };
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', '/v1/messages', { body })));
    expect(tally(responses)).toEqual({ 201: 10 });
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(10);
    expect(await listByName('tango')).toHaveLength(10);
  });
});

describe('confirmations racing for one slot', () => {
  it('many parallel confirms of different bookings for one beard-trim slot (capacity 1): one 200, the rest slot_taken', async () => {
    const bookings = [];
    for (let i = 0; i < 10; i += 1) bookings.push(await createBooking(t, 'beard-trim', '2026-11-25T11:00:00Z'));
    const responses = await Promise.all(bookings.map((b) => confirm(b.id)));
    expect(tally(responses)).toEqual({ 200: 1, 409: 9 });
    for (const r of responses.filter((x) => x.status === 409)) expectProblem(r, 409, 'slot_taken');
    const winner = responses.findIndex((r) => r.status === 200);
    for (const [i, b] of bookings.entries()) {
      const view = await status(t, b.id, b.accessToken);
      expect(view.state).toBe(i === winner ? 'confirmed' : 'requested');
      expect(view.version).toBe(i === winner ? 2 : 1);
    }
    const free = await t.request('GET', '/v1/availability?service=beard-trim&from=2026-11-25&to=2026-11-25');
    expect(free.body.slots.map((s: any) => s.start)).not.toContain('2026-11-25T11:00:00.000+00:00');
  });

  it('overlapping (not equal) beard-trim slots: the winners never overlap, and each loser overlaps a winner', async () => {
    // 15:00, 15:05 overlap every other; 14:50–15:10 and 15:10–15:30 touch but do not overlap. Which
    // confirm is decided first is a race (on PostgreSQL truly side by side), so one or two win.
    const times = ['2026-11-25T15:00:00Z', '2026-11-25T15:10:00Z', '2026-11-25T14:50:00Z', '2026-11-25T15:05:00Z'];
    const spans = times.map((time) => [Date.parse(time), Date.parse(time) + 20 * 60_000] as const);
    const overlap = (a: number, b: number) => spans[a]![0] < spans[b]![1] && spans[b]![0] < spans[a]![1];
    const bookings = [];
    for (const [start, end] of spans) bookings.push(await createBooking(t, 'beard-trim', new Date(start).toISOString(), { endTime: new Date(end).toISOString() }));
    const responses = await Promise.all(bookings.map((b) => confirm(b.id)));
    const winners = responses.flatMap((r, i) => (r.status === 200 ? [i] : []));
    const losers = responses.flatMap((r, i) => (r.status === 200 ? [] : [i]));
    expect(winners.length).toBeGreaterThanOrEqual(1);
    for (const a of winners) for (const b of winners) if (a < b) expect(overlap(a, b), `${times[a]} and ${times[b]} both confirmed`).toBe(false);
    for (const i of losers) {
      expect(responses[i]!.status).toBe(409);
      expect(responses[i]!.body.code).toBe('slot_taken');
      expect(winners.some((w) => overlap(i, w))).toBe(true);
    }
  });

  it('a haircut slot (capacity 2) takes exactly two of many parallel confirms', async () => {
    const bookings = [];
    for (let i = 0; i < 8; i += 1) bookings.push(await createBooking(t, 'haircut', '2026-11-26T10:00:00Z'));
    const responses = await Promise.all(bookings.map((b) => confirm(b.id)));
    expect(tally(responses)).toEqual({ 200: 2, 409: 6 });
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('slot_taken');
  });

  it('a customer accepting a proposal races owner confirms for the same slot: one winner', async () => {
    const proposed = await createBooking(t, 'beard-trim', '2026-11-27T10:00:00Z');
    await ownerMove(t, proposed.id, 'propose', { startTime: '2026-11-27T16:00:00Z' });
    const rivals = [];
    for (let i = 0; i < 5; i += 1) rivals.push(await createBooking(t, 'beard-trim', '2026-11-27T16:00:00Z'));
    const responses = await Promise.all([
      t.request('POST', `/v1/items/${proposed.id}/accept`, { headers: { 'x-access-token': proposed.accessToken } }),
      ...rivals.map((b) => confirm(b.id)),
    ]);
    expect(tally(responses)).toEqual({ 200: 1, 409: 5 });
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('slot_taken');
  });
});

describe('racing moves of one item', () => {
  it('parallel confirms of one booking with expected_version 1: one wins, the others 409', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-27T14:00:00Z');
    const responses = await Promise.all(Array.from({ length: 12 }, () => confirm(b.id, { expected_version: 1 })));
    expect(tally(responses)).toEqual({ 200: 1, 409: 11 });
    for (const r of responses.filter((x) => x.status === 409)) {
      expectProblem(r, 409, r.body.code);
      expect(['version_conflict', 'wrong_state']).toContain(r.body.code);
    }
    const owner = await ownerItem(t, b.id);
    expect(owner).toMatchObject({ state: 'confirmed', version: 2 });
    expect(owner.events.filter((e: any) => e.type === 'booking.confirm')).toHaveLength(1);
  });

  it('parallel confirms without expected_version: one wins, the others wrong_state', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-27T15:00:00Z');
    const responses = await Promise.all(Array.from({ length: 8 }, () => confirm(b.id)));
    expect(tally(responses)).toEqual({ 200: 1, 409: 7 });
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('wrong_state');
    expect((await ownerItem(t, b.id)).version).toBe(2);
  });

  it('parallel accepts of one quote create exactly one order', async () => {
    const q = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Racer Uniform custom colour' }, contact: { name: 'Racer Uniform' } } });
    await ownerMove(t, q.body.id, 'quote', { totalPrice: 15000, validThrough: '2026-12-20T00:00:00Z' });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => t.request('POST', `/v1/items/${q.body.id}/accept`, { headers: { 'x-access-token': q.body.accessToken } })),
    );
    expect(tally(responses)).toEqual({ 200: 1, 409: 9 });
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('wrong_state');
    const orders = await listByName('uniform', 'order');
    expect(orders).toHaveLength(1);
    expect(orders[0].linkedItemId).toBe(q.body.id);
  });

  it('parallel customer cancels and owner confirms of one booking end in a state the winners explain', async () => {
    const b = await createBooking(t, 'haircut', '2026-12-01T10:00:00Z');
    const responses = await Promise.all([
      ...Array.from({ length: 4 }, () => t.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken } })),
      ...Array.from({ length: 4 }, () => confirm(b.id)),
    ]);
    const owner = await ownerItem(t, b.id);
    const moves = owner.events.filter((e: any) => e.type !== 'booking.create');
    // Every 200 is one event; the item's version counts them; the last one set the state.
    expect(moves).toHaveLength(responses.filter((r) => r.status === 200).length);
    expect(owner.version).toBe(1 + moves.length);
    expect(owner.state).toBe('cancelled');
    expect(moves.at(-1).type).toBe('booking.cancel');
    expect(moves.filter((e: any) => e.type === 'booking.cancel')).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) expect(r.body.code).toBe('wrong_state');
  });
});
