/**
 * create_booking refuses what availability already rules out, before anything is stored (issue 12,
 * docs/items.md "When a booking is refused"): a closure day, outside opening hours, the past, less
 * than the service's notice, a party over the service's size, a slot full of confirmed bookings.
 * Over REST and MCP, the same problem documents with `next_free` (from the same computation as
 * check_availability) and an `availability` link; a valid booking still gets 201, and unpriced work
 * still waits for the business (spec §3 rule 2). The demo clock starts on Monday 2026-11-23 10:00
 * UTC; Lisbon is on UTC in November; the salon opens Tuesday to Saturday and closes 24–26 December.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, haircutAt, startInbox, type ApiResponse, type TestInbox } from './support/harness.js';
import { booking, createBooking, expectFieldProblem, expectProblem, ownerMove } from './support/customer-calls.js';

/** A time availability does not offer: 409 slot_taken naming the field to change, with the nearest free starts. */
function expectTimeRefused(r: ApiResponse, path: string): void {
  expectProblem(r, 409, 'slot_taken');
  expect(r.body.fields).toContainEqual(expect.objectContaining({ path, problem: 'invalid' }));
  expect(Array.isArray(r.body.next_free)).toBe(true);
}

let t: TestInbox;
let mcp: Client;

beforeAll(async () => {
  t = await startInbox({ clock: new TestClock('2026-11-23T10:00:00Z') });
  mcp = new Client({ name: 'booking-time-test', version: '1' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`)));
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) => t.request('POST', '/v1/bookings', { body, headers });

async function bookingsStored(): Promise<number> {
  const r = await t.owner('GET', '/v1/owner/items?type=booking&open_only=false&limit=100');
  return r.body.items.length as number;
}

describe('create_booking over REST', () => {
  it('refuses a day the business is closed, naming the closure, and offers the next free times', async () => {
    const before = await bookingsStored();
    const r = await post(haircutAt('2026-12-24T10:00:00Z'));
    expectTimeRefused(r, 'payload.startTime');
    expect(r.body.detail).toMatch(/closed from 2026-12-24 to 2026-12-26 \(Christmas\)/);
    // Sunday 27 and Monday 28 are closed too: the first free start is Tuesday's opening.
    expect(r.body.next_free[0]).toEqual({ start: '2026-12-29T09:30:00.000+00:00', end: '2026-12-29T10:15:00.000+00:00' });
    expect(r.body.next_free).toHaveLength(5);
    expect(r.body.availability).toBe('/v1/availability?service=haircut&from=2026-12-24&to=2027-01-05');
    // The link answers, and its first slot is the first one offered.
    const listed = await t.request('GET', r.body.availability);
    expect(listed.status).toBe(200);
    expect(listed.body.slots[0]).toEqual(r.body.next_free[0]);
    expect(await bookingsStored()).toBe(before);
  });

  it('refuses a time outside opening hours, and a booking running past closing', async () => {
    const lunch = await post(haircutAt('2026-11-24T13:15:00Z'));
    expectTimeRefused(lunch, 'payload.startTime');
    expect(lunch.body.detail).toMatch(/outside opening hours: open 09:30–13:00 and 14:00–19:30 on Tuesdays \(Europe\/Lisbon\)/);
    expect(lunch.body.next_free[0].start).toBe('2026-11-24T09:30:00.000+00:00');

    const sunday = await post(haircutAt('2026-11-29T11:00:00Z'));
    expectTimeRefused(sunday, 'payload.startTime');
    expect(sunday.body.detail).toMatch(/closed on Sundays/);

    // 45 minutes from 12:45 runs into lunch: the start is what to change.
    const intoLunch = await post(haircutAt('2026-11-24T12:45:00Z'));
    expectTimeRefused(intoLunch, 'payload.startTime');
    expect(intoLunch.body.detail).toMatch(/runs past closing/);
    // An end the customer chose: that is the field named.
    const longEnd = await post(haircutAt('2026-11-24T12:00:00Z', { endTime: '2026-11-24T13:30:00Z' }));
    expectTimeRefused(longEnd, 'payload.endTime');
  });

  it('refuses the past and a start inside the service\'s notice, offering times from now on', async () => {
    const past = await post(haircutAt('2026-11-20T10:00:00Z'));
    expectFieldProblem(past, 'payload.startTime');
    expect(past.body.detail).toMatch(/in the past/);
    expect(past.body.next_free[0].start).toBe('2026-11-24T09:30:00.000+00:00');

    t.clock.set('2026-11-24T10:00:00Z'); // Tuesday, open
    try {
      const soon = await post(haircutAt('2026-11-24T10:30:00Z'));
      expectTimeRefused(soon, 'payload.startTime');
      expect(soon.body.detail).toMatch(/Haircut needs an hour’s notice/);
      expect(soon.body.next_free[0].start).toBe('2026-11-24T11:00:00.000+00:00');
      // The consultation takes no notice: the same time is fine.
      expect((await post(booking('consultation', '2026-11-24T10:30:00Z'))).status).toBe(201);
    } finally {
      t.clock.set('2026-11-23T10:00:00Z');
    }
  });

  it('refuses a party larger than the service takes', async () => {
    const r = await post(haircutAt('2026-11-25T10:00:00Z', { partySize: 2 }));
    expectFieldProblem(r, 'payload.partySize');
    expect(r.body.detail).toMatch(/at most 1/);
  });

  it('refuses a slot that confirmed bookings fill with slot_taken and the next free times; a booking ending at its start still fits', async () => {
    const first = await createBooking(t, 'haircut', '2026-11-26T15:00:00Z');
    const second = await createBooking(t, 'haircut', '2026-11-26T15:00:00Z');
    await ownerMove(t, first.id, 'confirm');
    await ownerMove(t, second.id, 'confirm');
    const third = await post(haircutAt('2026-11-26T15:00:00Z'));
    expectProblem(third, 409, 'slot_taken');
    const starts = (third.body.next_free as { start: string }[]).map((s) => s.start);
    expect(starts).toEqual([
      '2026-11-26T09:30:00.000+00:00',
      '2026-11-26T09:45:00.000+00:00',
      '2026-11-26T10:00:00.000+00:00',
      '2026-11-26T10:15:00.000+00:00',
      '2026-11-26T10:30:00.000+00:00',
    ]);
    const overlapping = await post(haircutAt('2026-11-26T15:30:00Z'));
    expectProblem(overlapping, 409, 'slot_taken');
    // 14:15 + 45 min ends at 15:00 exactly.
    expect((await post(haircutAt('2026-11-26T14:15:00Z'))).status).toBe(201);
    // A test booking never takes a real slot, so a full one does not refuse it; a closed day does.
    expect((await post({ ...haircutAt('2026-11-26T15:00:00Z'), sandbox: true })).status).toBe(201);
    expectTimeRefused(await post({ ...haircutAt('2026-12-25T10:00:00Z'), sandbox: true }), 'payload.startTime');
  });

  it('still takes a valid booking, and unpriced work still waits for the business', async () => {
    const fixed = await post(haircutAt('2026-11-27T10:00:00Z'));
    expect(fixed.status).toBe(201);
    expect(fixed.body).toMatchObject({ state: 'requested', needsHuman: false, payload: { priceStatus: 'catalogue', price: 2500 } });
    // Spec §3 rule 2: a fixed service booked for longer than it lasts, and a service priced by quote.
    const longer = await post(haircutAt('2026-11-27T11:00:00Z', { endTime: '2026-11-27T12:30:00Z' }));
    expect(longer.status).toBe(201);
    expect(longer.body).toMatchObject({ needsHuman: true, payload: { priceStatus: 'awaiting_business', price: null } });
    const quote = await post(booking('bridal-styling', '2026-11-28T09:00:00Z'));
    expect(quote.status).toBe(201);
    expect(quote.body).toMatchObject({ needsHuman: true, payload: { priceStatus: 'awaiting_business' } });
  });

  it('a refusal is not stored under its idempotency key: a retry is checked again, and succeeds once the time is bookable', async () => {
    const body = { ...haircutAt('2026-12-26T11:00:00Z'), idempotency_key: 'closed-then-open' };
    const first = await post(body);
    const again = await post(body);
    expectTimeRefused(first, 'payload.startTime');
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body).toEqual(first.body);

    const open = await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [] } });
    expect(open.status).toBe(200);
    try {
      const made = await post(body);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const replay = await post(body);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(made.body.id);
    } finally {
      await t.owner('PUT', '/v1/owner/availability/closures', { body: { closures: [{ startDate: '2026-12-24', endDate: '2026-12-26', reason: 'Christmas' }] } });
    }
  });
});

describe('create_booking over MCP', () => {
  type Refusal = { isError?: boolean; structuredContent?: { error?: Record<string, any> } };

  it('answers the same problem documents as REST', async () => {
    const closed = (await mcp.callTool({ name: 'create_booking', arguments: haircutAt('2026-12-25T10:00:00Z') })) as Refusal;
    const rest = await post(haircutAt('2026-12-25T10:00:00Z'));
    expect(closed.isError).toBe(true);
    expect(closed.structuredContent?.error).toEqual(rest.body);
    expect(closed.structuredContent?.error).toMatchObject({ status: 409, code: 'slot_taken', fields: [{ path: 'payload.startTime' }] });

    const outside = (await mcp.callTool({ name: 'create_booking', arguments: haircutAt('2026-11-24T20:00:00Z') })) as Refusal;
    expect(outside.structuredContent?.error).toMatchObject({ status: 409, code: 'slot_taken', detail: expect.stringMatching(/outside opening hours/) });
    const past = (await mcp.callTool({ name: 'create_booking', arguments: haircutAt('2026-11-01T10:00:00Z') })) as Refusal;
    expect(past.structuredContent?.error?.detail).toMatch(/in the past/);
  });

  it('refuses a full slot with slot_taken, and takes a free one', async () => {
    const one = await createBooking(t, 'beard-trim', '2026-12-01T10:00:00Z');
    await ownerMove(t, one.id, 'confirm');
    const full = (await mcp.callTool({ name: 'create_booking', arguments: booking('beard-trim', '2026-12-01T10:00:00Z') })) as Refusal;
    expect(full.isError).toBe(true);
    expect(full.structuredContent?.error).toMatchObject({ status: 409, code: 'slot_taken', next_free: expect.any(Array) });
    expect(full.structuredContent?.error?.next_free.map((s: { start: string }) => s.start)).not.toContain('2026-12-01T10:00:00.000+00:00');
    const free = await mcp.callTool({ name: 'create_booking', arguments: booking('beard-trim', full.structuredContent?.error?.next_free[0].start) });
    expect(free.isError).toBeFalsy();
    expect(free.structuredContent).toMatchObject({ state: 'requested', accessToken: expect.any(String) });
  });
});

afterEach(() => {
  // Tests share one inbox; none may leave the clock moved.
  expect(t.clock.now()).toBe(Date.parse('2026-11-23T10:00:00Z'));
});
