/**
 * The inbox checks each network's public evidence log (issue 39, docs/receipts.md "The networks'
 * logs"): after a ping goes through it reads the network's signed head, proves each receipt the
 * network took more than an hour ago is in it (RFC 9162 inclusion) and that the head extends the last
 * one it checked (consistency). A receipt the network took but did not log is told to the owner once,
 * as `<type>.receipt_not_logged` on its item, and counted on get_networks; a head that does not extend
 * the last (two different logs) is shown there as the log's problem. The network here is the tests'
 * FakeNetwork with a log it can leave receipts out of, or fork.
 */
import { encodeEntry } from '@svc/verify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBooking, ownerMove, setSettings } from './support/customer-calls.js';
import { FakeNetwork } from './support/fake-network.js';
import { TestClock, startInbox, type TestInbox } from './support/harness.js';
import { signInToApp } from './support/owner-app.js';
import { rawRequest } from '../../../test-support/raw-http.js';

const HOUR = 3_600_000;
let t: TestInbox;
let clock: TestClock;
let network: FakeNetwork;
let origin: string;

beforeEach(async () => {
  clock = new TestClock();
  t = await startInbox({ clock, allowLocalNetworks: true });
  network = new FakeNetwork(() => t.baseUrl, () => clock.now());
  origin = await network.start();
  network.status = { status: 'verified', verified_at: '2026-11-23T10:00:00Z', listed: true };
  network.publishesLog = true;
});
afterEach(async () => {
  await t.close();
  await network.close();
});

async function drain(): Promise<void> {
  while ((await t.inbox.jobs.runDue()) > 0);
}
const entryOf = async () => ((await t.owner('GET', '/v1/owner/networks')).body.networks as any[]).find((n) => n.origin === origin);
/** Two bookings confirmed (a receipt each), published; then an hour and the next ping, and the check after it. */
async function publishTwoAndCheck(): Promise<{ ids: string[]; receipts: string[] }> {
  await setSettings(t, { networks: { [origin]: { enabled: true } } });
  await drain();
  const ids: string[] = [];
  const receipts: string[] = [];
  for (const hour of [14, 15]) {
    const booking = await createBooking(t, 'haircut', `2026-11-24T${hour}:00:00Z`);
    const confirmed = await ownerMove(t, booking.id, 'confirm');
    ids.push(booking.id);
    receipts.push(confirmed.receipts[0].receipt_id);
  }
  await drain();
  expect((await entryOf()).receipts.published).toBe(2);
  await nextPingAndCheck();
  return { ids, receipts };
}
async function nextPingAndCheck(): Promise<void> {
  clock.advance(HOUR + 5_000);
  await drain();
  clock.advance(61_000);
  await drain();
}
const eventsOf = async (id: string) => ((await t.owner('GET', `/v1/owner/items/${id}`)).body.events as { event: string; data: any }[]).filter((e) => e.event === 'receipt_not_logged');

describe('the networks\' evidence logs, checked by the inbox', () => {
  it('finds each receipt it published in the log, proven under the network\'s signed head', async () => {
    await publishTwoAndCheck();
    const entry = await entryOf();
    expect(entry.log).toMatchObject({ head_size: 2, logged: 2, missing: 0, first_missing: null, problem: null });
    expect(Date.parse(entry.log.checked_at)).toBe(clock.now());
  });

  it('tells the owner once when the network took a receipt but its log does not hold it an hour later', async () => {
    // The network answers 201 for the second receipt and leaves it out of its log.
    network.unlogged.add('pending');
    await setSettings(t, { networks: { [origin]: { enabled: true } } });
    await drain();
    const first = await createBooking(t, 'haircut', '2026-11-24T14:00:00Z');
    await ownerMove(t, first.id, 'confirm');
    await drain();
    const second = await createBooking(t, 'haircut', '2026-11-24T15:00:00Z');
    const confirmed = await ownerMove(t, second.id, 'confirm');
    network.unlogged.add(confirmed.receipts[0].receipt_id);
    await drain();
    expect((await entryOf()).receipts.published).toBe(2);
    await nextPingAndCheck();
    const entry = await entryOf();
    expect(entry.log).toMatchObject({ logged: 1, missing: 1, first_missing: { receipt_id: confirmed.receipts[0].receipt_id }, problem: null });
    const told = await eventsOf(second.id);
    expect(told).toHaveLength(1);
    expect(told[0]?.data).toEqual({ receipt_id: confirmed.receipts[0].receipt_id, network: origin });
    expect(await eventsOf(first.id)).toHaveLength(0);
    // Checked again an hour later: still missing, not told twice.
    await nextPingAndCheck();
    expect((await entryOf()).log.missing).toBe(1);
    expect(await eventsOf(second.id)).toHaveLength(1);
    // The owner app's networks page says it.
    const app = await signInToApp(t.baseUrl, t.ownerKey);
    const page = await rawRequest(t.baseUrl, 'GET', '/app/setup/networks', { cookie: app.cookie });
    expect(page.status).toBe(200);
    // In the owner's language (the demo business writes Portuguese).
    expect(page.body.toString()).toContain('1 recibos que não tem, o primeiro desde');
  });

  it('shows a fork when the network\'s head does not extend the last one it checked', async () => {
    await publishTwoAndCheck();
    expect((await entryOf()).log.problem).toBeNull();
    // Another log of the same size and more, signed as well: its first entry differs.
    network.forkedEntries = [encodeEntry({ v: 1, kind: 'receipt', at: 1, jws: 'a.b.c' }), ...network.logEntries.slice(1), encodeEntry({ v: 1, kind: 'receipt', at: 2, jws: 'd.e.f' })];
    await nextPingAndCheck();
    expect((await entryOf()).log.problem).toMatchObject({ message: expect.stringContaining('two different logs') });
  });

  it('checks nothing at a network that publishes no log, and finds nothing missing there', async () => {
    network.publishesLog = false;
    await publishTwoAndCheck();
    expect((await entryOf()).log).toMatchObject({ checked_at: null, logged: 0, missing: 0, problem: null });
  });
});
