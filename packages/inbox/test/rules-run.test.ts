/**
 * Rules at work (docs/rules.md), over HTTP with the TestClock and the job runner driven by hand:
 * a rule confirms a fixed-price booking inside hours as actor kind `rule`; nothing unpriced is ever
 * confirmed or accepted by a rule (spec §3 rule 2, the business_priced guard) while the owner and
 * integrations still may; delayed expiry only when the item was left untouched; flags, replies,
 * chains, the depth limit, and a restart between the event and the run.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '@svc/shared';
import { ownerItem, ownerMove, status } from './support/customer-calls.js';
import { TestClock, haircutAt, startInbox, type TestInbox } from './support/harness.js';

const HOUR = 3_600_000;
const TUESDAY_10 = '2026-11-24T10:00:00Z'; // inside Tuesday's 09:30–13:00

const confirmFixedInHours = {
  id: 'confirm-fixed',
  name: 'Confirm fixed-price bookings inside opening hours',
  when: { event: 'booking.create' },
  if: [{ fact: 'price_model', in: ['fixed'] }, { fact: 'within_opening_hours' }],
  then: { do: 'transition', event: 'confirm' },
};

async function addRule(t: TestInbox, rule: Record<string, unknown>) {
  const r = await t.owner('POST', '/v1/owner/rules', { body: { rule } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function book(t: TestInbox, body: Record<string, unknown>) {
  const r = await t.request('POST', '/v1/bookings', { body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string };
}

async function order(t: TestInbox, lines: Record<string, unknown>[]) {
  const r = await t.request('POST', '/v1/orders', { body: { payload: { lines }, contact: { name: 'Ana Silva', email: 'ana@example.com' } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string };
}

/** Runs jobs until none is due (a rule's move queues the next round). */
async function runAll(t: TestInbox): Promise<number> {
  let total = 0;
  for (let ran = await t.inbox.jobs.runDue(); ran > 0; ran = await t.inbox.jobs.runDue()) total += ran;
  return total;
}

const ruleEvents = (item: { events: any[] }) => item.events.filter((e) => e.by.kind === 'rule');

