/**
 * Webhooks end to end (inbox spec §4 webhook operations, §6): endpoints and their refusals,
 * signed deliveries checked with the `standardwebhooks` package, subscriptions, payload styles,
 * rotation, test events, and delivery at commit time for every kind of actor.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import { startWebhookInbox, type WebhookTestInbox } from './support/webhooks-inbox.js';
import { haircutAt } from './support/harness.js';
import { newId } from '@svc/shared';
import { recordEvent } from '../src/domain/events/record-event.js';
import type { ItemEventRecord } from '../src/domain/types.js';

/** An event row shaped like a stream entry, for writing one by hand. */
function eventRecordOf(entry: { type: string; data: { state: string; version: number } }, itemId: string): ItemEventRecord {
  return {
    id: '',
    itemId,
    seq: null,
    type: entry.type,
    event: entry.type.split('.')[1] ?? '',
    fromState: entry.data.state,
    toState: entry.data.state,
    version: entry.data.version,
    actor: { kind: 'system', id: null, name: 'test' },
    channel: 'system',
    sandbox: false,
    reason: null,
    data: null,
    createdAt: Date.now(),
  };
}

let t: WebhookTestInbox;
let receiver: Receiver;

beforeEach(async () => {
  t = await startWebhookInbox();
  receiver = await startReceiver();
});

afterEach(async () => {
  await t.close();
  await receiver.close();
});

async function createEndpoint(body: Record<string, unknown> = {}) {
  const res = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url, ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; [key: string]: unknown };
}

async function newConversation(message = 'Do you cut curly hair?', extra: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/messages', { body: { message, contact: { name: 'Ana Silva', email: 'ana@example.com' }, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; accessToken: string };
}

