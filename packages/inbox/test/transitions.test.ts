/**
 * Every event of every item machine, fired through HTTP along realistic paths (inbox spec §3, §6,
 * §7): public create endpoints, the owner's POST /v1/owner/items/{id}/transitions, and the
 * customer's cancel, accept, decline and messages endpoints. Each move is checked in the owner's
 * GET /v1/owner/items/{id}: state, a version one higher, the event with `by` and `channel`, and the
 * moves open next. System events are driven through the job runner with the test clock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '@svc/shared';
import { systemEventJob } from '../src/domain/items/effects.js';
import { MACHINES } from '../src/domain/machines/index.js';
import { ITEM_TYPES } from '../src/domain/types.js';
import { haircutAt, startInbox, type ApiResponse, type TestInbox } from './support/harness.js';

const START = '2026-11-23T10:00:00Z';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const CUSTOMER = { kind: 'customer_agent', id: null, name: null };
const SYSTEM = { kind: 'system', id: null, name: 'inbox' };

let t: TestInbox;
let OWNER: { kind: string; id: string; name: string };

interface Created {
  id: string;
  token: string;
  body: any;
}

beforeAll(async () => {
  t = await startInbox();
  const key = (await t.inbox.store.apiKeys.list()).find((k) => k.name === 'test owner');
  if (!key) throw new Error('the harness made no owner key');
  OWNER = { kind: 'owner', id: key.id, name: 'test owner' };
});
afterAll(() => t.close());
beforeEach(() => t.clock.set(START));

// ---- helpers -------------------------------------------------------------------------------------

function ok(r: ApiResponse, status = 200): any {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

async function create(path: string, body: unknown): Promise<Created> {
  const created = ok(await t.request('POST', path, { body }), 201);
  expect(created.version).toBe(1);
  expect(typeof created.accessToken).toBe('string');
  return { id: created.id, token: created.accessToken, body: created };
}

const book = (startTime: string, extra: Record<string, unknown> = {}) => create('/v1/bookings', haircutAt(startTime, extra));
const order = (lines: unknown[]) => create('/v1/orders', { payload: { lines }, contact: { name: 'Rui Costa', email: 'rui@example.com' } });
const quoteRequest = (payload: Record<string, unknown> = {}) =>
  create('/v1/quotes', { payload: { description: 'Bridal styling for four on location', ...payload }, contact: { name: 'Inês', email: 'ines@example.com' } });
const conversation = () => create('/v1/messages', { message: 'Do you cut curly hair?', payload: { subject: 'Curls' }, contact: { name: 'Marta' } });

/** Every event type seen in an owner view during this file, to prove every event was walked. */
const seenEvents = new Set<string>();

async function view(id: string): Promise<any> {
  const item = ok(await t.owner('GET', `/v1/owner/items/${id}`));
  for (const e of item.events) seenEvents.add(e.type);
  return item;
}

function fire(id: string, event: string, body: Record<string, unknown> = {}): Promise<ApiResponse> {
  return t.owner('POST', `/v1/owner/items/${id}/transitions`, { body: { event, ...body } });
}

function customer(item: Created, action: 'cancel' | 'accept' | 'decline', body: Record<string, unknown> = {}): Promise<ApiResponse> {
  return t.request('POST', `/v1/items/${item.id}/${action}`, { body: { access_token: item.token, ...body } });
}

function customerSays(item: Created, message: string): Promise<ApiResponse> {
  return t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.token, message } });
}

const RECEIPT_EVENTS = new Set(['receipt_issued', 'receipt_acknowledged']);
const SIDE = new Set(['message', 'flags', ...RECEIPT_EVENTS]);

const nextEvents = (v: any): string[] => v.transitions.map((m: any) => m.event).sort();

/**
 * What every move shows in the owner's view: the new state, the version one higher, exactly one
 * event of that name at the new version with who fired it and through which door.
 */
async function expectMoved(
  id: string,
  before: any,
  event: string,
  to: string,
  by: unknown,
  options: { channel?: string; reason?: string | null; next?: string[] } = {},
): Promise<any> {
  const after = await view(id);
  expect(after.state).toBe(to);
  expect(after.version).toBe(before.version + 1);
  // Side events (messages, flags, receipts) carry the version they happened at; the move is the one other event.
  const recorded = after.events.filter((e: any) => e.version === after.version && !SIDE.has(e.event));
  expect(recorded).toHaveLength(1);
  expect(recorded[0]).toMatchObject({
    type: `${after.type}.${event}`,
    event,
    fromState: before.state,
    toState: to,
    version: after.version,
    by,
    channel: options.channel ?? 'rest',
    reason: options.reason ?? null,
  });
  expect(after.events.filter((e: any) => !RECEIPT_EVENTS.has(e.event)).at(-1).id).toBe(recorded[0].id);
  if (options.next) expect(nextEvents(after)).toEqual([...options.next].sort());
  return after;
}

/** The owner fires `event` and the item moves to `to`. */
async function ownerMoves(
  id: string,
  event: string,
  to: string,
  body: Record<string, unknown> = {},
  next?: string[],
): Promise<any> {
  const before = await view(id);
  const answer = ok(await fire(id, event, body));
  expect(answer.state).toBe(to);
  expect(answer.version).toBe(before.version + 1);
  const plain = event.replace(/^[a-z_]+\./, ''); // booking.confirm is recorded as confirm
  return expectMoved(id, before, plain, to, OWNER, { reason: (body.reason as string | undefined) ?? null, ...(next ? { next } : {}) });
}

/** A customer endpoint moves the item to `to` by `event`. */
async function customerMoves(
  item: Created,
  call: () => Promise<ApiResponse>,
  event: string,
  to: string,
  options: { next?: string[]; reason?: string } = {},
): Promise<any> {
  const before = await view(item.id);
  const answer = ok(await call());
  expect(answer.state).toBe(to);
  expect(answer.version).toBe(before.version + 1);
  return expectMoved(item.id, before, event, to, CUSTOMER, options);
}

