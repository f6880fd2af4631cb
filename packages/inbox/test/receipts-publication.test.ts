/**
 * Receipt publication (docs/receipts.md "Publication"): every receipt goes to every network enabled
 * when it was issued, one signed POST /v1/receipts each, in the order issued, and again with its
 * acknowledgement once the customer's agent counter-signed it. A fake network on 127.0.0.1 checks
 * each request with the shared svc-instance/1 verifier and with http-message-signatures, and the
 * receipts and acknowledgements as a network would. A network that is down delays publication and
 * never loses a receipt, across restarts; a network that holds receipts gets them once it verified
 * this inbox; a refusal is kept with its reason; get_networks shows all of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBooking, ownerMove, setSettings } from './support/customer-calls.js';
import { FakeNetwork } from './support/fake-network.js';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';
import { Agent, type ReceiptLike } from './support/receipts.js';
import { newAgent, signedRequest } from './support/agents.js';

const HOUR = 3_600_000;
const TUESDAY = (hour: number) => `2026-11-24T${String(hour).padStart(2, '0')}:00:00Z`;

let t: TestInbox;
let clock: TestClock;
let network: FakeNetwork;
let origin: string;
let inboxAddress: string;

async function start(dataDir?: string, ownerKey?: string): Promise<void> {
  t = await startInbox({ clock, allowLocalNetworks: true, ...(dataDir ? { dataDir, seed: false } : {}), ...(ownerKey ? { ownerKey } : {}) });
  inboxAddress = t.baseUrl;
}

beforeEach(async () => {
  clock = new TestClock();
  await start();
  network = new FakeNetwork(() => inboxAddress, () => clock.now());
  origin = await network.start();
  // A network that verified this inbox at registration.
  network.status = { status: 'verified', verified_at: '2026-11-23T10:00:00Z', listed: true };
});
afterEach(async () => {
  await t.close();
  await network.close();
});

const entryOf = async (which = origin) => {
  const r = await t.owner('GET', '/v1/owner/networks');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.networks.find((n: any) => n.origin === which);
};
const receiptCalls = (n: FakeNetwork = network) => n.calls.filter((c) => c.path === '/v1/receipts');
/** Runs the jobs due now until none is left (a publish job may ask for itself again at once). */
async function drain(): Promise<void> {
  while ((await t.inbox.jobs.runDue()) > 0);
}
async function enableNetwork(settings: Record<string, unknown> = { [origin]: { enabled: true } }): Promise<void> {
  await setSettings(t, { networks: settings });
  await drain();
}
async function confirmedBooking(hour: number, extra: Record<string, unknown> = {}) {
  const booking = await createBooking(t, 'haircut', TUESDAY(hour), extra);
  const confirmed = await ownerMove(t, booking.id, 'confirm');
  return { id: booking.id, accessToken: booking.accessToken, receipt: confirmed.receipts[0] as ReceiptLike };
}