describe('rules that act at once', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox({ clock: new TestClock(), runJobs: false });
  });
  afterEach(() => t.close());

  it('confirms a fixed-price booking inside opening hours as actor kind rule, one version up', async () => {
    await addRule(t, confirmFixedInHours);
    const { id, accessToken } = await book(t, haircutAt(TUESDAY_10));
    // Nothing confirms on create: the rule runs in its job, after the create committed.
    expect((await ownerItem(t, id)).state).toBe('requested');
    const [job] = await t.inbox.store.jobs.list('rules.run');
    expect(job).toMatchObject({ status: 'pending', payload: { itemId: id, version: 1, eventType: 'booking.create', depth: 0 } });

    expect(await runAll(t)).toBeGreaterThanOrEqual(1);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'confirmed', version: 2 });
    expect(item.events.map((e: any) => e.type)).toEqual(['booking.create', 'booking.confirm', 'booking.receipt_issued']);
    // The rule's confirmation is signed like anyone's, and says nobody decided (aut: 1, docs/receipts.md).
    expect(item.receipts).toEqual([expect.objectContaining({ kind: 'confirmed', claims: expect.objectContaining({ aut: 1 }) })]);
    expect(item.events[1]).toMatchObject({
      type: 'booking.confirm',
      fromState: 'requested',
      toState: 'confirmed',
      by: { kind: 'rule', id: 'confirm-fixed', name: confirmFixedInHours.name },
      channel: 'rule',
    });
    expect((await status(t, id, accessToken)).state).toBe('confirmed');
    expect(await t.inbox.store.jobs.list('rules.run')).toEqual([expect.objectContaining({ status: 'done', attempts: 1 })]);
  });

  it('leaves a booking outside opening hours requested', async () => {
    await addRule(t, confirmFixedInHours);
    // create_booking refuses a time outside hours, so the hours change after the request: Tuesdays now open after lunch only.
    const { id } = await book(t, haircutAt(TUESDAY_10));
    const hours = await t.owner('PUT', '/v1/owner/availability/hours', { body: { openingHours: [{ dayOfWeek: 2, opens: '14:00', closes: '19:30' }] } });
    expect(hours.status).toBe(200);
    await runAll(t);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'requested', version: 1 });
    expect(ruleEvents(item)).toEqual([]);
  });

  it('never confirms what the catalogue does not price, even for a rule that asks nothing of the price', async () => {
    await addRule(t, { id: 'confirm-in-hours', name: 'Confirm in hours', when: { event: 'booking.create' }, if: [{ fact: 'within_opening_hours' }], then: { do: 'transition', event: 'confirm' } });
    const from = await book(t, haircutAt(TUESDAY_10, { serviceId: 'colouring' }));
    const quote = await book(t, haircutAt('2026-11-25T10:00:00Z', { serviceId: 'bridal-styling' }));
    const longer = await book(t, haircutAt('2026-11-26T10:00:00Z', { endTime: '2026-11-26T11:30:00Z' })); // fixed, but 90 of 45 minutes
    const fixed = await book(t, haircutAt('2026-11-27T10:00:00Z'));
    await runAll(t);
    for (const { id } of [from, quote, longer]) {
      const item = await ownerItem(t, id);
      expect(item, item.payload.serviceId).toMatchObject({ state: 'requested', version: 1, needsHuman: true });
      expect(ruleEvents(item)).toEqual([]);
    }
    expect((await ownerItem(t, fixed.id)).state).toBe('confirmed');
  });

  it('accepts an order whose lines name products, never one with a line naming no product', async () => {
    await addRule(t, { name: 'Accept shop orders', when: { event: 'order.create' }, then: { do: 'transition', event: 'accept' } });
    const priced = await order(t, [{ productId: 'argan-shampoo', quantity: 2 }]);
    const unpriced = await order(t, [{ productId: 'argan-shampoo', quantity: 1 }, { name: 'A hair clip like the blue one', quantity: 1 }]);
    await runAll(t);
    const accepted = await ownerItem(t, priced.id);
    expect(accepted).toMatchObject({ state: 'accepted', version: 2 });
    expect(accepted.events[1]).toMatchObject({ type: 'order.accept', by: { kind: 'rule' }, channel: 'rule' });
    const waiting = await ownerItem(t, unpriced.id);
    expect(waiting).toMatchObject({ state: 'received', version: 1 });
    expect(ruleEvents(waiting)).toEqual([]);
  });

  it('lets the owner and an integration confirm unpriced work with a price: the guard holds back rules only', async () => {
    const keyValue = `svc_own_${'k'.repeat(32)}`;
    await t.inbox.store.apiKeys.insert({
      id: newId(),
      name: 'calendar sync',
      kind: 'integration',
      preset: 'automation',
      scopes: ['inbox:read', 'inbox:write', 'events:read'],
      keyHash: sha256Hex(keyValue),
      keyHint: 'svc_own_kkkk…kkkk',
      createdByKind: 'owner',
      createdAt: t.clock.now(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    const byIntegration = await book(t, haircutAt(TUESDAY_10, { serviceId: 'colouring' }));
    const moved = await t.request('POST', `/v1/owner/items/${byIntegration.id}/transitions`, {
      body: { event: 'confirm', input: { price: 7500 } },
      headers: { authorization: `Bearer ${keyValue}` },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ state: 'confirmed', payload: { price: 7500, priceStatus: 'business' } });
    expect(moved.body.events[1].by.kind).toBe('integration');

    const byOwner = await book(t, haircutAt('2026-11-25T10:00:00Z', { serviceId: 'colouring' }));
    expect((await ownerMove(t, byOwner.id, 'confirm', { price: 8000 })).state).toBe('confirmed');
  });

  it('raises needsHuman as a <type>.flags event without changing the version', async () => {
    await addRule(t, { id: 'look', name: 'Haircuts get a look', when: { event: 'booking.create' }, if: [{ fact: 'service', in: ['haircut'] }], then: { do: 'set_flags', needsHuman: true, priority: 2 } });
    const { id } = await book(t, haircutAt(TUESDAY_10));
    expect((await ownerItem(t, id)).needsHuman).toBe(false);
    await runAll(t);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'requested', version: 1, needsHuman: true, priority: 2 });
    expect(item.events[1]).toMatchObject({ type: 'booking.flags', version: 1, by: { kind: 'rule', id: 'look' }, channel: 'rule' });
    const flagged = await t.owner('GET', '/v1/owner/items?needs_human=true&type=booking');
    expect(flagged.body.items.map((i: any) => i.id)).toContain(id);
  });

  it('reads the customer\'s standing: a no-show earlier raises needsHuman, a clean record confirms', async () => {
    await addRule(t, { id: 'regular', name: 'Confirm people who turn up', when: { event: 'booking.create' }, if: [{ fact: 'customer_completed_at_least', count: 1 }, { fact: 'customer_no_shows_at_most', count: 0 }], then: { do: 'transition', event: 'confirm' } });
    await addRule(t, { id: 'no-shows', name: 'No-shows get a look', when: { event: 'booking.create' }, if: [{ fact: 'customer_no_shows_at_least', count: 1 }], then: { do: 'set_flags', needsHuman: true } });

    // Bea came once; Ana did not.
    const bea = (start: string) => ({ ...haircutAt(start), contact: { name: 'Bea', email: 'bea@example.com' } });
    const beaFirst = await book(t, bea(TUESDAY_10));
    const anaFirst = await book(t, haircutAt('2026-11-24T11:00:00Z'));
    await runAll(t); // neither has a record yet: nothing happens
    expect((await ownerItem(t, beaFirst.id)).state).toBe('requested');
    await ownerMove(t, beaFirst.id, 'confirm');
    await ownerMove(t, anaFirst.id, 'confirm');
    t.clock.nowMs = Date.parse('2026-11-24T12:00:00Z');
    await ownerMove(t, beaFirst.id, 'complete');
    await ownerMove(t, anaFirst.id, 'no_show');
    await runAll(t);

    const beaAgain = await book(t, bea('2026-11-27T10:00:00Z'));
    const anaAgain = await book(t, haircutAt('2026-11-27T11:00:00Z'));
    await runAll(t);
    expect(await ownerItem(t, beaAgain.id)).toMatchObject({ state: 'confirmed', events: [{}, { by: { kind: 'rule', id: 'regular' } }, { type: 'booking.receipt_issued' }] });
    const ana = await ownerItem(t, anaAgain.id);
    expect(ana).toMatchObject({ state: 'requested', version: 1, needsHuman: true });
    expect(ruleEvents(ana)).toEqual([expect.objectContaining({ type: 'booking.flags', by: expect.objectContaining({ id: 'no-shows' }) })]);
  });

  it('does not let sandbox items build or spoil a real customer\'s standing', async () => {
    await addRule(t, { id: 'no-shows', name: 'No-shows get a look', when: { event: 'booking.create' }, if: [{ fact: 'customer_no_shows_at_least', count: 1 }], then: { do: 'set_flags', needsHuman: true } });
    const trial = await book(t, { ...haircutAt(TUESDAY_10), sandbox: true });
    await ownerMove(t, trial.id, 'confirm');
    t.clock.nowMs = Date.parse('2026-11-24T12:00:00Z');
    await ownerMove(t, trial.id, 'no_show');
    await runAll(t);

    const real = await book(t, haircutAt('2026-11-27T11:00:00Z'));
    const anotherTrial = await book(t, { ...haircutAt('2026-11-27T12:00:00Z'), sandbox: true });
    await runAll(t);
    expect(await ownerItem(t, real.id)).toMatchObject({ needsHuman: false });
    expect(await ownerItem(t, anotherTrial.id)).toMatchObject({ needsHuman: true });
  });

  it('writes a fixed reply to the customer', async () => {
    await addRule(t, { name: 'Say thanks', when: { event: 'quote_request.create' }, then: { do: 'reply', message: 'Thanks! We answer quote requests within two days.' } });
    const r = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Hair and make-up for a wedding party of five' } } });
    expect(r.status).toBe(201);
    await runAll(t);
    const seen = await status(t, r.body.id, r.body.accessToken);
    expect(seen).toMatchObject({ state: 'received', version: 1 });
    expect(seen.conversation).toEqual([expect.objectContaining({ text: 'Thanks! We answer quote requests within two days.', from: 'business', authorKind: 'rule', internal: false })]);
  });

  it('does not act on a disabled rule, and queues nothing when no rule matches', async () => {
    await addRule(t, { ...confirmFixedInHours, enabled: false });
    await addRule(t, { name: 'Orders only', when: { event: 'order.create' }, then: { do: 'set_flags', priority: 1 } });
    const { id } = await book(t, haircutAt(TUESDAY_10));
    expect(await t.inbox.store.jobs.list('rules.run')).toEqual([]);
    await runAll(t);
    expect((await ownerItem(t, id)).state).toBe('requested');
  });

  it('judges the event, not a later state: an item the owner moved before the run is left alone', async () => {
    await addRule(t, confirmFixedInHours);
    const { id } = await book(t, haircutAt(TUESDAY_10));
    await ownerMove(t, id, 'request_info');
    await runAll(t);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'needs_info', version: 2 });
    expect(ruleEvents(item)).toEqual([]);
  });

  it('tries rules in order: flags let the next rule run, the first move ends the round, and its event starts the next', async () => {
    await addRule(t, { id: 'a-flag', name: 'Priority', position: 0, when: { event: 'booking.create' }, then: { do: 'set_flags', priority: 1 } });
    await addRule(t, { ...confirmFixedInHours, position: 1 });
    await addRule(t, { id: 'c-decline', name: 'Never reached', position: 2, when: { event: 'booking.create' }, then: { do: 'transition', event: 'decline' } });
    await addRule(t, { id: 'd-thanks', name: 'Confirmation note', when: { event: 'booking.confirm' }, then: { do: 'reply', message: 'See you on Tuesday.' } });
    const { id, accessToken } = await book(t, haircutAt(TUESDAY_10));
    await runAll(t);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'confirmed', version: 2, priority: 1 });
    expect(item.events.map((e: any) => `${e.type}:${e.by.id ?? e.by.kind}`)).toEqual([
      'booking.create:customer_agent',
      'booking.flags:a-flag',
      'booking.confirm:confirm-fixed',
      'booking.receipt_issued:confirm-fixed',
    ]);
    // The customer reads the business's name; which rule wrote it stays in the owner's history (issue 37).
    expect((await status(t, id, accessToken)).conversation).toEqual([expect.objectContaining({ text: 'See you on Tuesday.', authorName: 'Salão Aurora' })]);
    expect(item.conversation).toEqual([expect.objectContaining({ text: 'See you on Tuesday.', authorName: 'Confirmation note' })]);
  });

  it('chains accept and request_payment with its payment URL', async () => {
    await addRule(t, { name: 'Accept', when: { event: 'order.create' }, if: [{ fact: 'price_at_most', amountMinor: 5000 }], then: { do: 'transition', event: 'accept' } });
    await addRule(t, { name: 'Ask to pay', when: { event: 'order.accept' }, then: { do: 'transition', event: 'request_payment', input: { paymentUrl: 'https://pay.example.com/aurora' } } });
    const small = await order(t, [{ productId: 'argan-shampoo', quantity: 1 }]);
    const large = await order(t, [{ productId: 'argan-shampoo', quantity: 100 }]);
    await runAll(t);
    const paid = await ownerItem(t, small.id);
    expect(paid).toMatchObject({ state: 'awaiting_payment', version: 3, payload: { paymentUrl: 'https://pay.example.com/aurora' } });
    expect(paid.events.slice(1).map((e: any) => [e.type, e.by.kind])).toEqual([
      ['order.accept', 'rule'],
      ['order.receipt_issued', 'rule'],
      ['order.request_payment', 'rule'],
    ]);
    expect((await ownerItem(t, large.id)).state).toBe('received');
  });

  it('stops a loop of rules three moves deep', async () => {
    await addRule(t, { id: 'reopen', name: 'Reopen', when: { event: 'message.close' }, then: { do: 'transition', event: 'reopen' } });
    await addRule(t, { id: 'close', name: 'Close', when: { event: 'message.reopen' }, then: { do: 'transition', event: 'close' } });
    const r = await t.request('POST', '/v1/messages', { body: { message: 'Do you sell gift cards?' } });
    expect(r.status).toBe(201);
    await ownerMove(t, r.body.id, 'close');
    await runAll(t);
    const item = await ownerItem(t, r.body.id);
    expect(ruleEvents(item).map((e: any) => e.type)).toEqual(['message.reopen', 'message.close', 'message.reopen']);
    expect(item).toMatchObject({ state: 'open', version: 5 });
    expect((await t.inbox.store.jobs.list()).filter((j) => j.kind.startsWith('rules.') && j.status !== 'done')).toEqual([]);

    // Every owner close sets the loop off again, until the item carries 10 rule events.
    for (let round = 0; round < 3; round += 1) {
      await ownerMove(t, r.body.id, 'close');
      await runAll(t);
    }
    expect(ruleEvents(await ownerItem(t, r.body.id))).toHaveLength(10);
    await ownerMove(t, r.body.id, 'close');
    await runAll(t);
    const last = await ownerItem(t, r.body.id);
    expect(ruleEvents(last)).toHaveLength(10);
    expect(last.state).toBe('closed');
  });
});

