/**
 * Idempotency of writes over real HTTP (inbox spec §9 Versioning, §8 Limits, §7 idempotency_mismatch):
 * header Idempotency-Key or body idempotency_key; the same key and request replays the stored
 * answer with 200 and Idempotent-Replayed: true; a different request is 422; owner and customer keys
 * are apart; keys are kept 30 days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAgentRequest } from '@svc/shared';
import { createOwnerKey } from '../src/domain/access/api-keys.js';
import { networkOf } from '../src/operations/idempotency-scope.js';
import { startInbox, type ApiResponse, type TestInbox } from './support/harness.js';
import { DAY, booking, createBooking, expectFieldProblem, expectProblem, ownerMove, status } from './support/customer-calls.js';
import { INBOX_ORIGIN, newAgent } from './support/agents.js';
import { requestFrom } from './support/from-address.js';

let t: TestInbox;
beforeAll(async () => {
  t = await startInbox();
});
afterAll(() => t.close());

let counter = 0;
/** A unique searchable contact name so the owner's list can count the items one test made. */
function uniqueName(): string {
  counter += 1;
  return `Idem${'abcdefghijklmnopqrstuvwxyz'[counter % 26]}${counter}x`;
}

async function countItems(q: string): Promise<number> {
  const r = await t.owner('GET', `/v1/owner/items?open_only=false&limit=100&q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return r.body.items.length;
}

function expectReplayOf(replay: ApiResponse, first: ApiResponse): void {
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(first.body);
}

describe('create calls with an idempotency key', () => {
  it('the Idempotency-Key header replays the first answer: same id, same accessToken, 200', async () => {
    const name = uniqueName();
    const body = booking('haircut', '2026-11-24T10:00:00Z', {}, name);
    const first = await t.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'hdr-key-1' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await t.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'hdr-key-1' } });
    expectReplayOf(replay, first);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.accessToken).toBe(first.body.accessToken);
    expect(replay.headers.get('location')).toBe(`/v1/items/${first.body.id}`);
    expect(replay.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await countItems(name)).toBe(1);
    // The replayed token is the real one.
    expect((await status(t, first.body.id, replay.body.accessToken)).id).toBe(first.body.id);
  });

  it('the body idempotency_key does the same, and a retry may switch between header and body', async () => {
    const name = uniqueName();
    const payload = { lines: [{ productId: 'wooden-comb', quantity: 2 }] };
    const first = await t.request('POST', '/v1/orders', { body: { payload, contact: { name }, idempotency_key: 'body-key-1' } });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/v1/orders', { body: { payload, contact: { name }, idempotency_key: 'body-key-1' } });
    expectReplayOf(again, first);
    const viaHeader = await t.request('POST', '/v1/orders', { body: { payload, contact: { name } }, headers: { 'idempotency-key': 'body-key-1' } });
    expectReplayOf(viaHeader, first);
    const both = await t.request('POST', '/v1/orders', {
      body: { payload, contact: { name }, idempotency_key: 'body-key-1' },
      headers: { 'idempotency-key': 'body-key-1' },
    });
    expectReplayOf(both, first);
    expect(await countItems(name)).toBe(1);
  });

  it('without a key every call creates an item', async () => {
    const name = uniqueName();
    const body = { message: 'Are you open on Sunday?', contact: { name } };
    const a = await t.request('POST', '/v1/messages', { body });
    const b = await t.request('POST', '/v1/messages', { body });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await countItems(name)).toBe(2);
  });

  it('the same key with a different request is 422 idempotency_mismatch and creates nothing', async () => {
    const name = uniqueName();
    const first = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T11:00:00Z', {}, name), headers: { 'idempotency-key': 'mm-1' } });
    expect(first.status).toBe(201);
    const other = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T11:15:00Z', {}, name), headers: { 'idempotency-key': 'mm-1' } });
    expectProblem(other, 422, 'idempotency_mismatch');
    expect(other.body.fields).toContainEqual(expect.objectContaining({ path: 'idempotency_key', problem: 'invalid' }));
    const extraMessage = await t.request('POST', '/v1/bookings', {
      body: { ...booking('haircut', '2026-11-24T11:00:00Z', {}, name), message: 'one more thing' },
      headers: { 'idempotency-key': 'mm-1' },
    });
    expectProblem(extraMessage, 422, 'idempotency_mismatch');
    expect(await countItems(name)).toBe(1);
    // The original request still replays.
    expectReplayOf(await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T11:00:00Z', {}, name), headers: { 'idempotency-key': 'mm-1' } }), first);
  });

  it('the same key on another operation is a different request (422), not a second item', async () => {
    const name = uniqueName();
    const first = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Perm' }, contact: { name } }, headers: { 'idempotency-key': 'cross-op' } });
    expect(first.status).toBe(201);
    const order = await t.request('POST', '/v1/orders', {
      body: { payload: { lines: [{ productId: 'wooden-comb', quantity: 1 }] }, contact: { name } },
      headers: { 'idempotency-key': 'cross-op' },
    });
    expectProblem(order, 422, 'idempotency_mismatch');
    expect(await countItems(name)).toBe(1);
  });

  it('a refused request stores nothing: the key stays free for the corrected request', async () => {
    const name = uniqueName();
    const bad = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-20T10:00:00Z', {}, name), headers: { 'idempotency-key': 'fix-me' } });
    expectFieldProblem(bad, 'payload.startTime');
    const good = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-24T14:00:00Z', {}, name), headers: { 'idempotency-key': 'fix-me' } });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays the stored answer even after the item moved on', async () => {
    const name = uniqueName();
    const body = booking('haircut', '2026-11-24T14:15:00Z', {}, name);
    const first = await t.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'stale-1' } });
    await ownerMove(t, first.body.id, 'confirm');
    const replay = await t.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'stale-1' } });
    expectReplayOf(replay, first);
    expect(replay.body).toMatchObject({ state: 'requested', version: 1 });
  });
});

describe('key length', () => {
  it('takes keys of 1 to 200 characters, in the header and in the body', async () => {
    const key200 = 'k'.repeat(200);
    const r = await t.request('POST', '/v1/messages', { body: { message: 'long key' }, headers: { 'idempotency-key': key200 } });
    expect(r.status).toBe(201);
    expectReplayOf(await t.request('POST', '/v1/messages', { body: { message: 'long key' }, headers: { 'idempotency-key': key200 } }), r);
    const b = await t.request('POST', '/v1/messages', { body: { message: 'long body key', idempotency_key: `b${'k'.repeat(199)}` } });
    expect(b.status).toBe(201);
    const one = await t.request('POST', '/v1/messages', { body: { message: 'short key', idempotency_key: '1' } });
    expect(one.status).toBe(201);
  });

  it('refuses longer keys with 422 naming the field', async () => {
    const key201 = 'k'.repeat(201);
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: 'x' }, headers: { 'idempotency-key': key201 } }), 'Idempotency-Key');
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: 'x', idempotency_key: key201 } }), 'idempotency_key');
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: 'x', idempotency_key: '' } }), 'idempotency_key');
    expectFieldProblem(await t.request('POST', '/v1/messages', { body: { message: 'x' }, headers: { 'idempotency-key': '' } }), 'Idempotency-Key');
    expectFieldProblem(await t.owner('POST', '/v1/owner/items/01JZZZZZZZZZZZZZZZZZZZZZZZ/transitions', { body: { event: 'confirm' }, headers: { 'idempotency-key': key201 } }), 'Idempotency-Key');
  });

  it('refuses a header and a body key that differ', async () => {
    const r = await t.request('POST', '/v1/messages', { body: { message: 'x', idempotency_key: 'one' }, headers: { 'idempotency-key': 'two' } });
    expectFieldProblem(r, 'idempotency_key');
  });
});

describe('changes with an idempotency key', () => {
  it('a cancel replays its answer; without the key a second cancel is wrong_state', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-25T10:00:00Z');
    const headers = { 'x-access-token': b.accessToken, 'idempotency-key': 'cancel-1' };
    const first = await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { reason: 'ill' }, headers });
    expect(first.status).toBe(200);
    expect(first.body.state).toBe('cancelled');
    expectReplayOf(await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { reason: 'ill' }, headers }), first);
    expectProblem(await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { reason: 'ill' }, headers: { 'x-access-token': b.accessToken } }), 409, 'wrong_state');
  });

  it('a replay never hands an item to a caller without its token', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-25T10:15:00Z');
    const first = await t.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken, 'idempotency-key': 'cancel-secret' } });
    expect(first.status).toBe(200);
    const attempts: Record<string, string>[] = [{ 'idempotency-key': 'cancel-secret' }, { 'idempotency-key': 'cancel-secret', 'x-access-token': 'guessed-token' }];
    for (const headers of attempts) {
      const r = await t.request('POST', `/v1/items/${b.id}/cancel`, { headers });
      expect(r.status).not.toBe(200);
      expect([401, 422]).toContain(r.status);
      expect(r.body).not.toHaveProperty('state');
      expect(r.body).not.toHaveProperty('payload');
    }
    // The token holder still gets the replay, whether the token travels in the header or the body.
    expectReplayOf(await t.request('POST', `/v1/items/${b.id}/cancel`, { headers: { 'x-access-token': b.accessToken, 'idempotency-key': 'cancel-secret' } }), first);
    expectReplayOf(await t.request('POST', `/v1/items/${b.id}/cancel`, { body: { access_token: b.accessToken }, headers: { 'idempotency-key': 'cancel-secret' } }), first);
  });

  it('a reply on an item replays without writing the message twice', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-25T11:00:00Z');
    const body = { item_id: b.id, message: 'Can I bring my dog?' };
    const headers = { 'x-access-token': b.accessToken, 'idempotency-key': 'reply-1' };
    const first = await t.request('POST', '/v1/messages', { body, headers });
    expect(first.status).toBe(200);
    const replay = await t.request('POST', '/v1/messages', { body, headers });
    expectReplayOf(replay, first);
    expect((await status(t, b.id, b.accessToken)).conversation).toHaveLength(1);
  });
});

describe('scopes', () => {
  it('owner keys and customer keys are apart', async () => {
    const name = uniqueName();
    const b = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T14:00:00Z', {}, name), headers: { 'idempotency-key': 'shared-key' } });
    expect(b.status).toBe(201);
    const confirm = await t.owner('POST', `/v1/owner/items/${b.body.id}/transitions`, { body: { event: 'confirm' }, headers: { 'idempotency-key': 'shared-key' } });
    expect(confirm.status).toBe(200);
    expect(confirm.headers.get('idempotent-replayed')).toBeNull();
    expect(confirm.body.state).toBe('confirmed');
    const ownerReplay = await t.owner('POST', `/v1/owner/items/${b.body.id}/transitions`, { body: { event: 'confirm' }, headers: { 'idempotency-key': 'shared-key' } });
    expectReplayOf(ownerReplay, confirm);
    const customerReplay = await t.request('POST', '/v1/bookings', { body: booking('haircut', '2026-11-25T14:00:00Z', {}, name), headers: { 'idempotency-key': 'shared-key' } });
    expectReplayOf(customerReplay, b);
    // A different owner move under the owner's key is a mismatch there, not in the customer's scope.
    const mismatch = await t.owner('POST', `/v1/owner/items/${b.body.id}/transitions`, { body: { event: 'no_show' }, headers: { 'idempotency-key': 'shared-key' } });
    expectProblem(mismatch, 422, 'idempotency_mismatch');
  });

  it('owner keys are the business\'s: another owner key replays the same answer', async () => {
    const b = await createBooking(t, 'haircut', '2026-11-25T15:00:00Z');
    const first = await t.owner('POST', `/v1/owner/items/${b.id}/transitions`, { body: { event: 'request_info' }, headers: { 'idempotency-key': 'owner-k' } });
    expect(first.status).toBe(200);
    const second = (await createOwnerKey(t.inbox.store, 'second owner key', t.clock.now())).value;
    const replay = await t.request('POST', `/v1/owner/items/${b.id}/transitions`, {
      body: { event: 'request_info' },
      headers: { authorization: `Bearer ${second}`, 'idempotency-key': 'owner-k' },
    });
    expectReplayOf(replay, first);
  });
});

describe("a customer's keys are scoped to the customer and the door (inbox spec §9)", () => {
  const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  async function mcpCreate(args: Record<string, unknown>, from = '127.0.0.1'): Promise<{ isError?: boolean; structuredContent: any }> {
    const r = await requestFrom(t, from, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_booking', arguments: args } }, headers: MCP_HEADERS });
    expect(r.status).toBe(200);
    return r.body.result;
  }

  it('the same key and request by MCP and then by REST are two requests: REST never shows the MCP item or its token', async () => {
    const name = uniqueName();
    const body = booking('haircut', '2026-11-26T10:00:00Z', {}, name);
    const viaMcp = await mcpCreate({ ...body, idempotency_key: 'k1-doors' });
    expect(viaMcp.isError).toBeFalsy();
    const viaRest = await t.request('POST', '/v1/bookings', { body: { ...body, idempotency_key: 'k1-doors' } });
    expect(viaRest.status).toBe(201);
    expect(viaRest.headers.get('idempotent-replayed')).toBeNull();
    expect(viaRest.body.id).not.toBe(viaMcp.structuredContent.id);
    expect(viaRest.body.accessToken).not.toBe(viaMcp.structuredContent.accessToken);
    // Each door replays its own answer to its own retry.
    expectReplayOf(await t.request('POST', '/v1/bookings', { body: { ...body, idempotency_key: 'k1-doors' } }), viaRest);
    const mcpAgain = await mcpCreate({ ...body, idempotency_key: 'k1-doors' });
    expect(mcpAgain.structuredContent).toEqual(viaMcp.structuredContent);
    expect(await countItems(name)).toBe(2);
  });

  it('two strangers sending the same key and body get an item each; neither ever sees the other one\'s token', async () => {
    const name = uniqueName();
    const body = { message: 'Hi', contact: { name }, idempotency_key: 'common-key' };
    const first = await requestFrom(t, '127.0.0.1', 'POST', '/v1/messages', { body });
    const stranger = await requestFrom(t, '127.0.0.2', 'POST', '/v1/messages', { body });
    expect([first.status, stranger.status]).toEqual([201, 201]);
    expect(stranger.headers.get('idempotent-replayed')).toBeNull();
    expect(stranger.body.id).not.toBe(first.body.id);
    expect(stranger.body.accessToken).not.toBe(first.body.accessToken);
    expect(JSON.stringify(stranger.body)).not.toContain(first.body.accessToken);
    // The one who lost its answer retries from where it is and gets its own token back.
    const retry = await requestFrom(t, '127.0.0.1', 'POST', '/v1/messages', { body });
    expectReplayOf(retry, first);
    const strangerRetry = await requestFrom(t, '127.0.0.2', 'POST', '/v1/messages', { body });
    expectReplayOf(strangerRetry, stranger);
    // On MCP likewise.
    const mcpBody = { ...booking('haircut', '2026-11-26T11:00:00Z', {}, name), idempotency_key: 'common-key' };
    const mcpFirst = await mcpCreate(mcpBody, '127.0.0.1');
    const mcpStranger = await mcpCreate(mcpBody, '127.0.0.3');
    expect(mcpStranger.structuredContent.id).not.toBe(mcpFirst.structuredContent.id);
    expect(mcpStranger.structuredContent.accessToken).not.toBe(mcpFirst.structuredContent.accessToken);
    expect(await countItems(name)).toBe(4);
  });

  it('a signed agent is its key wherever it calls from; another key with the same idempotency key is another customer', async () => {
    const name = uniqueName();
    const body = JSON.stringify({ ...booking('haircut', '2026-11-26T12:00:00Z', {}, name), idempotency_key: 'agent-key-1' });
    const send = (agent: ReturnType<typeof newAgent>, from: string) => {
      const signed = signAgentRequest({ method: 'POST', url: `${INBOX_ORIGIN}/v1/bookings`, body, privateJwk: agent.privateJwk, now: () => t.clock.now() });
      return requestFrom(t, from, 'POST', '/v1/bookings', { body: JSON.parse(body), headers: { ...signed } });
    };
    const agent = newAgent();
    const first = await send(agent, '127.0.0.1');
    expect(first.status).toBe(201);
    expect(first.headers.get('svc-signature')).toMatch(/^verified/);
    // Its retry, signed anew, from another address: the same customer.
    expectReplayOf(await send(agent, '127.0.0.4'), first);
    // Another agent, from the very same address: its own item.
    const other = await send(newAgent(), '127.0.0.1');
    expect(other.status).toBe(201);
    expect(other.body.accessToken).not.toBe(first.body.accessToken);
    // Unsigned from the same address: not the agent either.
    const unsigned = await requestFrom(t, '127.0.0.1', 'POST', '/v1/bookings', { body: JSON.parse(body) });
    expect(unsigned.status).toBe(201);
    expect(unsigned.body.id).not.toBe(first.body.id);
  });

  it('the holder of a pass is one customer wherever it calls from; pass references and other passes are not it', async () => {
    const name = uniqueName();
    const pass = 'svcpass1_network.example_abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567';
    const otherPass = 'svcpass1_network.example_abcdefghijklmnop_bbcdefghijklmnopqrstuvwxyz234567';
    const body = { ...booking('haircut', '2026-11-26T14:00:00Z', {}, name), idempotency_key: 'pass-key-1' };
    const first = await requestFrom(t, '127.0.0.1', 'POST', '/v1/bookings', { body, headers: { 'svc-pass': `"${pass}"` } });
    expect(first.status).toBe(201);
    expectReplayOf(await requestFrom(t, '127.0.0.5', 'POST', '/v1/bookings', { body, headers: { 'svc-pass': `"${pass}"` } }), first);
    const other = await requestFrom(t, '127.0.0.1', 'POST', '/v1/bookings', { body, headers: { 'svc-pass': `"${otherPass}"` } });
    expect(other.status).toBe(201);
    const reference = await requestFrom(t, '127.0.0.5', 'POST', '/v1/bookings', { body, headers: { 'svc-pass': '"svcpass1_network.example_abcdefghijklmnop"' } });
    expect(reference.status).toBe(201);
    expect(new Set([first.body.id, other.body.id, reference.body.id]).size).toBe(3);
  });

  it('an IPv6 client is its /64; an IPv4 client its address', () => {
    expect(networkOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(networkOf('2001:0db8:0001:0002::1'));
    expect(networkOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8:1:3::1')).not.toBe(networkOf('2001:db8:1:2::1'));
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(networkOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(networkOf('192.0.2.1')).toBe('192.0.2.1');
    expect(networkOf('192.0.2.2')).not.toBe(networkOf('192.0.2.1'));
    expect(networkOf(undefined)).toBe('unknown');
  });
});

describe('keys are kept 30 days', () => {
  let c: TestInbox;
  beforeAll(async () => {
    c = await startInbox();
  });
  afterAll(() => c.close());

  it('replays within 30 days and is free again after them', async () => {
    const body = booking('haircut', '2027-02-02T10:00:00Z');
    const first = await c.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'month-key' } });
    expect(first.status).toBe(201);
    const other = await c.request('POST', '/v1/bookings', { body: booking('haircut', '2027-02-03T10:00:00Z'), headers: { 'idempotency-key': 'month-key-2' } });
    expect(other.status).toBe(201);

    c.clock.advance(29 * DAY);
    const replay = await c.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'month-key' } });
    expectReplayOf(replay, first);
    expectProblem(
      await c.request('POST', '/v1/bookings', { body: booking('haircut', '2027-02-04T10:00:00Z'), headers: { 'idempotency-key': 'month-key-2' } }),
      422,
      'idempotency_mismatch',
    );

    c.clock.advance(2 * DAY); // 31 days after the first use
    const fresh = await c.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'month-key' } });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(fresh.body.accessToken).not.toBe(first.body.accessToken);
    const reused = await c.request('POST', '/v1/bookings', { body: booking('haircut', '2027-02-04T10:00:00Z'), headers: { 'idempotency-key': 'month-key-2' } });
    expect(reused.status).toBe(201);
    // And the renewed key holds for another 30 days.
    expectReplayOf(await c.request('POST', '/v1/bookings', { body, headers: { 'idempotency-key': 'month-key' } }), fresh);
  });
});
