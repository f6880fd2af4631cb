/**
 * A network with evidence, for the verifiable-order suites: three verified inboxes (a strong record of
 * twenty promises kept for twenty customers, acknowledged and paid; a weak one of one customer, four
 * kept and one broken; a quiet one with none), some found listings beside them, receipts published
 * signed over HTTP, then the night's snapshot and the hour's order, driven by the test's clock.
 */
import type { ReceiptClaims } from '@svc/shared';
import { DAY, HOUR, MONDAY, listing } from './fixtures.js';
import { TestClock, startDirectory, type TestDirectory } from './harness.js';
import { newKey, pingPath, receiptClaims, registerVerified, signAck, signReceipt, signed, signedInbox, type SignedInbox, type SigningKey } from './signed-inbox.js';

export interface EvidenceScene {
  t: TestDirectory;
  clock: TestClock;
  strong: SignedInbox;
  weak: SignedInbox;
  quiet: SignedInbox;
  agent: SigningKey;
  /** Every receipt published, by inbox domain. */
  published: Map<string, string[]>;
  /** The hour whose order and statement were made (its start, ms). */
  hour: number;
  publish(inbox: SignedInbox, receipt: string, ack?: string): Promise<void>;
  closePromise(inbox: SignedInbox, customer: string, out: string, options?: { paid?: boolean; acknowledged?: boolean }): Promise<string[]>;
  /** Pings every inbox, moves the clock past the next midnight by `minutes` and prepares that hour. */
  nextNight(minutes?: number): Promise<void>;
  fetch: typeof fetch;
}

/** `fetch` against the test server, whatever host the URL names (the verifier is given the public URL's paths). */
export function fetchVia(t: TestDirectory): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetch(`${t.baseUrl}${url.pathname}${url.search}`, init);
  }) as typeof fetch;
}

export async function evidenceScene(options: { found?: number; answerWorkers?: number; orderTreeWorkerFrom?: number } = {}): Promise<EvidenceScene> {
  const clock = new TestClock(MONDAY);
  const found = Array.from({ length: options.found ?? 6 }, (_, i) => listing(`found-${i}.example`, { name: `Found ${i}` }));
  const t = await startDirectory({
    clock,
    allowLocalInboxes: true,
    answerWorkers: options.answerWorkers ?? 0,
    listings: found,
    ...(options.orderTreeWorkerFrom !== undefined ? { orderTreeWorkerFrom: options.orderTreeWorkerFrom } : {}),
  });
  const agent = newKey();
  const [strong, weak, quiet] = [await signedInbox(), await signedInbox(), await signedInbox()];
  for (const inbox of [strong, weak, quiet]) await registerVerified(t, inbox);
  const published = new Map<string, string[]>();
  const nowSec = () => Math.floor(clock.now() / 1000);

  const publish = async (inbox: SignedInbox, receipt: string, ack?: string) => {
    const r = await signed(scene.t, inbox, 'POST', '/v1/receipts', ack ? { receipt, ack } : { receipt });
    if (r.status !== 201 && r.status !== 200) throw new Error(`publishing answered ${r.status}: ${JSON.stringify(r.body)}`);
    published.set(inbox.domain, [...(published.get(inbox.domain) ?? []), receipt]);
  };

  const closePromise = async (inbox: SignedInbox, customer: string, out: string, o: { paid?: boolean; acknowledged?: boolean } = {}) => {
    const itm = `item-${Math.random().toString(36).slice(2)}`;
    const typ = out.split('.')[0] as 'booking' | 'order';
    const promise = receiptClaims(inbox, clock.now(), { sub: customer, itm, typ, knd: typ === 'booking' ? 'confirmed' : 'accepted', evt: `${typ}.${typ === 'booking' ? 'confirmed' : 'accepted'}`, ...(typ === 'order' ? { end: undefined } : {}) });
    const promiseJws = signReceipt(inbox.key, promise);
    await publish(inbox, promiseJws);
    clock.advance(60_000);
    const outcome = signReceipt(
      inbox.key,
      receiptClaims(inbox, clock.now(), { sub: customer, itm, typ, knd: 'outcome', out: out as ReceiptClaims['out'], ref: promise.nonce, evt: out, due: promise.due, ...(typ === 'order' ? { end: undefined } : { end: promise.end }), ...(o.paid ? { pay: 1 } : {}) }),
    );
    await publish(inbox, outcome, o.acknowledged === false ? undefined : signAck(agent, outcome, nowSec()));
    return [promiseJws, outcome];
  };

  const scene: EvidenceScene = {
    t,
    clock,
    strong,
    weak,
    quiet,
    agent,
    published,
    hour: 0,
    publish,
    closePromise,
    fetch: fetchVia(t),
    async nextNight(minutes = 30) {
      const midnight = Math.floor(clock.now() / DAY) * DAY + DAY;
      clock.set(new Date(midnight + minutes * 60_000).toISOString());
      // Every inbox answered in the last day (its ping at the new time).
      for (const inbox of [strong, weak, quiet]) await signed(scene.t, inbox, 'POST', pingPath(inbox.domain), {});
      await scene.t.directory.jobs.runDue();
      scene.hour = Math.floor(clock.now() / HOUR) * HOUR;
      await scene.t.directory.search.hour();
    },
  };
  // Past the hold after verification (30 days, then 30 units a month until day 90), in the afternoon.
  clock.set('2027-02-26T15:00:00Z');
  for (let i = 0; i < 20; i++) await closePromise(strong, `customer-${i}`, 'booking.completed', { paid: true });
  for (let i = 0; i < 4; i++) await closePromise(weak, 'the-one', 'booking.completed', { paid: true });
  await closePromise(weak, 'the-one', 'order.not_fulfilled', { paid: true });
  await t.directory.jobs.runDue();
  return scene;
}