function expectProblem(r: ApiResponse, status: number, code: string): any {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(r.body.code).toBe(code);
  expect(r.body.type).toMatch(new RegExp(`/${code}$`));
  return r.body;
}

/** A refusal leaves the item exactly as it was. */
async function refused(id: string, call: () => Promise<ApiResponse>, status: number, code: string): Promise<any> {
  const before = await view(id);
  const problem = expectProblem(await call(), status, code);
  const after = await view(id);
  expect(after.state).toBe(before.state);
  expect(after.version).toBe(before.version);
  expect(after.events).toHaveLength(before.events.length);
  return problem;
}

/** Runs the job runner as the system would at the clock's time. */
async function runJobs(): Promise<void> {
  await t.inbox.jobs.runDue();
}

// ---- booking -------------------------------------------------------------------------------------

describe('booking', () => {
  it('request_info, then a customer message provides the info; confirm; complete, and the no_show ↔ completed corrections', async () => {
    const b = await book('2026-11-24T10:00:00Z');
    let v = await view(b.id);
    expect(v.state).toBe('requested');
    expect(v.events).toHaveLength(1);
    expect(v.events[0]).toMatchObject({ type: 'booking.create', version: 1, by: CUSTOMER, channel: 'rest' });
    expect(nextEvents(v)).toEqual(['cancel_by_business', 'confirm', 'decline', 'propose', 'request_info']);
    const byEvent = Object.fromEntries(v.transitions.map((m: any) => [m.event, m]));
    expect(byEvent.propose.label).toBe('Propose another time');
    expect(byEvent.propose.input.required).toContain('startTime');
    expect(Object.keys(byEvent.confirm.input.properties)).toEqual(['price']);
    expect(byEvent.decline.input).toBeNull();

    await ownerMoves(b.id, 'request_info', 'needs_info', { reason: 'Which stylist?' }, ['cancel_by_business', 'confirm', 'decline', 'propose']);

    const said = await customerMoves(b, () => customerSays(b, 'Any stylist is fine.'), 'provide_info', 'requested');
    const message = said.events.find((e: any) => e.event === 'message');
    expect(message).toMatchObject({ type: 'booking.message', version: 2, by: CUSTOMER, channel: 'rest', fromState: 'needs_info', toState: 'needs_info' });
    expect(said.conversation.map((m: any) => m.text)).toContain('Any stylist is fine.');

    v = await ownerMoves(b.id, 'confirm', 'confirmed', {}, ['cancel_by_business']);
    expect(v.closedAt).toBeNull();

    // Not started yet: neither complete nor no_show.
    await refused(b.id, () => fire(b.id, 'complete'), 409, 'guard_failed');
    await refused(b.id, () => fire(b.id, 'no_show'), 409, 'guard_failed');

    t.clock.set('2026-11-24T10:50:00Z');
    expect(nextEvents(await view(b.id))).toEqual(['cancel_by_business', 'complete', 'no_show']);
    v = await ownerMoves(b.id, 'complete', 'completed', {}, ['no_show']);
    expect(v.closedAt).not.toBeNull();
    const closedAt = v.closedAt;

    t.clock.set('2026-11-24T12:00:00Z');
    v = await ownerMoves(b.id, 'no_show', 'no_show', { reason: 'Marked by mistake' }, ['complete']);
    v = await ownerMoves(b.id, 'complete', 'completed', { reason: 'She did come after all' }, ['no_show']);
    expect(v.closedAt).toBe(closedAt);
    expect(v.version).toBe(7);
    expect(v.events.filter((e: any) => !SIDE.has(e.event)).map((e: any) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Confirmed, then completed, corrected to a no-show and back: one receipt each (docs/receipts.md).
    expect(v.events.filter((e: any) => e.event === 'receipt_issued').map((e: any) => e.version)).toEqual([4, 5, 6, 7]);
  });

  it('no_show straight from confirmed once the time has come', async () => {
    const b = await book('2026-11-24T11:00:00Z');
    await ownerMoves(b.id, 'confirm', 'confirmed');
    t.clock.set('2026-11-24T11:30:00Z');
    await ownerMoves(b.id, 'no_show', 'no_show', {}, ['complete']);
    await refused(b.id, () => fire(b.id, 'cancel_by_business'), 409, 'wrong_state');
  });

  it('propose, and the customer accepts the proposed time', async () => {
    const b = await book('2026-11-25T10:00:00Z');
    const proposed = await ownerMoves(b.id, 'propose', 'proposed', { input: { startTime: '2026-11-25T15:00:00Z', note: 'Morning is full' } }, [
      'cancel_by_business',
      'decline',
      'propose',
      'request_info',
    ]);
    expect(proposed.payload.proposal).toMatchObject({ note: 'Morning is full' });
    expect(Date.parse(proposed.payload.proposal.startTime)).toBe(Date.parse('2026-11-25T15:00:00Z'));
    expect(Date.parse(proposed.payload.proposal.endTime)).toBe(Date.parse('2026-11-25T15:45:00Z'));
    expect(proposed.events.at(-1).data).toMatchObject({ startTime: '2026-11-25T15:00:00Z' });

    // accept is the customer's: the owner is not allowed to fire it.
    const problem = await refused(b.id, () => fire(b.id, 'accept'), 403, 'not_allowed');
    expect(problem.detail).toMatch(/accept/);

    const status = ok(await t.request('GET', `/v1/items/${b.id}`, { headers: { 'x-access-token': b.token } }));
    expect(status.next.map((n: any) => n.event).sort()).toEqual(['accept', 'cancel']);

    const accepted = await customerMoves(b, () => customer(b, 'accept'), 'accept', 'confirmed', { next: ['cancel_by_business'] });
    expect(accepted.payload.proposal).toBeUndefined();
    expect(Date.parse(accepted.payload.startTime)).toBe(Date.parse('2026-11-25T15:00:00Z'));
    expect(Date.parse(accepted.payload.endTime)).toBe(Date.parse('2026-11-25T15:45:00Z'));
    expect(accepted.payload.price).toBe(2500);
  });

  it('decline, after which nothing else moves it', async () => {
    const b = await book('2026-11-25T11:00:00Z');
    const v = await ownerMoves(b.id, 'decline', 'declined', { reason: 'Fully booked' }, []);
    expect(v.closedAt).not.toBeNull();
    await refused(b.id, () => fire(b.id, 'confirm'), 409, 'wrong_state');
    await refused(b.id, () => customer(b, 'cancel'), 409, 'wrong_state');
  });

  it('confirm prices a booking the catalogue does not price, and never changes a catalogue price', async () => {
    const colouring = await create('/v1/bookings', { payload: { serviceId: 'colouring', startTime: '2026-11-28T09:00:00Z' } });
    expect(colouring.body.payload).toMatchObject({ price: null, priceStatus: 'awaiting_business' });
    const priced = await ownerMoves(colouring.id, 'confirm', 'confirmed', { input: { price: 7500 } });
    expect(priced.payload).toMatchObject({ price: 7500, priceStatus: 'business' });
    expect(priced.events.filter((e: any) => !RECEIPT_EVENTS.has(e.event)).at(-1).data).toEqual({ price: 7500 });

    const haircut = await book('2026-11-25T16:00:00Z');
    const problem = await refused(haircut.id, () => fire(haircut.id, 'confirm', { input: { price: 1000 } }), 422, 'invalid_input');
    expect(problem.fields.map((f: any) => f.path)).toEqual(['input.price']);
    const same = await ownerMoves(haircut.id, 'confirm', 'confirmed', { input: { price: 2500 } });
    expect(same.payload).toMatchObject({ price: 2500, priceStatus: 'catalogue' });
  });

  it('cancel_by_business on a confirmed booking', async () => {
    const b = await book('2026-11-25T12:00:00Z');
    await ownerMoves(b.id, 'confirm', 'confirmed');
    await ownerMoves(b.id, 'cancel_by_business', 'cancelled_by_business', { reason: 'Stylist ill' }, []);
  });

  it('the customer cancels: before confirmation, and a confirmed one inside the free window', async () => {
    const early = await book('2026-11-26T10:00:00Z');
    await customerMoves(early, () => customer(early, 'cancel', { reason: 'Plans changed' }), 'cancel', 'cancelled', { next: [], reason: 'Plans changed' });

    const confirmed = await book('2026-11-26T11:00:00Z');
    await ownerMoves(confirmed.id, 'confirm', 'confirmed');
    await customerMoves(confirmed, () => customer(confirmed, 'cancel'), 'cancel', 'cancelled', { next: [] });
  });

  it('cancel_late after the window when the business records late cancellations; refused when it does not', async () => {
    // The free window is 24 hours; both start sooner than that (Tuesday's opening; the clock is Monday 10:00).
    const late = await book('2026-11-24T09:30:00Z');
    await ownerMoves(late.id, 'confirm', 'confirmed');
    await customerMoves(late, () => customer(late, 'cancel'), 'cancel_late', 'cancelled_late', { next: [] });

    const kept = await book('2026-11-24T09:45:00Z');
    await ownerMoves(kept.id, 'confirm', 'confirmed');
    ok(await t.owner('PUT', '/v1/owner/settings', { body: { settings: { booking: { lateCancellation: 'refuse' } } } }));
    try {
      const problem = await refused(kept.id, () => customer(kept, 'cancel'), 409, 'guard_failed');
      expect(problem.detail).toMatch(/cancel/i);
    } finally {
      ok(await t.owner('PUT', '/v1/owner/settings', { body: { settings: { booking: { lateCancellation: null } } } }));
    }
    // cancel_late is fired by cancel_item only; the owner cannot fire it.
    await refused(kept.id, () => fire(kept.id, 'cancel_late'), 403, 'not_allowed');
  });

  it('expire is the system\'s: the owner is not allowed, the job expires a booking nobody answered', async () => {
    const b = await book('2026-11-26T12:00:00Z');
    const problem = await refused(b.id, () => fire(b.id, 'expire'), 403, 'not_allowed');
    expect(problem.detail).toMatch(/expire/);

    const before = await view(b.id);
    await t.inbox.store.jobs.enqueue({ id: newId(t.clock.now()), ...systemEventJob(b.id, 'booking', 'expire', t.clock.now()) }, t.clock.now());
    await runJobs();
    const after = await expectMoved(b.id, before, 'expire', 'expired', SYSTEM, { channel: 'system', next: [] });
    expect(after.closedAt).not.toBeNull();
  });

  it('is completed by the system autoCompleteHours after its end', async () => {
    const b = await book('2026-11-26T14:00:00Z');
    const confirmed = await ownerMoves(b.id, 'confirm', 'confirmed');
    t.clock.set('2026-11-28T14:30:00Z'); // 47.75 hours after the end
    await runJobs();
    expect((await view(b.id)).state).toBe('confirmed');
    t.clock.set('2026-11-28T14:45:00Z'); // 48 hours after the end
    await runJobs();
    await expectMoved(b.id, confirmed, 'complete', 'completed', SYSTEM, { channel: 'system', next: ['no_show'] });
  });

  it('does not let the auto-complete job overrule an owner\'s no_show', async () => {
    const b = await book('2026-11-26T15:00:00Z');
    await ownerMoves(b.id, 'confirm', 'confirmed');
    t.clock.set('2026-11-26T15:10:00Z');
    const noShow = await ownerMoves(b.id, 'no_show', 'no_show');
    t.clock.set('2026-11-29T00:00:00Z');
    await runJobs();
    const after = await view(b.id);
    expect(after.state).toBe('no_show');
    expect(after.version).toBe(noShow.version);
  });

  it('answers slot_taken when the slot filled up, on confirm and on accept', async () => {
    const at = '2026-11-27T10:00:00Z'; // haircut takes two at once
    const [a, b, c] = [await book(at), await book(at), await book(at)];
    await ownerMoves(a.id, 'confirm', 'confirmed');
    await ownerMoves(b.id, 'confirm', 'confirmed');
    const problem = await refused(c.id, () => fire(c.id, 'confirm'), 409, 'slot_taken');
    expect(problem.status).toBe(409);

    const d = await book('2026-11-27T14:00:00Z');
    await ownerMoves(d.id, 'propose', 'proposed', { input: { startTime: at } });
    await refused(d.id, () => customer(d, 'accept'), 409, 'slot_taken');
  });

  it('confirms the booked time, not a proposal withdrawn by asking for details', async () => {
    const at = '2026-11-27T11:00:00Z';
    const b = await book('2026-11-27T15:00:00Z');
    await ownerMoves(b.id, 'propose', 'proposed', { input: { startTime: at } });
    await ownerMoves(b.id, 'request_info', 'needs_info');
    await customerMoves(b, () => customerSays(b, 'I can only do 15:00, sorry.'), 'provide_info', 'requested');
    // The proposed time fills up; the booked time (15:00) is still free.
    for (const other of [await book(at), await book(at)]) await ownerMoves(other.id, 'confirm', 'confirmed');
    const confirmed = await ownerMoves(b.id, 'confirm', 'confirmed');
    expect(Date.parse(confirmed.payload.startTime)).toBe(Date.parse('2026-11-27T15:00:00Z'));
  });

  it('takes the event with its type prefix, and refuses another type\'s event as unknown', async () => {
    const b = await book('2026-11-27T16:00:00Z');
    await refused(b.id, () => fire(b.id, 'order.accept'), 400, 'unknown_event');
    const v = await ownerMoves(b.id, 'booking.decline', 'declined');
    expect(v.events.at(-1).type).toBe('booking.decline');
  });

  it('a message on the item does not change its version', async () => {
    const b = await book('2026-11-27T17:00:00Z');
    const before = await view(b.id);
    const status = ok(await customerSays(b, 'Is there parking nearby?'));
    expect(status.version).toBe(1);
    expect(status.state).toBe('requested');
    const reply = ok(await t.owner('POST', `/v1/owner/items/${b.id}/replies`, { body: { message: 'Yes, on Rua da Escola.' } }), 201);
    expect(reply.version).toBe(1);
    const after = await view(b.id);
    expect(after.version).toBe(before.version);
    expect(after.events.at(-1)).toMatchObject({ type: 'booking.message', event: 'message', version: 1 });
    expect(after.conversation).toHaveLength(2);
  });
});

// ---- refusals ------------------------------------------------------------------------------------

describe('refusals on the transition endpoint', () => {
  it('unknown_event 400, wrong_state 409, not_allowed 403, as problem documents', async () => {
    const b = await book('2026-11-28T10:00:00Z');
    const unknown = await refused(b.id, () => fire(b.id, 'teleport'), 400, 'unknown_event');
    expect(unknown.detail).toContain('confirm');
    await refused(b.id, () => fire(b.id, 'create'), 400, 'unknown_event');
    await refused(b.id, () => fire(b.id, 'complete'), 409, 'wrong_state');
    await refused(b.id, () => fire(b.id, 'provide_info'), 403, 'not_allowed');
    await refused(b.id, () => fire(b.id, 'cancel'), 403, 'not_allowed');
    // The customer's side: a booking's decline is the business's; accept needs a proposal.
    await refused(b.id, () => customer(b, 'decline'), 403, 'not_allowed');
    await refused(b.id, () => customer(b, 'accept'), 409, 'wrong_state');
  });

  it('records an integration key as the actor, by its id and name', async () => {
    const id = newId(t.clock.now());
    const value = `svc_own_integration_${id}`;
    await t.inbox.store.apiKeys.insert({
      id,
      name: 'Calendar sync',
      kind: 'integration',
      preset: 'calendar_sync',
      scopes: ['availability:write', 'inbox:read', 'inbox:write', 'events:read'],
      keyHash: sha256Hex(value),
      keyHint: 'svc_own_…',
      createdByKind: 'owner',
      createdAt: t.clock.now(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    const b = await book('2026-11-28T14:00:00Z');
    const before = await view(b.id);
    const r = await t.request('POST', `/v1/owner/items/${b.id}/transitions`, {
      body: { event: 'confirm', reason: 'Synced' },
      headers: { authorization: `Bearer ${value}` },
    });
    expect(ok(r).state).toBe('confirmed');
    await expectMoved(b.id, before, 'confirm', 'confirmed', { kind: 'integration', id, name: 'Calendar sync' }, { reason: 'Synced' });
  });

  it('version_conflict 409 when expected_version differs; the right one moves the item', async () => {
    const b = await book('2026-11-28T11:00:00Z');
    const problem = await refused(b.id, () => fire(b.id, 'confirm', { expected_version: 2 }), 409, 'version_conflict');
    expect(problem.currentVersion).toBe(1);
    await ownerMoves(b.id, 'confirm', 'confirmed', { expected_version: 1 });
    await refused(b.id, () => fire(b.id, 'cancel_by_business', { expected_version: 1 }), 409, 'version_conflict');
    await refused(b.id, () => customer(b, 'cancel', { expected_version: 1 }), 409, 'version_conflict');
    await ownerMoves(b.id, 'cancel_by_business', 'cancelled_by_business', { expected_version: 2 });
  });

  it('invalid input of an event answers 422 with fields under input.', async () => {
    const b = await book('2026-11-28T12:00:00Z');
    const missing = await refused(b.id, () => fire(b.id, 'propose'), 422, 'invalid_input');
    expect(missing.fields).toEqual([expect.objectContaining({ path: 'input.startTime', problem: 'missing' })]);
    const bad = await refused(b.id, () => fire(b.id, 'propose', { input: { startTime: 'tomorrow at ten', price: -5 } }), 422, 'invalid_input');
    expect(bad.fields.map((f: any) => f.path).sort()).toEqual(['input.price', 'input.startTime']);
    const past = await refused(b.id, () => fire(b.id, 'propose', { input: { startTime: '2026-11-20T10:00:00Z' } }), 422, 'invalid_input');
    expect(past.fields.map((f: any) => f.path)).toEqual(['input.startTime']);
    const backwards = await refused(
      b.id,
      () => fire(b.id, 'propose', { input: { startTime: '2026-11-28T16:00:00Z', endTime: '2026-11-28T15:00:00Z' } }),
      422,
      'invalid_input',
    );
    expect(backwards.fields.map((f: any) => f.path)).toEqual(['input.endTime']);
    const price = await refused(b.id, () => fire(b.id, 'confirm', { input: { price: 'free' } }), 422, 'invalid_input');
    expect(price.fields.map((f: any) => f.path)).toEqual(['input.price']);
  });

  it('answers not_found for an unknown item, and unauthorized without a key', async () => {
    expectProblem(await fire('01JZZZZZZZZZZZZZZZZZZZZZZZ', 'confirm'), 404, 'not_found');
    const b = await book('2026-11-28T13:00:00Z');
    const r = await t.request('POST', `/v1/owner/items/${b.id}/transitions`, { body: { event: 'confirm' } });
    expectProblem(r, 401, 'unauthorized');
    expect((await view(b.id)).state).toBe('requested');
  });
});

// ---- order ---------------------------------------------------------------------------------------

const SHAMPOO_AND_WRAP = [
  { productId: 'argan-shampoo', quantity: 2 },
  { name: 'Gift wrapping', quantity: 1 },
];

async function paidOrder(): Promise<Created> {
  const o = await order([{ productId: 'repair-mask', quantity: 1 }]);
  await ownerMoves(o.id, 'accept', 'accepted');
  await ownerMoves(o.id, 'record_payment', 'paid');
  return o;
}

describe('order', () => {
  it('accept waits for the business to price a line; then request_payment, payment_failed, record_payment, fulfil and complete; record_charge_back once', async () => {
    const o = await order(SHAMPOO_AND_WRAP);
    let v = await view(o.id);
    expect(v.state).toBe('received');
    expect(v.payload.totalPrice).toBeNull();
    expect(nextEvents(v)).toEqual(['accept', 'cancel', 'decline', 'request_info']);

    const unpriced = await refused(o.id, () => fire(o.id, 'accept'), 409, 'guard_failed');
    expect(unpriced.detail).toContain('linePrices');
    const badPrices = await refused(o.id, () => fire(o.id, 'accept', { input: { linePrices: [{ line: 1, price: -1 }] } }), 422, 'invalid_input');
    expect(badPrices.fields.map((f: any) => f.path)).toEqual(['input.linePrices.0.price']);
    const noSuchLine = await refused(
      o.id,
      () => fire(o.id, 'accept', { input: { linePrices: [{ line: 1, price: 300 }, { line: 7, price: 1 }] } }),
      422,
      'invalid_input',
    );
    expect(noSuchLine.fields[0].path).toMatch(/^input\.linePrices/);
    // A catalogue line costs what the catalogue says (pricing rule 1).
    const catalogueLine = await refused(
      o.id,
      () => fire(o.id, 'accept', { input: { linePrices: [{ line: 0, price: 1 }, { line: 1, price: 300 }] } }),
      422,
      'invalid_input',
    );
    expect(catalogueLine.fields.map((f: any) => f.path)).toEqual(['input.linePrices']);
    const tooLarge = await refused(
      o.id,
      () => fire(o.id, 'accept', { input: { linePrices: [{ line: 1, price: Number.MAX_SAFE_INTEGER }] } }),
      422,
      'invalid_input',
    );
    expect(tooLarge.fields.map((f: any) => f.path)).toEqual(['input.linePrices']);

    v = await ownerMoves(o.id, 'accept', 'accepted', { input: { linePrices: [{ line: 1, price: 300 }] } });
    expect(v.payload.lines[1]).toMatchObject({ price: 300, priceStatus: 'business' });
    expect(v.payload.lines[0]).toMatchObject({ price: 1450, priceStatus: 'catalogue' });
    expect(v.payload.totalPrice).toBe(2 * 1450 + 300);
    expect(nextEvents(v)).toEqual(['cancel', 'fulfil', 'record_payment', 'request_payment', 'start_fulfilment']);

    const badUrl = await refused(o.id, () => fire(o.id, 'request_payment', { input: { paymentUrl: 'ftp://pay.example/o' } }), 422, 'invalid_input');
    expect(badUrl.fields.map((f: any) => f.path)).toEqual(['input.paymentUrl']);
    v = await ownerMoves(o.id, 'request_payment', 'awaiting_payment', { input: { paymentUrl: 'https://pay.example/o/1' } });
    expect(v.payload.paymentUrl).toBe('https://pay.example/o/1');
    expect(v.payload.paymentRequestedAt).toBe(new Date(START).toISOString());
    expect(nextEvents(v)).toEqual(['cancel', 'payment_failed', 'record_payment']);

    await ownerMoves(o.id, 'payment_failed', 'payment_failed', { reason: 'Card declined' }, ['cancel', 'record_payment', 'request_payment']);
    await ownerMoves(o.id, 'request_payment', 'awaiting_payment');
    await ownerMoves(o.id, 'record_payment', 'paid', {}, ['cancel', 'charge_back', 'fulfil', 'start_fulfilment']);
    await refused(o.id, () => customer(o, 'cancel'), 409, 'wrong_state');
    await ownerMoves(o.id, 'start_fulfilment', 'fulfilling', {}, ['cancel', 'charge_back', 'fulfil']);
    await ownerMoves(o.id, 'fulfil', 'fulfilled', {}, ['charge_back', 'complete']);
    v = await ownerMoves(o.id, 'complete', 'completed', {}, ['record_charge_back']);
    expect(v.closedAt).not.toBeNull();

    v = await ownerMoves(o.id, 'record_charge_back', 'completed', { reason: 'Bank reversed it' }, []);
    expect(v.payload.chargedBackAt).toBe(new Date(START).toISOString());
    const twice = await refused(o.id, () => fire(o.id, 'record_charge_back'), 409, 'guard_failed');
    expect(twice.detail).toMatch(/already/);
  });

  it('charge_back on a paid order ends it', async () => {
    const o = await paidOrder();
    const v = await ownerMoves(o.id, 'charge_back', 'charged_back', {}, []);
    expect(v.closedAt).not.toBeNull();
  });

  it('fulfil straight from accepted, then the customer cannot cancel', async () => {
    const o = await order([{ sku: 'AUR-CB-01', quantity: 3 }]);
    await ownerMoves(o.id, 'accept', 'accepted');
    await ownerMoves(o.id, 'fulfil', 'fulfilled');
    await refused(o.id, () => customer(o, 'cancel'), 409, 'wrong_state');
  });

  it('request_info, a customer message provides it, then decline', async () => {
    const o = await order(SHAMPOO_AND_WRAP);
    await ownerMoves(o.id, 'request_info', 'needs_info', { reason: 'Which paper?' }, ['accept', 'cancel', 'decline']);
    await customerMoves(o, () => customerSays(o, 'Red paper, please.'), 'provide_info', 'received');
    await ownerMoves(o.id, 'decline', 'declined', {}, []);
    await refused(o.id, () => fire(o.id, 'accept', { input: { linePrices: [{ line: 1, price: 100 }] } }), 409, 'wrong_state');
  });

  it('the customer cancels before payment: no refund', async () => {
    const o = await order([{ productId: 'sea-salt-spray', quantity: 1 }]);
    await ownerMoves(o.id, 'accept', 'accepted');
    await ownerMoves(o.id, 'request_payment', 'awaiting_payment');
    const v = await customerMoves(o, () => customer(o, 'cancel'), 'cancel', 'cancelled', { next: [] });
    expect(v.payload.refundItemId).toBeUndefined();
  });

  it('the owner cancels after payment: a refund item opens; approve, then refund', async () => {
    const o = await paidOrder();
    const cancelled = await ownerMoves(o.id, 'cancel', 'cancelled', { reason: 'Out of stock' }, []);
    const refundId = cancelled.payload.refundItemId;
    expect(typeof refundId).toBe('string');

    let r = await view(refundId);
    expect(r).toMatchObject({ type: 'refund', state: 'requested', version: 1, linkedItemId: o.id });
    expect(r.payload).toMatchObject({ orderId: o.id, amount: 1890, priceCurrency: 'EUR' });
    expect(r.events).toEqual([expect.objectContaining({ type: 'refund.create', version: 1, by: OWNER, channel: 'rest' })]);
    expect(nextEvents(r)).toEqual(['approve', 'refund', 'reject']);

    // The customer cannot move a refund, even with the order's token.
    await refused(refundId, () => t.request('POST', `/v1/items/${refundId}/cancel`, { body: { access_token: o.token } }), 403, 'not_allowed');

    await ownerMoves(refundId, 'approve', 'approved', {}, ['refund']);
    const badAmount = await refused(refundId, () => fire(refundId, 'refund', { input: { amount: 1.5 } }), 422, 'invalid_input');
    expect(badAmount.fields.map((f: any) => f.path)).toEqual(['input.amount']);
    r = await ownerMoves(refundId, 'refund', 'refunded', { input: { amount: 1890 } }, []);
    expect(r.payload.refundedAmount).toBe(1890);
    expect(r.closedAt).not.toBeNull();
  });

  it('a refund may be rejected, or refunded straight away for less than asked, never more', async () => {
    const first = await paidOrder();
    const a = (await ownerMoves(first.id, 'cancel', 'cancelled')).payload.refundItemId;
    await ownerMoves(a, 'reject', 'rejected', { reason: 'Goods were used' }, []);
    await refused(a, () => fire(a, 'refund'), 409, 'wrong_state');

    const second = await paidOrder();
    const b = (await ownerMoves(second.id, 'cancel', 'cancelled')).payload.refundItemId;
    const tooMuch = await refused(b, () => fire(b, 'refund', { input: { amount: 1891 } }), 422, 'invalid_input');
    expect(tooMuch.fields.map((f: any) => f.path)).toEqual(['input.amount']);
    const partly = await ownerMoves(b, 'refund', 'refunded', { input: { amount: 1000 } });
    expect(partly.payload.refundedAmount).toBe(1000);

    const third = await paidOrder();
    const c = (await ownerMoves(third.id, 'cancel', 'cancelled')).payload.refundItemId;
    expect((await ownerMoves(c, 'refund', 'refunded')).payload.refundedAmount).toBe(1890);
  });

  it('lapse is the system\'s: payDays after the payment request the promise closes, the state stays, a late payment is taken', async () => {
    const o = await order([{ productId: 'gift-card-50', quantity: 1 }]);
    await ownerMoves(o.id, 'accept', 'accepted');
    const requested = await ownerMoves(o.id, 'request_payment', 'awaiting_payment');
    await refused(o.id, () => fire(o.id, 'lapse'), 403, 'not_allowed');

    t.clock.set('2026-12-07T09:59:00Z'); // 14 days less a minute
    await runJobs();
    expect((await view(o.id)).version).toBe(requested.version);

    t.clock.set('2026-12-07T10:00:00Z');
    await runJobs();
    const lapsed = await expectMoved(o.id, requested, 'lapse', 'awaiting_payment', SYSTEM, { channel: 'system' });
    expect(lapsed.payload.lapsedAt).toBe('2026-12-07T10:00:00.000Z');
    expect(lapsed.closedAt).toBeNull();
    await ownerMoves(o.id, 'record_payment', 'paid');
  });

  it('a payment after payment_failed does not lapse later', async () => {
    const o = await order([{ productId: 'wooden-comb', quantity: 1 }]);
    await ownerMoves(o.id, 'accept', 'accepted');
    await ownerMoves(o.id, 'request_payment', 'awaiting_payment');
    await ownerMoves(o.id, 'payment_failed', 'payment_failed');
    const paid = await ownerMoves(o.id, 'record_payment', 'paid');
    t.clock.set('2026-12-31T00:00:00Z');
    await runJobs();
    const after = await view(o.id);
    expect(after.version).toBe(paid.version);
    expect(after.payload.lapsedAt).toBeUndefined();
  });
});

// ---- quote request -------------------------------------------------------------------------------

const IN_A_WEEK = '2026-11-30T10:00:00Z';

describe('quote_request', () => {
  it('request_info, provide_info by a message, quote, and the customer accepts: an order follows, linked both ways', async () => {
    const q = await quoteRequest();
    expect(nextEvents(await view(q.id))).toEqual(['decline', 'quote', 'request_info']);
    await ownerMoves(q.id, 'request_info', 'needs_info', { reason: 'How many people?' }, ['decline', 'quote']);
    await customerMoves(q, () => customerSays(q, 'Four, plus the bride.'), 'provide_info', 'received');

    const quoted = await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 45000, validThrough: IN_A_WEEK, description: 'Bridal styling, 5 people' } }, [
      'decline',
      'quote',
      'request_info',
    ]);
    expect(quoted.payload.quote).toMatchObject({ totalPrice: 45000, priceCurrency: 'EUR', creates: 'order', validThrough: '2026-11-30T10:00:00.000Z' });

    const status = ok(await t.request('GET', `/v1/items/${q.id}`, { headers: { 'x-access-token': q.token } }));
    expect(status.next.map((n: any) => n.event).sort()).toEqual(['accept', 'decline']);

    const accepted = await customerMoves(q, () => customer(q, 'accept'), 'accept', 'accepted', { next: [] });
    const linkedId = accepted.linkedItemId;
    expect(typeof linkedId).toBe('string');
    expect(accepted.payload.acceptedItemId).toBe(linkedId);

    const linked = await view(linkedId);
    expect(linked).toMatchObject({ type: 'order', state: 'received', version: 1, linkedItemId: q.id });
    expect(linked.payload).toMatchObject({ totalPrice: 45000, priceCurrency: 'EUR' });
    expect(linked.payload.lines).toEqual([expect.objectContaining({ name: 'Bridal styling, 5 people', quantity: 1, price: 45000, priceStatus: 'business' })]);
    expect(linked.events).toEqual([expect.objectContaining({ type: 'order.create', version: 1, by: CUSTOMER })]);
    // The quote's access token opens the order it led to.
    const orderStatus = ok(await t.request('GET', `/v1/items/${linkedId}`, { headers: { 'x-access-token': q.token } }));
    expect(orderStatus.state).toBe('received');
    await ownerMoves(linkedId, 'accept', 'accepted');
  });

  it('a quote for a service creates a booking the owner can confirm', async () => {
    const q = await quoteRequest({ serviceId: 'bridal-styling' });
    await ownerMoves(q.id, 'quote', 'quoted', {
      input: { totalPrice: 30000, validThrough: IN_A_WEEK, creates: 'booking', startTime: '2026-12-05T09:00:00Z' },
    });
    const accepted = await customerMoves(q, () => customer(q, 'accept'), 'accept', 'accepted');
    const booking = await view(accepted.linkedItemId);
    expect(booking).toMatchObject({ type: 'booking', state: 'requested', linkedItemId: q.id });
    expect(booking.payload).toMatchObject({ serviceId: 'bridal-styling', price: 30000, priceStatus: 'business' });
    expect(Date.parse(booking.payload.endTime) - Date.parse(booking.payload.startTime)).toBe(180 * 60_000);
    await ownerMoves(booking.id, 'confirm', 'confirmed');
  });

  it('a booking quoted without a service cannot be sent: the quote names what is booked', async () => {
    const q = await quoteRequest();
    const problem = await refused(
      q.id,
      () => fire(q.id, 'quote', { input: { totalPrice: 30000, validThrough: IN_A_WEEK, creates: 'booking', startTime: '2026-12-05T09:00:00Z' } }),
      422,
      'invalid_input',
    );
    expect(problem.fields.map((f: any) => f.path)).toEqual(['input.creates']);
  });

  it('a quote sent without a date is valid for the default time', async () => {
    const q = await quoteRequest();
    const quoted = await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 9000 } });
    expect(quoted.payload.quote.validThrough).toBe(new Date(Date.parse(START) + 14 * DAY).toISOString());
  });

  it('invalid quote input answers 422 under input.', async () => {
    const q = await quoteRequest();
    const missing = await refused(q.id, () => fire(q.id, 'quote', { input: { validThrough: IN_A_WEEK } }), 422, 'invalid_input');
    expect(missing.fields).toEqual([expect.objectContaining({ path: 'input.totalPrice', problem: 'missing' })]);
    const noStart = await refused(q.id, () => fire(q.id, 'quote', { input: { totalPrice: 1, creates: 'booking' } }), 422, 'invalid_input');
    expect(noStart.fields.map((f: any) => f.path)).toEqual(['input.startTime']);
    const past = await refused(q.id, () => fire(q.id, 'quote', { input: { totalPrice: 1, validThrough: '2026-11-01T00:00:00Z' } }), 422, 'invalid_input');
    expect(past.fields.map((f: any) => f.path)).toEqual(['input.validThrough']);
    const kind = await refused(q.id, () => fire(q.id, 'quote', { input: { totalPrice: 1, creates: 'refund' } }), 422, 'invalid_input');
    expect(kind.fields.map((f: any) => f.path)).toEqual(['input.creates']);

    const forService = await quoteRequest({ serviceId: 'bridal-styling' });
    const asBooking = (times: Record<string, string>) => () => fire(forService.id, 'quote', { input: { totalPrice: 1, creates: 'booking', ...times } });
    const gone = await refused(forService.id, asBooking({ startTime: '2026-11-22T09:00:00Z' }), 422, 'invalid_input');
    expect(gone.fields.map((f: any) => f.path)).toEqual(['input.startTime']);
    const backwards = await refused(forService.id, asBooking({ startTime: '2026-12-05T09:00:00Z', endTime: '2026-12-05T08:00:00Z' }), 422, 'invalid_input');
    expect(backwards.fields.map((f: any) => f.path)).toEqual(['input.endTime']);
  });

  it('decline by the owner, and by the customer', async () => {
    const byOwner = await quoteRequest();
    await ownerMoves(byOwner.id, 'decline', 'declined', { reason: 'We do not travel that far' }, []);

    const byCustomer = await quoteRequest();
    await ownerMoves(byCustomer.id, 'quote', 'quoted', { input: { totalPrice: 60000, validThrough: IN_A_WEEK } });
    await customerMoves(byCustomer, () => customer(byCustomer, 'decline', { reason: 'Too dear' }), 'decline', 'declined', { next: [], reason: 'Too dear' });

    const viaCancel = await quoteRequest();
    await customerMoves(viaCancel, () => customer(viaCancel, 'cancel'), 'decline', 'declined', { next: [] });
  });

  it('accept is the customer\'s, and only while the quote is valid; expire is the system\'s and comes at the validity date', async () => {
    const q = await quoteRequest();
    await refused(q.id, () => customer(q, 'accept'), 409, 'wrong_state');
    const quoted = await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 20000, validThrough: '2026-11-25T10:00:00Z' } });
    await refused(q.id, () => fire(q.id, 'accept'), 403, 'not_allowed');
    await refused(q.id, () => fire(q.id, 'expire'), 403, 'not_allowed');

    t.clock.set('2026-11-25T09:59:00Z');
    await runJobs();
    expect((await view(q.id)).state).toBe('quoted');

    t.clock.set('2026-11-25T10:00:00Z');
    const late = await refused(q.id, () => customer(q, 'accept'), 409, 'guard_failed');
    expect(late.detail).toMatch(/no longer valid/);
    await runJobs();
    await expectMoved(q.id, quoted, 'expire', 'expired', SYSTEM, { channel: 'system', next: [] });
  });

  it('a quote sent again moves the expiry to the new date', async () => {
    const q = await quoteRequest();
    await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 20000, validThrough: '2026-11-25T10:00:00Z' } });
    const again = await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 18000, validThrough: '2026-11-27T10:00:00Z' } });
    t.clock.set('2026-11-26T00:00:00Z');
    await runJobs();
    expect((await view(q.id)).version).toBe(again.version);
    await customerMoves(q, () => customer(q, 'accept'), 'accept', 'accepted');
  });

  it('an old quote\'s validity date does not expire a request the business is still working on', async () => {
    const q = await quoteRequest();
    await ownerMoves(q.id, 'quote', 'quoted', { input: { totalPrice: 20000, validThrough: '2026-11-25T10:00:00Z' } });
    await ownerMoves(q.id, 'request_info', 'needs_info');
    const back = await customerMoves(q, () => customerSays(q, 'Add a trial session.'), 'provide_info', 'received');
    t.clock.set('2026-11-26T10:00:00Z');
    await runJobs();
    const after = await view(q.id);
    expect(after.state).toBe('received');
    expect(after.version).toBe(back.version);
  });
});