describe('delayed rules', () => {
  let t: TestInbox;
  beforeEach(async () => {
    t = await startInbox({ clock: new TestClock(), runJobs: false });
    await addRule(t, { id: 'expire-1d', name: 'Expire unanswered requests after a day', when: { event: 'booking.create', afterHours: 24 }, then: { do: 'transition', event: 'expire' } });
  });
  afterEach(() => t.close());

  it('expires a request nobody answered, N hours after it came', async () => {
    const createdAt = t.clock.now();
    const { id } = await book(t, haircutAt(TUESDAY_10, { serviceId: 'colouring' }));
    const [job] = await t.inbox.store.jobs.list('rules.run_delayed');
    expect(job).toMatchObject({ runAt: createdAt + 24 * HOUR, payload: { itemId: id, version: 1, ruleId: 'expire-1d' } });

    t.clock.nowMs = createdAt + 24 * HOUR - 1;
    expect(await runAll(t)).toBe(0);
    expect((await ownerItem(t, id)).state).toBe('requested');

    t.clock.nowMs = createdAt + 24 * HOUR;
    expect(await runAll(t)).toBe(1);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'expired', version: 2 });
    expect(item.events[1]).toMatchObject({ type: 'booking.expire', by: { kind: 'rule', id: 'expire-1d' }, channel: 'rule' });
  });

  it('does not expire a request the owner moved first', async () => {
    const createdAt = t.clock.now();
    const { id } = await book(t, haircutAt(TUESDAY_10, { serviceId: 'colouring' }));
    t.clock.advance(HOUR);
    await ownerMove(t, id, 'request_info');
    t.clock.nowMs = createdAt + 48 * HOUR;
    // The delayed rule, ending quietly, and the customer's mail asking for the details.
    expect(await runAll(t)).toBe(2);
    const item = await ownerItem(t, id);
    expect(item).toMatchObject({ state: 'needs_info', version: 2 });
    expect(ruleEvents(item)).toEqual([]);
  });

  it('counts from the last move for a trigger on every event, and ends quietly when the rule was deleted', async () => {
    await addRule(t, { id: 'expire-any', name: 'Expire after any move', when: { event: 'quote_request.*', afterHours: 2 }, then: { do: 'transition', event: 'expire' } });
    const quote = await t.request('POST', '/v1/quotes', { body: { payload: { description: 'Highlights for long hair' } } });
    const start = t.clock.now();
    t.clock.advance(HOUR);
    await ownerMove(t, quote.body.id, 'request_info');
    t.clock.nowMs = start + 2 * HOUR; // the create's run: the item moved since
    await runAll(t);
    expect((await ownerItem(t, quote.body.id)).state).toBe('needs_info');
    t.clock.nowMs = start + 3 * HOUR; // two hours after request_info, untouched since
    await runAll(t);
    const item = await ownerItem(t, quote.body.id);
    expect(item).toMatchObject({ state: 'expired', version: 3 });
    expect(item.events[2]).toMatchObject({ type: 'quote_request.expire', by: { kind: 'rule', id: 'expire-any' } });

    const { id } = await book(t, haircutAt('2026-11-27T10:00:00Z', { serviceId: 'colouring' }));
    expect((await t.owner('DELETE', '/v1/owner/rules/expire-1d')).status).toBe(200);
    t.clock.advance(25 * HOUR);
    await runAll(t);
    expect((await ownerItem(t, id)).state).toBe('requested');
  });
});

describe('a restart between the event and the rule run', () => {
  it('still runs the rule, from the background loop of the new process', async () => {
    const clock = new TestClock();
    const first = await startInbox({ clock, runJobs: false });
    await addRule(first, confirmFixedInHours);
    const { id } = await book(first, haircutAt(TUESDAY_10));
    await first.close({ removeData: false });

    const second = await startInbox({ clock, dataDir: first.dataDir, runJobs: true });
    try {
      const deadline = Date.now() + 5_000;
      let item = await ownerItem(second, id);
      while (item.state !== 'confirmed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        item = await ownerItem(second, id);
      }
      expect(item).toMatchObject({ state: 'confirmed', version: 2, events: [{}, { by: { kind: 'rule', id: 'confirm-fixed' } }, { type: 'booking.receipt_issued' }] });
    } finally {
      await second.close();
    }
  });
});
