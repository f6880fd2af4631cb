/**
 * Retries, deactivation, replays and pruning of webhook deliveries (inbox spec §3 "Webhook
 * endpoint states", §4 rule 5, §6 "Retries", §8), against a real receiver on 127.0.0.1, with the
 * clock moved by hand.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertItem } from '../src/domain/items/item-writer.js';
import { RETRY_DELAYS_MS } from '../src/domain/webhooks/delivery-records.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import { startWebhookInbox, type WebhookTestInbox } from './support/webhooks-inbox.js';

let t: WebhookTestInbox;
let receiver: Receiver;
const DAY_MS = 86_400_000;

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
  return res.body as { id: string; secret: string };
}

async function newConversation(message = 'Hello') {
  const res = await t.request('POST', '/v1/messages', { body: { message, contact: { name: 'Ana', email: 'ana@example.com' } } });
  expect(res.status).toBe(201);
  return res.body as { id: string; accessToken: string };
}

async function onlyDelivery() {
  const [delivery] = await t.inbox.store.webhooks.listDeliveries({}, { limit: 10 });
  if (!delivery) throw new Error('no delivery');
  return delivery;
}

describe('retries', () => {
  it('tries eight times on the schedule with a tenth of jitter, then marks the delivery failed and keeps it', async () => {
    const made = await createEndpoint();
    receiver.answer = 500;
    await newConversation();
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    for (let attempt = 2; attempt <= 8; attempt += 1) {
      const before = await onlyDelivery();
      const nominal = RETRY_DELAYS_MS[attempt - 1] as number;
      const delay = (before.nextAttemptAt as number) - (before.lastAttemptAt as number);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * 0.9));
      expect(delay).toBeLessThanOrEqual(Math.ceil(nominal * 1.1));
      // Not a moment early.
      t.clock.set(new Date((before.nextAttemptAt as number) - 1).toISOString());
      await t.deliver();
      expect(receiver.received).toHaveLength(attempt - 1);
      t.clock.advance(1);
      await t.deliver();
      expect(receiver.received).toHaveLength(attempt);
    }
    const final = await onlyDelivery();
    expect(final).toMatchObject({ status: 'failed', attempts: 8, nextAttemptAt: null, responseCode: 500 });
    t.clock.advance(2 * DAY_MS);
    await t.deliver();
    expect(receiver.received).toHaveLength(8);

    const ids = new Set(receiver.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(receiver.received.map((d) => d.headers['svc-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(new Set(receiver.received.map((d) => d.body)).size).toBe(1);
    for (const delivery of receiver.received) expect(receiver.verify(delivery, made.secret)).toEqual(delivery.json);
    const listed = (await t.owner('GET', '/v1/owner/deliveries?status=failed')).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: 'failed', attempts: 8, response_code: 500, next_attempt_at: null });
    expect(listed[0].last_error).toContain('500');
  });

  it('counts a redirect as a failure and never follows it', async () => {
    await createEndpoint();
    receiver.answer = 302;
    await newConversation();
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    const delivery = await onlyDelivery();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseCode: 302 });
    expect(delivery.lastError).toMatch(/redirect/);
  });

  it('succeeds on any 2xx after failures, under the same webhook-id', async () => {
    await createEndpoint();
    receiver.answer = 503;
    await newConversation();
    await t.deliver();
    receiver.answer = 202;
    t.clock.advance(6_000);
    await t.deliver();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.headers['webhook-id']).toBe(receiver.received[1]?.headers['webhook-id']);
    expect(await onlyDelivery()).toMatchObject({ status: 'succeeded', attempts: 2, responseCode: 202, lastError: null });
  });

  it('counts a 2xx as a success whatever its body, reading only the start of a long one', async () => {
    // A receiver that answers 200 with a megabyte of text (some frameworks echo the request or a page).
    const talkative = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(1024 * 1024));
      });
    });
    await new Promise<void>((resolve) => talkative.listen(0, '127.0.0.1', resolve));
    try {
      await createEndpoint();
      const stored = (await t.inbox.store.webhooks.listEndpoints())[0];
      if (!stored) throw new Error('missing');
      await t.inbox.store.webhooks.updateEndpoint({ ...stored, url: `http://127.0.0.1:${(talkative.address() as AddressInfo).port}/hooks` });
      await newConversation();
      await t.deliver();
      expect(await onlyDelivery()).toMatchObject({ status: 'succeeded', attempts: 1, responseCode: 200, lastError: null });
    } finally {
      talkative.closeAllConnections();
      await new Promise((resolve) => talkative.close(resolve));
    }
  });

  it('records a receiver that cannot be reached', async () => {
    await createEndpoint();
    const port = new URL(receiver.url).port;
    await receiver.close();
    receiver = await startReceiver();
    const stored = (await t.inbox.store.webhooks.listEndpoints())[0];
    if (!stored) throw new Error('missing');
    await t.inbox.store.webhooks.updateEndpoint({ ...stored, url: `http://127.0.0.1:${port}/gone` });
    await newConversation();
    await t.deliver();
    const delivery = await onlyDelivery();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseCode: null });
    expect(delivery.lastError).toMatch(/network/);
  });
});

describe('stopping the dispatcher', () => {
  it('claims and sends nothing after stop, even when a wake-up was already scheduled', async () => {
    await createEndpoint();
    await newConversation();
    // start() schedules a wake-up; stop() comes before it runs.
    await t.inbox.webhooks.start();
    await t.inbox.webhooks.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(0);
    expect(await onlyDelivery()).toMatchObject({ status: 'pending', attempts: 0 });
    // Started again, it sends each delivery once.
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    expect(await onlyDelivery()).toMatchObject({ status: 'succeeded', attempts: 1 });
  });
});

describe('a running dispatcher', () => {
  it('sends each delivery once while its receiver is slow, however often the dispatcher looks for due work', async () => {
    await createEndpoint();
    await createEndpoint();
    receiver.delayMs = 300;
    await t.inbox.webhooks.start();
    for (let n = 0; n < 5; n += 1) await newConversation(`Hello ${n}`);
    // Wake-ups and reads while the first sends are still waiting for their answers.
    for (let n = 0; n < 20; n += 1) {
      t.inbox.webhooks.wake();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await t.deliver();
    await t.inbox.webhooks.stop();
    expect(receiver.received).toHaveLength(10);
    // Two endpoints (on the same receiver), so each event's webhook-id arrives exactly twice.
    const perEvent = new Map<string, number>();
    for (const d of receiver.received) perEvent.set(String(d.headers['webhook-id']), (perEvent.get(String(d.headers['webhook-id'])) ?? 0) + 1);
    expect([...perEvent.values()]).toEqual([2, 2, 2, 2, 2]);
    const deliveries = await t.inbox.store.webhooks.listDeliveries({}, { limit: 100 });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual(Array.from({ length: 10 }, () => ['succeeded', 1]));
  });

  it('finds a delivery committed with an earlier time than the last one it took', async () => {
    await createEndpoint();
    await t.inbox.webhooks.start();
    await newConversation('Later');
    await t.deliver();
    // A transaction that began before the last delivery was queued commits after it was sent.
    const early = t.clock.now() - 60_000;
    await t.inbox.store.transaction((store) =>
      insertItem({ store, clock: { now: () => early } }, { actor: { kind: 'system', id: null, name: 'test' }, channel: 'system' }, { type: 'message', payload: { subject: 'Earlier' }, contact: null, sandbox: false, needsHuman: false, accessTokenHash: 'test' }),
    );
    await t.deliver();
    await t.inbox.webhooks.stop();
    expect(receiver.received).toHaveLength(2);
  });
});

describe('the ten-second timeout', () => {
  it('gives up on a receiver that never answers after ten seconds, and counts it a failure', { timeout: 30_000 }, async () => {
    // A receiver that takes the request and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await createEndpoint();
      const stored = (await t.inbox.store.webhooks.listEndpoints())[0];
      if (!stored) throw new Error('missing');
      await t.inbox.store.webhooks.updateEndpoint({ ...stored, url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks` });
      await newConversation();
      const started = performance.now();
      await t.deliver();
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(9_900);
      expect(waited).toBeLessThan(15_000);
      const delivery = await onlyDelivery();
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseCode: null });
      expect(delivery.lastError).toMatch(/timeout|timed out/i);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('deactivation', () => {
  it('deactivates an endpoint after five days of only failures, keeps it, and re-enables it on request', async () => {
    const made = await createEndpoint();
    receiver.answer = 500;
    const start = t.clock.now();
    for (let day = 0; day <= 5; day += 1) {
      await newConversation(`day ${day}`);
      await t.deliver();
      t.clock.advance(DAY_MS);
      await t.deliver();
      const view = (await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body;
      if (t.clock.now() - start < 5 * DAY_MS) expect(view.active, `day ${day}`).toBe(true);
    }
    const view = (await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body;
    expect(view.active).toBe(false);
    expect(view.disabled_at).not.toBeNull();
    expect(view.last_error).toContain('500');
    expect(view.failing_since).toBe(new Date(start).toISOString());

    // Kept, with its deliveries failed and kept for replay; new events are not queued for it.
    const pending = (await t.owner('GET', `/v1/owner/webhooks/${made.id}/deliveries?status=pending`)).body.items;
    expect(pending).toHaveLength(0);
    const failed = (await t.owner('GET', `/v1/owner/webhooks/${made.id}/deliveries?status=failed`)).body.items;
    // Days 0 to 4 had deliveries; the event of day 5 came after the endpoint became inactive.
    expect(failed.length).toBe(5);
    const seen = receiver.received.length;
    await newConversation('while inactive');
    t.clock.advance(DAY_MS);
    await t.deliver();
    expect(receiver.received).toHaveLength(seen);

    const refused = await t.owner('POST', `/v1/owner/deliveries/${failed[0].id}/replay`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('wrong_state');
    expect((await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: new Date(start).toISOString() } })).status).toBe(409);

    const enabled = await t.owner('PATCH', `/v1/owner/webhooks/${made.id}`, { body: { active: true } });
    expect(enabled.body).toMatchObject({ active: true, disabled_at: null, failing_since: null });
    receiver.answer = 204;
    const replay = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: new Date(start).toISOString() } });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ queued: 7, scanned: 7, truncated: false, next_after: null });
    await t.deliver();
    const delivered = new Set(receiver.received.filter((d) => d.headers['svc-delivery-attempt'] !== undefined).map((d) => d.headers['webhook-id']));
    const events = (await t.owner('GET', '/v1/owner/events')).body.events.map((e: { id: string }) => e.id);
    expect([...delivered].sort()).toEqual([...events].sort());
  });

  it('starts the five days again after any success', async () => {
    const made = await createEndpoint();
    const start = t.clock.now();
    // Everything sent on day 4 succeeds; everything else fails.
    receiver.answer = () => (t.clock.now() - start >= 4 * DAY_MS && t.clock.now() - start < 5 * DAY_MS ? 204 : 500);
    for (let day = 0; day < 8; day += 1) {
      await newConversation(`day ${day}`);
      await t.deliver();
      t.clock.advance(DAY_MS);
    }
    const view = (await t.owner('GET', `/v1/owner/webhooks/${made.id}`)).body;
    expect(view.active).toBe(true);
    expect(view.failing_since).toBe(new Date(start + 5 * DAY_MS).toISOString());
  });
});

describe('replays', () => {
  it('replays one delivery on its row: same webhook-id, a thin transition event byte for byte, fresh signature', async () => {
    const made = await createEndpoint();
    await newConversation();
    await t.deliver();
    const delivery = await onlyDelivery();
    const replay = await t.owner('POST', `/v1/owner/deliveries/${delivery.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: delivery.id, webhook_id: delivery.eventId, status: 'pending' });
    await t.deliver();
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.body).toBe(first?.body);
    expect(second?.headers['svc-delivery-attempt']).toBe('2');
    if (!second) throw new Error('missing');
    expect(receiver.verify(second, made.secret)).toEqual(second.json);
    expect((await t.inbox.store.webhooks.listDeliveries({}, { limit: 10 })).length).toBe(1);
    expect((await t.owner('POST', '/v1/owner/deliveries/01ARZ3NDEKTSV4RRFFQ69G5FAV/replay')).status).toBe(404);
  });

  it('a replayed delivery that fails again is failed after that one attempt', async () => {
    await createEndpoint();
    await newConversation();
    await t.deliver();
    receiver.answer = 500;
    const delivery = await onlyDelivery();
    await t.owner('POST', `/v1/owner/deliveries/${delivery.id}/replay`);
    await t.deliver();
    expect(await onlyDelivery()).toMatchObject({ status: 'failed', attempts: 2, responseCode: 500 });
  });

  it('rebuilds a full event and a thin <type>.message event from the item as it stands now', async () => {
    await createEndpoint({ payload_style: 'full' });
    const thinReceiver = await startReceiver('/thin');
    try {
      await t.owner('POST', '/v1/owner/webhooks', { body: { url: thinReceiver.url, events: ['message.message'] } });
      const item = await newConversation();
      await t.request('POST', '/v1/messages', { body: { item_id: item.id, access_token: item.accessToken, message: 'more' } });
      await t.deliver();
      const reply = await t.owner('POST', `/v1/owner/items/${item.id}/replies`, { body: { message: 'Yes we do.' } });
      expect(reply.status).toBe(201);
      const deliveries = await t.inbox.store.webhooks.listDeliveries({}, { limit: 10 });
      for (const d of deliveries.filter((d) => d.eventType === 'message.create' || d.eventType === 'message.message')) {
        await t.owner('POST', `/v1/owner/deliveries/${d.id}/replay`);
      }
      await t.deliver();
      const creates = receiver.received.filter((d) => d.json.type === 'message.create');
      expect(creates).toHaveLength(2);
      expect(creates[0]?.json.data.item.state).toBe('open');
      expect(creates[1]?.json.data.item.state).toBe('answered');
      expect(creates[1]?.json.data.state).toBe('open');
      expect(creates[1]?.json.id).toBe(creates[0]?.json.id);
      const thin = thinReceiver.received.filter((d) => d.json.type === 'message.message');
      expect(thin).toHaveLength(2);
      expect(thin[0]?.json.data).toMatchObject({ state: 'open', version: 1 });
      expect(thin[1]?.json.data).toMatchObject({ state: 'answered', version: 2 });
    } finally {
      await thinReceiver.close();
    }
  });

  it('replays missing events since an instant; asking again queues nothing new', async () => {
    const start = new Date(t.clock.now()).toISOString();
    await newConversation('one');
    await newConversation('two');
    const made = await createEndpoint({ events: ['message.*'] });
    await newConversation('three');
    await t.deliver();
    expect(receiver.received).toHaveLength(1);
    const first = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start } });
    expect(first.body).toMatchObject({ queued: 2, scanned: 3, truncated: false, next_after: null });
    const again = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start } });
    expect(again.body).toMatchObject({ queued: 0, scanned: 3 });
    await t.deliver();
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(3);
    const later = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: new Date(t.clock.now() + 1).toISOString() } });
    expect(later.body).toMatchObject({ queued: 0, scanned: 0 });
  });

  it('reads at most 500 events per call and goes on from next_after', async () => {
    const start = new Date(t.clock.now()).toISOString();
    await t.inbox.store.transaction(async (store) => {
      for (let n = 0; n < 503; n += 1) {
        await insertItem({ store, clock: t.clock }, { actor: { kind: 'system', id: null, name: 'test' }, channel: 'system' }, {
          type: 'message',
          payload: { subject: `n${n}` },
          contact: null,
          sandbox: false,
          needsHuman: false,
          accessTokenHash: 'x',
        });
      }
    });
    const made = await createEndpoint();
    const first = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start } });
    expect(first.body).toMatchObject({ queued: 500, scanned: 500, truncated: true });
    expect(first.body.next_after).toEqual(expect.any(String));
    const same = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start } });
    expect(same.body).toMatchObject({ queued: 0, scanned: 500, truncated: true });
    const rest = await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start, after: first.body.next_after } });
    expect(rest.body).toMatchObject({ queued: 3, scanned: 3, truncated: false, next_after: null });
    expect((await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: start, after: 'garbage' } })).status).toBe(422);
    expect((await t.owner('POST', `/v1/owner/webhooks/${made.id}/replay`, { body: { since: 'yesterday' } })).status).toBe(422);
    await t.deliver();
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(503);
  });
});

describe('delivery lists and retention', () => {
  it('lists deliveries newest first with keyset pages, per endpoint and across all', async () => {
    const a = await createEndpoint();
    const other = await startReceiver('/b');
    try {
      const b = await t.owner('POST', '/v1/owner/webhooks', { body: { url: other.url } });
      await newConversation('one');
      await newConversation('two');
      await t.deliver();
      const all = await t.owner('GET', '/v1/owner/deliveries?limit=3');
      expect(all.body.items).toHaveLength(3);
      expect(all.body.next_cursor).toEqual(expect.any(String));
      const rest = await t.owner('GET', `/v1/owner/deliveries?limit=3&cursor=${all.body.next_cursor}`);
      expect(rest.body.items).toHaveLength(1);
      expect(rest.body.next_cursor).toBeNull();
      const ids = [...all.body.items, ...rest.body.items].map((d: { id: string }) => d.id);
      expect(ids).toEqual([...ids].sort().reverse());
      const ofA = await t.owner('GET', `/v1/owner/webhooks/${a.id}/deliveries`);
      expect(ofA.body.items).toHaveLength(2);
      expect(ofA.body.items.every((d: { endpoint_id: string }) => d.endpoint_id === a.id)).toBe(true);
      expect((await t.owner('GET', `/v1/owner/webhooks/${b.body.id}/deliveries?limit=1`)).body.items).toHaveLength(1);
      expect((await t.owner('GET', '/v1/owner/deliveries?cursor=nonsense')).status).toBe(422);
      expect((await t.owner('GET', '/v1/owner/deliveries?limit=0')).status).toBe(422);
      expect((await t.owner('GET', '/v1/owner/deliveries?limit=101')).status).toBe(422);
      expect((await t.owner('GET', '/v1/owner/deliveries?status=lost')).status).toBe(422);
      expect((await t.owner('GET', '/v1/owner/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/deliveries')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('prunes deliveries after thirty days and keeps the events', async () => {
    await createEndpoint();
    await newConversation();
    await t.deliver();
    t.clock.advance(29 * DAY_MS);
    await t.inbox.jobs.runDue();
    expect(await t.inbox.store.webhooks.listDeliveries({}, { limit: 10 })).toHaveLength(1);
    t.clock.advance(2 * DAY_MS);
    await t.inbox.jobs.runDue();
    expect(await t.inbox.store.webhooks.listDeliveries({}, { limit: 10 })).toHaveLength(0);
    expect((await t.owner('GET', '/v1/owner/events')).body.events).toHaveLength(1);
  });
});