// ---- message -------------------------------------------------------------------------------------

describe('message', () => {
  it('answer by an owner reply, reopen by the customer\'s message, answer, close, reopen, mark_spam and unspam', async () => {
    const m = await conversation();
    let v = await view(m.id);
    expect(v.state).toBe('open');
    expect(nextEvents(v)).toEqual(['answer', 'close', 'mark_spam']);

    // An internal note changes nothing.
    ok(await t.owner('POST', `/v1/owner/items/${m.id}/replies`, { body: { message: 'Ask Joana', internal: true } }), 201);
    v = await view(m.id);
    expect([v.state, v.version]).toEqual(['open', 1]);

    // A reply to the customer answers an open conversation.
    const before = v;
    const replied = ok(await t.owner('POST', `/v1/owner/items/${m.id}/replies`, { body: { message: 'Yes, we do!' } }), 201);
    expect(replied.state).toBe('answered');
    v = await expectMoved(m.id, before, 'answer', 'answered', OWNER, { next: ['close', 'mark_spam', 'reopen'] });

    // A second reply to an answered conversation moves nothing.
    ok(await t.owner('POST', `/v1/owner/items/${m.id}/replies`, { body: { message: 'Any day but Monday.' } }), 201);
    expect((await view(m.id)).version).toBe(v.version);

    await customerMoves(m, () => customerSays(m, 'Great, and the price?'), 'reopen', 'open');
    await ownerMoves(m.id, 'answer', 'answered');
    await ownerMoves(m.id, 'close', 'closed', {}, ['mark_spam', 'reopen']);
    await customerMoves(m, () => customerSays(m, 'One more question.'), 'reopen', 'open');
    await ownerMoves(m.id, 'mark_spam', 'spam', {}, ['unspam']);

    // A customer's message on spam is kept but moves nothing.
    const spam = await view(m.id);
    ok(await customerSays(m, 'Hello??'));
    const still = await view(m.id);
    expect([still.state, still.version]).toEqual(['spam', spam.version]);
    expect(still.events.at(-1)).toMatchObject({ type: 'message.message', version: spam.version });

    await ownerMoves(m.id, 'unspam', 'open', {}, ['answer', 'close', 'mark_spam']);
    await refused(m.id, () => fire(m.id, 'reopen'), 409, 'wrong_state');
  });

  it('the customer closes the conversation with cancel_item; the owner reopens it', async () => {
    const m = await conversation();
    await customerMoves(m, () => customer(m, 'cancel'), 'close', 'closed');
    await ownerMoves(m.id, 'reopen', 'open');
    await refused(m.id, () => fire(m.id, 'reopen'), 409, 'wrong_state');
    await refused(m.id, () => fire(m.id, 'unspam'), 409, 'wrong_state');
    await refused(m.id, () => fire(m.id, 'provide_info'), 400, 'unknown_event');
  });
});

// ---- coverage ------------------------------------------------------------------------------------

describe('coverage', () => {
  it('walked every event of every machine above (run the whole file)', () => {
    const missing = ITEM_TYPES.flatMap((type) =>
      [...new Set(MACHINES[type].transitions.map((r) => `${type}.${r.event}`))].filter((name) => !seenEvents.has(name)),
    );
    expect(missing).toEqual([]);
    for (const type of ITEM_TYPES) expect(seenEvents.has(`${type}.create`), `${type}.create`).toBe(true);
  });
});