describe('webhook endpoints', () => {
  it('registers an endpoint: 201, Location, a whsec_ secret of 32 bytes shown once, header names only', async () => {
    const res = await t.owner('POST', '/v1/owner/webhooks', {
      body: { url: receiver.url, events: ['booking.*'], payload_style: 'full', headers: { 'X-Api-Token': 'tok-123' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/owner/webhooks/${res.body.id}`);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);
    expect(res.body).toMatchObject({ url: receiver.url, events: ['booking.*'], payload_style: 'full', headers: ['x-api-token'], active: true, disabled_at: null, last_error: null });

    const read = await t.owner('GET', res.headers.get('location') as string);
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain('tok-123');
    const list = await t.owner('GET', '/v1/owner/webhooks');
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([res.body.id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret.slice(6, 20));
  });

  it('defaults to every event, thin payloads and no extra headers', async () => {
    const made = await createEndpoint();
    expect(made).toMatchObject({ events: ['*'], payload_style: 'thin', headers: [] });
  });

  it('keeps the secret and header values sealed at rest, never in clear', async () => {
    const made = await createEndpoint({ headers: { 'x-api-token': 'very-secret-value' } });
    const stored = await t.inbox.store.webhooks.getEndpoint(made.id);
    const raw = JSON.stringify(stored);
    expect(raw).not.toContain(made.secret);
    expect(raw).not.toContain(made.secret.slice(6));
    expect(raw).not.toContain('very-secret-value');
    expect(stored?.sealedSecret).toMatch(/^v1\./);
  });

  it('answers a retry with the same idempotency key with the same endpoint and secret', async () => {
    const headers = { 'idempotency-key': 'hook-1' };
    const first = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url }, headers });
    const again = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.secret).toBe(first.body.secret);
    expect((await t.owner('GET', '/v1/owner/webhooks')).body.items).toHaveLength(1);
    // The stored answer that replays the secret is sealed too.
    const stored = await t.inbox.store.idempotency.find('owner|hook-1', t.clock.now());
    expect(stored).not.toBeNull();
    expect(JSON.stringify(stored)).not.toContain(first.body.secret.slice(6));
    const other = await t.owner('POST', '/v1/owner/webhooks', { body: { url: `${receiver.url}/other` }, headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_mismatch');
  });

  it('refuses urls that are not https on a public host name, with 422 invalid_input on url', async () => {
    const strict = await startWebhookInbox({ allowLocalWebhooks: false });
    try {
      for (const url of [
        'http://hooks.example.com/x',
        'ftp://hooks.example.com/x',
        'https://203.0.113.7/x',
        'https://8.8.8.8/x',
        'https://[2001:4860:4860::8888]/x',
        'https://localhost/x',
        'https://api.localhost/x',
        'https://printer.local/x',
        'https://db.internal/x',
        'https://intranet/x',
        'https://user:pw@hooks.example.com/x',
        'https://2130706433/x',
        'https://hooks.example.com/x#frag',
        'not a url',
        `https://${'a'.repeat(2_000)}.com/`,
      ]) {
        const res = await strict.owner('POST', '/v1/owner/webhooks', { body: { url } });
        expect(res.status, url).toBe(422);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe('invalid_input');
        expect(res.body.fields.map((f: { path: string }) => f.path)).toContain('url');
      }
      expect(await strict.inbox.store.webhooks.listEndpoints()).toHaveLength(0);
      const ok = await strict.owner('POST', '/v1/owner/webhooks', { body: { url: 'https://hooks.example.com/inbox?x=1' } });
      expect(ok.status).toBe(201);
    } finally {
      await strict.close();
    }
  });

  it('refuses http on 127.0.0.1 unless the development setting allows it', async () => {
    const strict = await startWebhookInbox({ allowLocalWebhooks: false });
    try {
      const res = await strict.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url } });
      expect(res.status).toBe(422);
    } finally {
      await strict.close();
    }
    // This inbox allows local webhooks, but an IP that is not loopback is still refused.
    expect((await t.owner('POST', '/v1/owner/webhooks', { body: { url: 'http://10.0.0.5/x' } })).status).toBe(422);
    expect((await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url } })).status).toBe(201);
  });

  it.each([
    [{ 'Content-Type': 'text/plain' }],
    [{ 'user-agent': 'me' }],
    [{ 'Webhook-Id': 'x' }],
    [{ 'svc-event-type': 'x' }],
    [{ host: 'evil.example.com' }],
    [{ 'transfer-encoding': 'chunked' }],
    [{ 'bad name': 'x' }],
    [{ 'x-ok': 'line\r\nInjected: yes' }],
    [{ a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' }],
  ])('refuses the extra headers %j', async (headers) => {
    const res = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url, headers } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.fields[0].path).toMatch(/^headers/);
    expect(await t.inbox.store.webhooks.listEndpoints()).toHaveLength(0);
  });

  it('refuses event patterns that are not a type, <item type>.* or *', async () => {
    for (const events of [['booking'], ['flights.*'], ['*.create'], ['Booking.Create'], ['booking.**']]) {
      const res = await t.owner('POST', '/v1/owner/webhooks', { body: { url: receiver.url, events } });
      expect(res.status, JSON.stringify(events)).toBe(422);
      expect(res.body.fields[0].path).toBe('events.0');
    }
  });

  it('merges headers on change: a value sets, null removes, at most five after the merge', async () => {
    const made = await createEndpoint({ headers: { 'x-one': '1', 'x-two': '2' } });
    const changed = await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { headers: { 'x-two': null, 'X-Three': '3' } } });
    expect(changed.status).toBe(200);
    expect(changed.body.headers).toEqual(['x-one', 'x-three']);
    const tooMany = await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { headers: { a: '1', b: '2', c: '3', d: '4' } } });
    expect(tooMany.status).toBe(422);
    expect((await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body.headers).toEqual(['x-one', 'x-three']);

    await t.owner('POST', '/v1/messages', { body: { message: 'hi' } });
    await t.request('POST', '/v1/messages', { body: { message: 'hi' } });
    await t.deliver();
    expect(receiver.received[0]?.headers['x-one']).toBe('1');
    expect(receiver.received[0]?.headers['x-three']).toBe('3');
    expect(receiver.received[0]?.headers['x-two']).toBeUndefined();
  });

  it('changes url, events and payload style, and refuses bad changes without touching the endpoint', async () => {
    const made = await createEndpoint();
    const bad = await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { url: 'https://127.0.0.2/x', events: ['nope'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.fields.map((f: { path: string }) => f.path).sort()).toEqual(['events.0', 'url']);
    const ok = await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { events: ['message.create'], payload_style: 'full' } });
    expect(ok.body).toMatchObject({ url: receiver.url, events: ['message.create'], payload_style: 'full' });
    expect((await t.owner('PATCH', '/v1/owner/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV', { body: { active: true } })).status).toBe(404);
  });

  it('deletes an endpoint with its deliveries; nothing more is sent to it', async () => {
    const made = await createEndpoint();
    await newConversation();
    await t.deliver();
    const deleted = await t.owner('DELETE', `/v1/owner/webhooks/${made.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: made.id, deleted: true });
    expect((await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).status).toBe(404);
    expect((await t.owner('DELETE', `/v1/owner/webhooks/${made.id}`)).status).toBe(404);
    expect((await t.owner('GET', '/v1/owner/deliveries')).body.items).toHaveLength(0);
    await newConversation();
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
  });

  it('needs an owner key', async () => {
    expect((await t.request('GET', '/v1/owner/webhooks')).status).toBe(401);
    expect((await t.request('POST', '/v1/owner/webhooks', { body: { url: receiver.url } })).status).toBe(401);
    expect((await t.request('GET', '/v1/owner/events')).status).toBe(401);
    expect(await t.inbox.store.webhooks.listEndpoints()).toHaveLength(0);
  });
});

describe('deliveries', () => {
  it('sends a thin event after the commit, signed so that standardwebhooks verifies it', async () => {
    const made = await createEndpoint({ headers: { 'x-api-token': 'tok-123' } });
    const item = await newConversation();
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    if (!delivery) throw new Error('no delivery');
    const events = (await t.owner('GET', '/v1/owner/events')).body.events;
    expect(events).toHaveLength(1);
    const event = events[0];

    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers.accept).toBe('application/json');
    expect(delivery.headers['user-agent']).toBeTruthy();
    expect(delivery.headers['webhook-id']).toBe(event.id);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(delivery.headers['svc-event-type']).toBe('message.create');
    expect(delivery.headers['svc-delivery-attempt']).toBe('1');
    expect(delivery.headers['x-api-token']).toBe('tok-123');
    expect(receiver.verify(delivery, made.secret)).toEqual(delivery.json);

    expect(delivery.json).toEqual({
      id: event.id,
      type: 'message.create',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        id: item.id,
        type: 'message',
        state: 'open',
        version: 1,
        url: `http://127.0.0.1/v1/owner/items/${item.id}`,
        actor: { kind: 'customer_agent', id: null, name: null },
        channel: 'rest',
        sandbox: false,
      },
    });
    expect(delivery.json).toEqual(event);

    const listed = await t.owner('GET', `/v1/owner/webhooks/${made.id}/deliveries`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ webhook_id: event.id, status: 'succeeded', attempts: 1, response_code: 204, last_error: null, event_type: 'message.create' });
  });

  it('a signature made with another secret, or over a changed body, does not verify', async () => {
    await createEndpoint();
    await newConversation();
    await t.deliver();
    const delivery = receiver.received[0];
    if (!delivery) throw new Error('no delivery');
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => receiver.verify(delivery, other)).toThrow();
    const made = (await t.owner('GET', '/v1/owner/webhooks')).body.items[0];
    expect(made).toBeTruthy();
    const stored = await t.inbox.store.webhooks.getEndpoint(made.id);
    const secret = t.inbox.secrets.open(stored?.sealedSecret ?? '', 'webhook.secret', made.id);
    expect(() => receiver.verify({ ...delivery, body: delivery.body.replace('message.create', 'message.close') }, secret)).toThrow();
    expect(() => receiver.verify(delivery, secret)).not.toThrow();
  });

  it('sends events of every actor and the sandbox, in commit order per item', async () => {
    await createEndpoint();
    const booking = await t.request('POST', '/v1/bookings', { body: { ...haircutAt('2026-12-01T10:00:00Z'), sandbox: true } });
    expect(booking.status).toBe(201);
    const confirmed = await t.owner('POST', `/v1/owner/items/${booking.body.id}/transitions`, { body: { event: 'confirm' } });
    expect(confirmed.status).toBe(200);
    await t.deliver();
    const types = receiver.received.map((d) => d.json.type);
    expect(types).toContain('booking.create');
    expect(types).toContain('booking.confirm');
    const confirm = receiver.received.find((d) => d.json.type === 'booking.confirm');
    expect(confirm?.json.data).toMatchObject({ state: 'confirmed', version: 2, sandbox: true, actor: { kind: 'owner' } });
    const create = receiver.received.find((d) => d.json.type === 'booking.create');
    expect(create?.json.data).toMatchObject({ state: 'requested', version: 1, sandbox: true, actor: { kind: 'customer_agent', id: null } });
  });

  it('sends on its own right after the commit once the dispatcher runs', async () => {
    await createEndpoint();
    await t.inbox.webhooks.start();
    await newConversation();
    const [delivery] = await receiver.waitFor(1, 5_000);
    expect(delivery?.json.type).toBe('message.create');
  });

  it('sends nothing and streams nothing for a transaction that rolls back', async () => {
    await createEndpoint();
    const item = await newConversation();
    await t.deliver();
    const events = (await t.owner('GET', '/v1/owner/events')).body.events;
    await expect(
      t.inbox.store.transaction(async (store) => {
        await recordEvent({ store, clock: t.clock }, { ...eventRecordOf(events[0], item.id), id: newId(t.clock.now()), seq: null, type: 'message.flags', event: 'flags' });
        throw new Error('the write failed after its event');
      }),
    ).rejects.toThrow('the write failed');
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    expect((await t.owner('GET', '/v1/owner/events')).body.events).toHaveLength(1);
    expect((await t.owner('GET', '/v1/owner/deliveries')).body.items).toHaveLength(1);
  });

  it('queues nothing for a write that is refused', async () => {
    await createEndpoint();
    const bad = await t.request('POST', '/v1/bookings', { body: haircutAt('not a time') });
    expect(bad.status).toBe(422);
    await t.deliver();
    expect(receiver.received).toHaveLength(0);
    expect((await t.owner('GET', '/v1/owner/deliveries')).body.items).toHaveLength(0);
  });

  it('follows subscriptions: exact types, <item type>.* and nothing for []', async () => {
    const bookings = await startReceiver('/bookings');
    const exact = await startReceiver('/exact');
    const none = await startReceiver('/none');
    try {
      await t.owner('POST', '/v1/owner/webhooks', { body: { url: bookings.url, events: ['booking.*'] } });
      await t.owner('POST', '/v1/owner/webhooks', { body: { url: exact.url, events: ['message.create'] } });
      await t.owner('POST', '/v1/owner/webhooks', { body: { url: none.url, events: [] } });
      const item = await newConversation();
      await t.request('POST', '/v1/bookings', { body: haircutAt('2026-12-01T10:00:00Z') });
      await t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.accessToken, message: 'Also: colour?' } });
      await t.deliver();
      expect(bookings.received.map((d) => d.json.type)).toEqual(['booking.create']);
      expect(exact.received.map((d) => d.json.type)).toEqual(['message.create']);
      expect(none.received).toHaveLength(0);
    } finally {
      await Promise.all([bookings.close(), exact.close(), none.close()]);
    }
  });

  it('sends full payloads with the item, transitions, a sentence, the party and the message', async () => {
    await createEndpoint({ payload_style: 'full' });
    const item = await newConversation('Do you cut curly hair?');
    await t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.accessToken, message: 'And on Sundays?' } });
    await t.deliver();
    const create = receiver.received.find((d) => d.json.type === 'message.create')?.json;
    expect(create.data).toMatchObject({
      id: item.id,
      type: 'message',
      state: 'open',
      version: 1,
      item: { id: item.id, type: 'message', state: 'open', version: 1, needsHuman: expect.any(Boolean), payload: expect.any(Object) },
      party: { name: 'Ana Silva', email: 'ana@example.com', phone: null },
      human: expect.stringContaining('Ana Silva'),
    });
    expect(create.data.transitions.map((m: { event: string }) => m.event)).toContain('answer');
    for (const move of create.data.transitions) expect(move.label).toEqual(expect.any(String));
    const message = receiver.received.find((d) => d.json.type === 'message.message')?.json;
    expect(message.data.message).toMatchObject({ text: 'And on Sundays?', from: 'customer' });
    expect(message.data.version).toBe(1);
  });

  it('sends nothing to a paused endpoint', async () => {
    const made = await createEndpoint();
    await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { active: false } });
    await newConversation();
    await t.deliver();
    expect(receiver.received).toHaveLength(0);
    const view = (await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body;
    expect(view.active).toBe(false);
    expect(view.disabled_at).not.toBeNull();
  });

  it('refuses at delivery time a name that resolves to a loopback address', async () => {
    const strict = await startWebhookInbox({ allowLocalWebhooks: false });
    try {
      const made = await strict.owner('POST', '/v1/owner/webhooks', { body: { url: 'https://hooks.example.com/x' } });
      expect(made.status).toBe(201);
      // As if the name's DNS record changed after registration to point inside.
      const stored = await strict.inbox.store.webhooks.getEndpoint(made.body.id);
      if (!stored) throw new Error('missing');
      await strict.inbox.store.webhooks.updateEndpoint({ ...stored, url: `https://localhost:${new URL(receiver.url).port}/hooks` });
      await strict.request('POST', '/v1/messages', { body: { message: 'hi' } });
      await strict.deliver();
      expect(receiver.received).toHaveLength(0);
      const delivery = (await strict.owner('GET', '/v1/owner/deliveries')).body.items[0];
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, response_code: null });
      expect(delivery.last_error).toMatch(/blocked_address/);
    } finally {
      await strict.close();
    }
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for 24 hours, then with the new one only', async () => {
    const made = await createEndpoint();
    const rotated = await t.owner('POST', `/v1/owner/webhooks/${made.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(rotated.body.previous_secret_expires_at).toBe(new Date(t.clock.now() + 86_400_000).toISOString());
    expect((await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body.secret).toBeUndefined();

    await newConversation();
    await t.deliver();
    const during = receiver.received[0];
    if (!during) throw new Error('no delivery');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(receiver.verify(during, rotated.body.secret)).toEqual(during.json);
    expect(receiver.verify(during, made.secret)).toEqual(during.json);

    t.clock.advance(86_400_000 + 1);
    await newConversation();
    await t.deliver();
    const after = receiver.received[1];
    if (!after) throw new Error('no delivery');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(receiver.verify(after, rotated.body.secret)).toEqual(after.json);
    expect(() => receiver.verify(after, made.secret)).toThrow();
  });

  it('answers 404 for an unknown endpoint', async () => {
    const res = await t.owner('POST', '/v1/owner/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/rotate-secret');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('test events', () => {
  it('sends a real signed inbox.test event with the extra headers and answers what the receiver said', async () => {
    const made = await createEndpoint({ headers: { 'x-api-token': 'tok' } });
    const res = await t.owner('POST', `/v1/owner/webhooks/${made.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', response_code: 204, event_type: 'inbox.test', attempts: 1, item_id: null });
    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0];
    if (!delivery) throw new Error('no delivery');
    expect(receiver.verify(delivery, made.secret)).toEqual(delivery.json);
    expect(delivery.headers['x-api-token']).toBe('tok');
    expect(delivery.headers['svc-event-type']).toBe('inbox.test');
    expect(delivery.headers['webhook-id']).toBe(res.body.webhook_id);
    expect(delivery.json).toMatchObject({ type: 'inbox.test', test: true, data: { test: true, human: expect.stringContaining('nothing was created') } });
    expect(await t.inbox.store.items.get(delivery.json.data.id)).toBeNull();
    // Nothing entered the stream.
    expect((await t.owner('GET', '/v1/owner/events')).body.events).toHaveLength(0);
  });

  it('reports a receiver failure and leaves the endpoint healthy', async () => {
    const made = await createEndpoint();
    receiver.answer = 503;
    const res = await t.owner('POST', `/v1/owner/webhooks/${made.id}/test`);
    expect(res.body).toMatchObject({ status: 'failed', response_code: 503 });
    expect(res.body.last_error).toContain('503');
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    expect((await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body).toMatchObject({ active: true, failing_since: null });
    expect((await t.owner('POST', '/v1/owner/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/test')).status).toBe(404);
  });
});