describe('receipt publication', () => {
  it('sends each receipt signed, in the order issued, and again with its acknowledgement', async () => {
    await enableNetwork();
    const booking = await confirmedBooking(14);
    const order = await t.request('POST', '/v1/orders', { body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 1 }] }, contact: { name: 'Bea', email: 'bea@example.com' } } });
    await ownerMove(t, order.body.id, 'accept');
    const paid = await ownerMove(t, order.body.id, 'record_payment');
    expect(await entryOf()).toMatchObject({ receipts: { waiting: 3, published: 0 } });

    await drain();
    const calls = receiptCalls();
    expect(calls.map((c) => c.body.receipt)).toEqual([booking.receipt.jws, ...paid.receipts.map((r: ReceiptLike) => r.jws)]);
    for (const call of calls) {
      expect(call.shared).toMatchObject({ ok: true, instance: 'http://127.0.0.1' });
      expect(call.library).toBe(true);
      expect(call.body.ack).toBeUndefined();
    }
    expect(network.receipts.get(booking.receipt.receipt_id)).toMatchObject({ ack: null, claims: { itm: booking.id, knd: 'confirmed' } });
    let entry = await entryOf();
    expect(entry.receipts).toMatchObject({ published: 3, waiting: 0, held: 0, refused: 0, acknowledgements_sent: 0, last_published_at: new Date(clock.now()).toISOString(), next_attempt_at: null });
    expect(entry.last_error).toBeNull();

    // The agent counter-signs: the receipt goes again, with its acknowledgement; the network upgrades it.
    const agent = new Agent();
    const ack = await agent.acknowledge(booking.receipt, Math.floor(clock.now() / 1000));
    const acked = await t.request('POST', `/v1/items/${booking.id}/receipt-ack`, { body: { ack }, headers: { 'x-access-token': booking.accessToken } });
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    expect((await entryOf()).receipts).toMatchObject({ published: 3, waiting: 1 });
    await drain();
    expect(receiptCalls().slice(3).map((c) => c.body)).toEqual([{ receipt: booking.receipt.jws, ack }]);
    expect(network.receipts.get(booking.receipt.receipt_id)?.ack).toBe(ack);
    entry = await entryOf();
    expect(entry.receipts).toMatchObject({ published: 3, waiting: 0, acknowledgements_sent: 1 });

    // The same acknowledgement again sends nothing more.
    await t.request('POST', `/v1/items/${booking.id}/receipt-ack`, { body: { ack }, headers: { 'x-access-token': booking.accessToken } });
    await drain();
    expect(receiptCalls()).toHaveLength(4);

    // The next ping brings what the network says it holds.
    clock.advance(HOUR + 10 * 60_000);
    await drain();
    expect((await entryOf()).receipts.network_says).toEqual({ accepted: 3, acknowledged: 1, at: new Date(clock.now()).toISOString() });
  });

  it('an acknowledgement that comes before the receipt went out goes with it, in one request', async () => {
    await enableNetwork();
    network.receiptMode = 'fail';
    const booking = await confirmedBooking(14);
    await drain();
    const ack = await new Agent().acknowledge(booking.receipt, Math.floor(clock.now() / 1000));
    expect((await t.request('POST', `/v1/items/${booking.id}/receipt-ack`, { body: { ack }, headers: { 'x-access-token': booking.accessToken } })).status).toBe(200);
    network.receiptMode = 'accept';
    clock.advance(2 * 60_000);
    await drain();
    const taken = receiptCalls().filter((c) => c.body.ack !== undefined);
    expect(taken.map((c) => c.body)).toEqual([{ receipt: booking.receipt.jws, ack }]);
    expect((await entryOf()).receipts).toMatchObject({ published: 1, waiting: 0, acknowledgements_sent: 1 });
  });

  it('an acknowledgement by a signed request is kept here, not sent: networks take a JWS only, so the receipt goes alone, once', async () => {
    await enableNetwork();
    const booking = await confirmedBooking(14);
    await drain();
    expect(receiptCalls()).toHaveLength(1);
    const agent = newAgent();
    const signed = await signedRequest(t, agent, 'POST', `/v1/items/${booking.id}/receipt-ack`, {
      body: { receipt_id: booking.receipt.receipt_id },
      headers: { 'x-access-token': booking.accessToken },
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body.receipt.acknowledgement.form).toBe('signed_request');
    clock.advance(2 * 60_000);
    await drain();
    expect(receiptCalls().map((c) => c.body)).toEqual([{ receipt: booking.receipt.jws }]);
    expect((await entryOf()).receipts).toMatchObject({ published: 1, waiting: 0, acknowledgements_sent: 0 });
  });

  it('sandbox receipts are never sent', async () => {
    await enableNetwork();
    const real = await confirmedBooking(14);
    const test = await t.request('POST', '/v1/bookings', { body: { payload: { serviceId: 'haircut', startTime: TUESDAY(16) }, contact: { name: 'Test' }, sandbox: true } });
    const confirmed = await ownerMove(t, test.body.id, 'confirm');
    expect(confirmed.receipts[0].claims.sbx).toBe(1);
    const ack = await new Agent().acknowledge(confirmed.receipts[0], Math.floor(clock.now() / 1000));
    expect((await t.request('POST', `/v1/items/${test.body.id}/receipt-ack`, { body: { ack }, headers: { 'x-access-token': test.body.accessToken } })).status).toBe(200);
    await drain();
    expect(receiptCalls().map((c) => c.body.receipt)).toEqual([real.receipt.jws]);
    expect((await entryOf()).receipts).toMatchObject({ published: 1, waiting: 0, acknowledgements_sent: 0 });
  });

  it('goes only to networks enabled when the receipt was issued; one turned off keeps them waiting until it is on again', async () => {
    const other = new FakeNetwork(() => inboxAddress, () => clock.now());
    other.status = network.status;
    const otherOrigin = await other.start();
    try {
      await enableNetwork({ [origin]: { enabled: true }, [otherOrigin]: { enabled: false } });
      const first = await confirmedBooking(14);
      await drain();
      expect(receiptCalls().map((c) => c.body.receipt)).toEqual([first.receipt.jws]);
      expect(receiptCalls(other)).toEqual([]);
      expect((await entryOf(otherOrigin)).receipts).toMatchObject({ published: 0, waiting: 0 });

      // Turned off while a receipt waits for it: nothing goes, nothing is lost.
      await setSettings(t, { networks: { [origin]: { enabled: false }, [otherOrigin]: { enabled: true } } });
      network.receiptMode = 'fail';
      const second = await confirmedBooking(16);
      await drain();
      expect((await entryOf()).receipts).toMatchObject({ published: 1, waiting: 0 });
      await setSettings(t, { networks: { [origin]: { enabled: true } } });
      network.receiptMode = 'accept';
      await drain();
      expect(receiptCalls(other).map((c) => c.body.receipt)).toEqual([second.receipt.jws]);
      expect(receiptCalls().map((c) => c.body.receipt)).toEqual([first.receipt.jws]);

      const third = await confirmedBooking(17);
      await setSettings(t, { networks: { [otherOrigin]: { enabled: false } } });
      await drain();
      expect(receiptCalls().map((c) => c.body.receipt)).toEqual([first.receipt.jws, third.receipt.jws]);
      expect((await entryOf(otherOrigin)).receipts).toMatchObject({ published: 1, waiting: 1 });
      await setSettings(t, { networks: { [otherOrigin]: { enabled: true } } });
      await drain();
      expect(receiptCalls(other).map((c) => c.body.receipt)).toEqual([second.receipt.jws, third.receipt.jws]);
    } finally {
      await other.close();
    }
  });

  it('a network that is down delays publication, never loses it, is not called again before its wait, and gets it all once it answers', async () => {
    await enableNetwork();
    const port = Number(new URL(origin).port);
    await network.close();
    const receipts = [await confirmedBooking(14)];
    await drain();
    let entry = await entryOf();
    expect(entry.receipts).toMatchObject({ waiting: 1, published: 0 });
    expect(entry.last_error.message).toMatch(/^publication: network: /);
    const firstRetry = Date.parse(entry.receipts.next_attempt_at);
    expect(firstRetry - clock.now()).toBeGreaterThanOrEqual(30_000);
    expect(firstRetry - clock.now()).toBeLessThanOrEqual(33_000);

    // Receipts issued during the outage wait with the first; none of them calls the network early.
    receipts.push(await confirmedBooking(16));
    expect(Date.parse((await entryOf()).receipts.next_attempt_at)).toBe(firstRetry);
    const jobs = await t.inbox.store.jobs.list('network.publish_receipts');
    expect(jobs.map((j) => [j.status, j.runAt])).toEqual([['pending', firstRetry]]);

    // Down for two days: the waits grow to six hours, and the job is never given up.
    const waits: number[] = [];
    while (clock.now() < Date.parse('2026-11-25T10:00:00Z')) {
      const next = Date.parse((await entryOf()).receipts.next_attempt_at);
      waits.push(next - clock.now());
      clock.set(new Date(next).toISOString());
      await drain();
    }
    expect(Math.max(...waits)).toBeGreaterThanOrEqual(6 * HOUR);
    expect(Math.max(...waits)).toBeLessThanOrEqual(6.6 * HOUR);
    expect((await t.inbox.store.jobs.list('network.publish_receipts')).map((j) => j.status)).toEqual(['pending']);
    entry = await entryOf();
    expect(entry.receipts).toMatchObject({ waiting: 2, published: 0, refused: 0 });

    // Back: the next ping goes through (at most about an hour later), and everything goes with it,
    // in order, hours before the publication's own wait would have ended.
    network = new FakeNetwork(() => inboxAddress, () => clock.now());
    network.status = { status: 'verified' };
    await network.listenOn(port);
    const publicationWait = Date.parse(entry.receipts.next_attempt_at);
    clock.advance(HOUR + 7 * 60_000);
    expect(clock.now()).toBeLessThan(publicationWait);
    await drain();
    expect(network.paths()).toContain('POST /v1/instances/127.0.0.1/ping');
    expect(receiptCalls().map((c) => c.body.receipt)).toEqual(receipts.map((r) => r.receipt.jws));
    entry = await entryOf();
    expect(entry.receipts).toMatchObject({ waiting: 0, published: 2, next_attempt_at: null });
  });

  it('what waits survives a restart and goes once the network answers', async () => {
    await enableNetwork();
    network.receiptMode = 'fail';
    const booking = await confirmedBooking(14);
    await drain();
    expect((await entryOf()).receipts).toMatchObject({ waiting: 1 });
    const { dataDir, ownerKey } = t;
    await t.close({ removeData: false });

    network.receiptMode = 'accept';
    clock.advance(HOUR);
    await start(dataDir, ownerKey);
    await drain();
    expect(receiptCalls().filter((c) => c.shared.ok).at(-1)?.body.receipt).toBe(booking.receipt.jws);
    expect((await entryOf()).receipts).toMatchObject({ waiting: 0, published: 1 });
  });

  it('a network that has not verified this inbox holds receipts; they go once a ping finds it verified', async () => {
    network.status = { status: 'pending', verified_at: null, listed: false };
    network.receiptMode = 'hold';
    await enableNetwork();
    const booking = await confirmedBooking(14);
    await drain();
    let entry = await entryOf();
    expect(entry.receipts).toMatchObject({ held: 1, waiting: 0, published: 0 });
    expect(entry.last_error.message).toMatch(/^publication held: wrong_state/);

    network.status = { status: 'verified', verified_at: '2026-11-23T10:05:00Z', listed: true };
    network.receiptMode = 'accept';
    // The next ping (before the publication's own wait is over) finds it verified and sends at once.
    clock.advance(3_000);
    await drain();
    expect(receiptCalls().at(-1)?.body.receipt).toBe(booking.receipt.jws);
    entry = await entryOf();
    expect(entry.receipts).toMatchObject({ held: 0, published: 1, next_attempt_at: null });
  });

  it('a refusal is kept with its reason, never sent again, and holds up nothing else', async () => {
    await enableNetwork();
    network.receiptMode = 'refuse';
    const refused = await confirmedBooking(14);
    await drain();
    network.receiptMode = 'accept';
    const taken = await confirmedBooking(16);
    await drain();
    clock.advance(24 * HOUR);
    await drain();
    expect(receiptCalls().map((c) => c.body.receipt)).toEqual([refused.receipt.jws, taken.receipt.jws]);
    const entry = await entryOf();
    expect(entry.receipts).toMatchObject({
      published: 1,
      refused: 1,
      waiting: 0,
      last_refusal: { receipt_id: refused.receipt.receipt_id, reason: 'bad_receipt: The receipt does not verify.', at: '2026-11-23T10:00:00.000Z' },
    });
    // An acknowledgement of a refused receipt does not send it again.
    const ack = await new Agent().acknowledge(refused.receipt, Math.floor(clock.now() / 1000));
    expect((await t.request('POST', `/v1/items/${refused.id}/receipt-ack`, { body: { ack }, headers: { 'x-access-token': refused.accessToken } })).status).toBe(200);
    await drain();
    expect(receiptCalls()).toHaveLength(2);
  });

  it('a signature the network cannot check, a rate limit or a 404 delay publication; they never refuse a receipt', async () => {
    await enableNetwork();
    network.knowsKeys = false;
    const booking = await confirmedBooking(14);
    await drain();
    let entry = await entryOf();
    expect(entry.receipts).toMatchObject({ waiting: 1, refused: 0 });
    expect(entry.last_error.message).toMatch(/^publication: unauthorized \(unknown_key\)/);

    network.knowsKeys = true;
    network.receiptMode = 'rate_limit';
    clock.set(entry.receipts.next_attempt_at);
    await drain();
    entry = await entryOf();
    expect(Date.parse(entry.receipts.next_attempt_at) - clock.now()).toBe(120_000);
    expect(entry.last_error.message).toMatch(/^publication: rate_limited/);

    network.receiptMode = 'not_found';
    clock.set(entry.receipts.next_attempt_at);
    await drain();
    expect((await entryOf()).receipts).toMatchObject({ held: 1, refused: 0 });

    network.receiptMode = 'accept';
    clock.set((await entryOf()).receipts.next_attempt_at);
    await drain();
    expect((await entryOf()).receipts).toMatchObject({ waiting: 0, held: 0, published: 1, refused: 0 });
    expect(network.receipts.has(booking.receipt.receipt_id)).toBe(true);
    // Every attempt was signed anew: no signature was ever sent twice.
    const signatures = receiptCalls().map((c) => c.shared.ok && c.shared.signatureId);
    expect(new Set(signatures).size).toBe(signatures.length);
  });
});
