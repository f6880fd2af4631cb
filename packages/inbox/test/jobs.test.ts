/**
 * Durable system moves (inbox spec §3): booking.complete after booking.autoCompleteHours,
 * order.lapse after orders.payDays, quote_request.expire at the quote's validity, driven through
 * HTTP plus `inbox.jobs.runDue()` or the background loop, across a restart, and the job runner's
 * retry, backoff and burial.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner, storageTarget, type JobHandler } from '@svc/shared';
import { dropTestDatabase, testDatabaseUrl } from '../../../test-support/test-database.js';
import { openInboxStore } from '../src/store/kysely/kysely-inbox-store.js';
import type { InboxStore, JobRecord } from '../src/store/store.js';
import { TestClock, haircutAt, startInbox, type TestInbox } from './support/harness.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const SYSTEM_EVENT = 'item.system_event';

/** A haircut on Tuesday 2026-11-24 10:00–10:45 UTC (Lisbon is on UTC then). */
const CUT_START = '2026-11-24T10:00:00Z';
const CUT_END_MS = Date.parse('2026-11-24T10:45:00Z');

async function createConfirmedBooking(t: TestInbox, startTime = CUT_START): Promise<string> {
  // No address: the counts below are of system moves alone (customer notices by mail: mail.test.ts).
  const created = await t.request('POST', '/v1/bookings', { body: { ...haircutAt(startTime), contact: { name: 'Ana Silva' } } });
  expect(created.status).toBe(201);
  await transition(t, created.body.id, 'confirm', undefined, 'confirmed');
  return created.body.id as string;
}

async function transition(t: TestInbox, id: string, event: string, input?: Record<string, unknown>, expectState?: string): Promise<any> {
  const moved = await t.owner('POST', `/v1/owner/items/${id}/transitions`, { body: input ? { event, input } : { event } });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  if (expectState) expect(moved.body.state).toBe(expectState);
  return moved.body;
}

async function getItem(t: TestInbox, id: string): Promise<any> {
  const r = await t.owner('GET', `/v1/owner/items/${id}`);
  expect(r.status).toBe(200);
  return r.body;
}

async function jobsFor(t: TestInbox, itemId: string): Promise<JobRecord[]> {
  return (await t.inbox.store.jobs.list(SYSTEM_EVENT)).filter((j) => j.payload.itemId === itemId);
}

async function onlyJobFor(t: TestInbox, itemId: string): Promise<JobRecord> {
  const jobs = await jobsFor(t, itemId);
  expect(jobs).toHaveLength(1);
  return jobs[0] as JobRecord;
}

/** The item's last move or side event; receipt events that follow a move (docs/receipts.md) are not moves. */
function lastEvent(item: { events: any[] }): any {
  return item.events.filter((e) => e.event !== 'receipt_issued' && e.event !== 'receipt_acknowledged').at(-1);
}

describe('system moves run by the job runner', () => {
  let t: TestInbox;
  let clock: TestClock;
  beforeEach(async () => {
    clock = new TestClock();
    t = await startInbox({ clock, runJobs: false });
  });
  afterEach(() => t.close());

  describe('booking.complete', () => {
    it('completes a confirmed booking autoCompleteHours (48 h) after its end, as the system', async () => {
      const id = await createConfirmedBooking(t);
      const due = CUT_END_MS + 48 * HOUR;
      expect((await onlyJobFor(t, id)).runAt).toBe(due);

      clock.nowMs = due - 1;
      expect(await t.inbox.jobs.runDue()).toBe(0);
      expect((await getItem(t, id)).state).toBe('confirmed');

      clock.nowMs = due + MINUTE;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(item.state).toBe('completed');
      expect(item.version).toBe(3);
      expect(lastEvent(item)).toMatchObject({
        type: 'booking.complete',
        fromState: 'confirmed',
        toState: 'completed',
        by: { kind: 'system', id: null },
        channel: 'system',
        timestamp: new Date(due + MINUTE).toISOString(),
      });
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'done', attempts: 1, lastError: null });

      // Done is done: a later pass does not fire it again.
      clock.advance(DAY);
      expect(await t.inbox.jobs.runDue()).toBe(0);
      expect((await getItem(t, id)).version).toBe(3);
    });

    it('follows a changed booking.autoCompleteHours for bookings confirmed afterwards', async () => {
      const put = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { booking: { autoCompleteHours: 2 } } } });
      expect(put.status).toBe(200);
      const id = await createConfirmedBooking(t);
      expect((await onlyJobFor(t, id)).runAt).toBe(CUT_END_MS + 2 * HOUR);

      clock.nowMs = CUT_END_MS + 2 * HOUR;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      expect((await getItem(t, id)).state).toBe('completed');
    });

    it('ends quietly when the business cancelled the booking before the time', async () => {
      const id = await createConfirmedBooking(t);
      const cancelled = await transition(t, id, 'cancel_by_business', undefined, 'cancelled_by_business');

      clock.nowMs = CUT_END_MS + 48 * HOUR + MINUTE;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(item.state).toBe('cancelled_by_business');
      expect(item.version).toBe(cancelled.version);
      expect(item.events.some((e: any) => e.by.kind === 'system')).toBe(false);
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'done', attempts: 1, lastError: null });
    });
  });

  describe('order.lapse', () => {
    async function awaitingPayment(): Promise<{ id: string; requestedAt: number }> {
      const created = await t.request('POST', '/v1/orders', {
        body: { payload: { lines: [{ productId: 'argan-shampoo', quantity: 2 }] }, contact: { name: 'Ana Silva' } },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await transition(t, id, 'accept', undefined, 'accepted');
      const requestedAt = clock.now();
      await transition(t, id, 'request_payment', { paymentUrl: 'https://pay.example.com/o/1' }, 'awaiting_payment');
      return { id, requestedAt };
    }

    it('closes the unpaid promise after payDays (14 days), keeps the state, and still takes a late payment', async () => {
      const { id, requestedAt } = await awaitingPayment();
      const due = requestedAt + 14 * DAY;
      expect((await onlyJobFor(t, id)).runAt).toBe(due);

      clock.nowMs = due - 1;
      expect(await t.inbox.jobs.runDue()).toBe(0);
      let item = await getItem(t, id);
      expect(item.payload.lapsedAt).toBeUndefined();

      clock.nowMs = due;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      item = await getItem(t, id);
      expect(item.state).toBe('awaiting_payment');
      expect(item.payload.lapsedAt).toBe(new Date(due).toISOString());
      expect(lastEvent(item)).toMatchObject({
        type: 'order.lapse',
        fromState: 'awaiting_payment',
        toState: 'awaiting_payment',
        by: { kind: 'system' },
        channel: 'system',
      });
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'done', lastError: null });

      clock.advance(2 * DAY);
      const paid = await transition(t, id, 'record_payment', undefined, 'paid');
      expect(lastEvent(paid)).toMatchObject({ type: 'order.record_payment', toState: 'paid' });
    });

    it('uses orders.payDays as set when payment is requested', async () => {
      const put = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { orders: { payDays: 3 } } } });
      expect(put.status).toBe(200);
      expect(put.body.settings.orders.payDays).toBe(3);
      const { id, requestedAt } = await awaitingPayment();
      expect((await onlyJobFor(t, id)).runAt).toBe(requestedAt + 3 * DAY);

      clock.nowMs = requestedAt + 3 * DAY - 1;
      expect(await t.inbox.jobs.runDue()).toBe(0);
      clock.nowMs = requestedAt + 3 * DAY;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(item.payload.lapsedAt).toBe(new Date(requestedAt + 3 * DAY).toISOString());
      expect(lastEvent(item).type).toBe('order.lapse');
    });

    it('keeps the pay-by date fixed at the request when orders.payDays changes afterwards', async () => {
      const { id, requestedAt } = await awaitingPayment();
      const raised = await t.owner('PUT', '/v1/owner/settings', { body: { settings: { orders: { payDays: 30 } } } });
      expect(raised.status).toBe(200);
      expect((await getItem(t, id)).payload.paymentDueAt).toBe(new Date(requestedAt + 14 * DAY).toISOString());
      clock.nowMs = requestedAt + 14 * DAY;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(lastEvent(item).type).toBe('order.lapse');
      expect(item.payload.lapsedAt).toBe(new Date(requestedAt + 14 * DAY).toISOString());
    });

    it('does not lapse an order paid in time', async () => {
      const { id, requestedAt } = await awaitingPayment();
      clock.advance(DAY);
      await transition(t, id, 'record_payment', undefined, 'paid');
      clock.nowMs = requestedAt + 15 * DAY;
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(item.state).toBe('paid');
      expect(item.payload.lapsedAt).toBeUndefined();
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'done', lastError: null });
    });
  });

  describe('quote_request.expire', () => {
    async function quoted(validThrough: string): Promise<string> {
      const created = await t.request('POST', '/v1/quotes', {
        body: { payload: { description: 'Bridal styling for the bride and two bridesmaids.' }, contact: { name: 'Ana Silva' } },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await transition(t, id, 'quote', { totalPrice: 30_000, validThrough }, 'quoted');
      return id;
    }

    it('expires the quote when its validThrough passes, as the system', async () => {
      const validThrough = '2026-11-30T18:00:00Z';
      const id = await quoted(validThrough);
      expect((await onlyJobFor(t, id)).runAt).toBe(Date.parse(validThrough));

      clock.nowMs = Date.parse(validThrough) - 1;
      expect(await t.inbox.jobs.runDue()).toBe(0);
      expect((await getItem(t, id)).state).toBe('quoted');

      clock.nowMs = Date.parse(validThrough);
      expect(await t.inbox.jobs.runDue()).toBe(1);
      const item = await getItem(t, id);
      expect(item.state).toBe('expired');
      expect(item.closedAt).toBe(validThrough.replace('Z', '.000Z'));
      expect(lastEvent(item)).toMatchObject({ type: 'quote_request.expire', toState: 'expired', by: { kind: 'system' }, channel: 'system' });
    });

    it('moves the expiry when the owner re-quotes, so the first date no longer expires it', async () => {
      const first = '2026-11-30T18:00:00Z';
      const second = '2026-12-07T18:00:00Z';
      const id = await quoted(first);
      clock.advance(DAY);
      await transition(t, id, 'quote', { totalPrice: 28_000, validThrough: second }, 'quoted');
      expect(await onlyJobFor(t, id)).toMatchObject({ runAt: Date.parse(second), status: 'pending' });

      clock.nowMs = Date.parse(first) + HOUR;
      expect(await t.inbox.jobs.runDue()).toBe(0);
      expect((await getItem(t, id)).state).toBe('quoted');

      clock.nowMs = Date.parse(second);
      expect(await t.inbox.jobs.runDue()).toBe(1);
      expect((await getItem(t, id)).state).toBe('expired');
    });

    it('keeps a re-quote that lands while the old expiry job is leased', async () => {
      const first = '2026-11-30T18:00:00Z';
      const second = '2026-12-07T18:00:00Z';
      const id = await quoted(first);
      // A runner leases the job at the first date; before it runs it, the owner re-quotes.
      clock.nowMs = Date.parse(first);
      const [leased] = await t.inbox.store.jobs.claimDue(clock.now(), MINUTE, 10);
      expect(leased?.payload.itemId).toBe(id);
      await transition(t, id, 'quote', { totalPrice: 28_000, validThrough: second }, 'quoted');
      // The leased run finds the quote still valid and ends quietly, as the runner would.
      await t.inbox.store.jobs.finish(leased!.id, clock.now());

      expect(await onlyJobFor(t, id)).toMatchObject({ runAt: Date.parse(second), status: 'pending' });
      clock.nowMs = Date.parse(second);
      expect(await t.inbox.jobs.runDue()).toBe(1);
      expect((await getItem(t, id)).state).toBe('expired');
    });
  });

  describe('a crashed runner', () => {
    it('takes a job again once the lease of the process that crashed runs out', async () => {
      const id = await createConfirmedBooking(t);
      clock.nowMs = CUT_END_MS + 48 * HOUR;
      const claimed = await t.inbox.store.jobs.claimDue(clock.now(), 60_000, 10);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ status: 'running', attempts: 1 });
      // ...and that process dies without finishing.

      clock.advance(60_000);
      expect(await t.inbox.jobs.runDue()).toBe(0);
      expect((await getItem(t, id)).state).toBe('confirmed');
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'running' });

      clock.advance(1);
      expect(await t.inbox.jobs.runDue()).toBe(1);
      expect((await getItem(t, id)).state).toBe('completed');
      expect(await onlyJobFor(t, id)).toMatchObject({ status: 'done', attempts: 2 });
    });
  });
});

describe('a restart', () => {
  const started: TestInbox[] = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) await s.close();
  });

  async function waitForState(t: TestInbox, id: string, state: string, timeoutMs = 5_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = await getItem(t, id);
      if (item.state === state) return item;
      if (Date.now() > deadline) throw new Error(`item ${id} still ${item.state} after ${timeoutMs} ms, not ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('runs what fell due while the inbox was down, from the background loop of the new process', async () => {
    const clock = new TestClock();
    const first = await startInbox({ clock, runJobs: true });
    const id = await createConfirmedBooking(first);
    await first.close({ removeData: false });

    clock.nowMs = CUT_END_MS + 48 * HOUR + 3 * DAY; // downtime
    const second = await startInbox({ clock, dataDir: first.dataDir, runJobs: true });
    started.push(second);
    const item = await waitForState(second, id, 'completed');
    expect(lastEvent(item)).toMatchObject({ type: 'booking.complete', by: { kind: 'system' }, channel: 'system' });
    expect(await onlyJobFor(second, id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('takes over a job the crashed process had leased, once the lease runs out', async () => {
    const clock = new TestClock();
    const first = await startInbox({ clock, runJobs: false });
    const id = await createConfirmedBooking(first);
    clock.nowMs = CUT_END_MS + 48 * HOUR;
    expect(await first.inbox.store.jobs.claimDue(clock.now(), 60_000, 10)).toHaveLength(1);
    await first.close({ removeData: false }); // dies holding the lease

    const second = await startInbox({ clock, dataDir: first.dataDir, runJobs: true });
    started.push(second);
    await new Promise((resolve) => setTimeout(resolve, 200)); // several polls while the lease still holds
    expect((await getItem(second, id)).state).toBe('confirmed');

    clock.advance(60_001);
    await waitForState(second, id, 'completed');
    expect(await onlyJobFor(second, id)).toMatchObject({ status: 'done', attempts: 2 });
  });
});

describe('JobRunner', () => {
  let dir: string;
  let store: InboxStore;
  let clock: TestClock;
  let logged: string[];
  const log = (message: string): void => {
    logged.push(message);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inbox-jobs-'));
    store = await openInboxStore(storageTarget(await testDatabaseUrl('inbox', dir), join(dir, 'inbox.sqlite'), 'INBOX_DATABASE_URL'));
    clock = new TestClock();
    logged = [];
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase('inbox', dir);
  });

  async function enqueue(kind: string, payload: Record<string, unknown> = {}, runAt = clock.now()): Promise<string> {
    const id = `job-${kind}-${runAt}`;
    await store.jobs.enqueue({ id, kind, payload, runAt, dedupeKey: null }, clock.now());
    return id;
  }

  it('reports the lag of the longest-waiting job, and prunes finished jobs after a week and failed ones after a month', async () => {
    const due = await enqueue('test.ok', {}, clock.now() - 30_000);
    expect(await store.jobs.oldestDueAt(clock.now())).toBe(clock.now() - 30_000);
    const runner = new JobRunner(store, clock, { 'test.ok': async () => undefined, 'test.fail': async () => Promise.reject(new Error('down')) }, log, { maxAttempts: 1 });
    const failing = await enqueue('test.fail', {}, clock.now() - 1);
    await runner.runDue();
    expect(await store.jobs.oldestDueAt(clock.now())).toBeNull();
    expect((await job(due)).status).toBe('done');
    expect((await job(failing)).status).toBe('dead');

    clock.advance(8 * 86_400_000);
    await runner.runDue();
    const left = (await store.jobs.list()).map((j) => j.id);
    expect(left).not.toContain(due);
    expect(left).toContain(failing);

    clock.advance(23 * 86_400_000);
    await runner.runDue();
    expect((await store.jobs.list()).map((j) => j.id)).not.toContain(failing);
  });

  async function job(id: string): Promise<JobRecord> {
    const found = (await store.jobs.list()).find((j) => j.id === id);
    expect(found).toBeDefined();
    return found as JobRecord;
  }

  it('retries a failing handler with backoff and buries it after maxAttempts', async () => {
    let calls = 0;
    const failing: JobHandler<InboxStore> = async () => {
      calls += 1;
      throw new Error(`boom ${calls}`);
    };
    const runner = new JobRunner(store, clock, { 'test.fail': failing }, log, { maxAttempts: 3 });
    const id = await enqueue('test.fail');
    const start = clock.now();

    expect(await runner.runDue()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 1, runAt: start + 30_000, lastError: 'boom 1' });
    expect(await runner.runDue()).toBe(0);

    clock.nowMs = start + 30_000 - 1;
    expect(await runner.runDue()).toBe(0);
    clock.nowMs = start + 30_000;
    expect(await runner.runDue()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 2, runAt: start + 90_000, lastError: 'boom 2' });

    clock.nowMs = start + 90_000;
    expect(await runner.runDue()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'dead', attempts: 3, lastError: 'boom 3' });

    clock.advance(30 * DAY);
    expect(await runner.runDue()).toBe(0);
    expect(calls).toBe(3);
    expect(logged).toHaveLength(3);
    expect(logged[2]).toContain(`job test.fail ${id} failed (attempt 3)`);
  });

  it('doubles the backoff up to six hours', async () => {
    const runner = new JobRunner(store, clock, { 'test.fail': async () => Promise.reject(new Error('down')) }, log, { maxAttempts: 20 });
    const id = await enqueue('test.fail');
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      expect(await runner.runDue()).toBe(1);
      const after = await job(id);
      delays.push(after.runAt - clock.now());
      clock.nowMs = after.runAt;
    }
    const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((n) => n * 30_000);
    expect(delays).toEqual([...expected, 6 * HOUR, 6 * HOUR]);
  });

  it('rolls back what a failing handler wrote, and finishes once it succeeds', async () => {
    let calls = 0;
    const flaky: JobHandler<InboxStore> = async (_job, tx) => {
      calls += 1;
      await tx.jobs.enqueue({ id: `side-${calls}`, kind: 'test.side', payload: {}, runAt: clock.now() + DAY, dedupeKey: null }, clock.now());
      if (calls === 1) throw new Error('transient');
    };
    const runner = new JobRunner(store, clock, { 'test.flaky': flaky }, log, { maxAttempts: 3 });
    const id = await enqueue('test.flaky');

    expect(await runner.runDue()).toBe(1);
    expect(await store.jobs.list('test.side')).toEqual([]);
    clock.advance(30_000);
    expect(await runner.runDue()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'done', attempts: 2 });
    expect((await store.jobs.list('test.side')).map((j) => j.id)).toEqual(['side-2']);
  });

  it('keeps a job its own handler scheduled again under the same dedupe key', async () => {
    let calls = 0;
    const recurring: JobHandler<InboxStore> = async (j, tx) => {
      calls += 1;
      await tx.jobs.enqueue({ id: `r-${calls}`, kind: j.kind, payload: {}, runAt: clock.now() + HOUR, dedupeKey: 'recurring' }, clock.now());
    };
    const runner = new JobRunner(store, clock, { 'test.recurring': recurring }, log);
    await store.jobs.enqueue({ id: 'r-0', kind: 'test.recurring', payload: {}, runAt: clock.now(), dedupeKey: 'recurring' }, clock.now());

    expect(await runner.runDue()).toBe(1);
    expect(await job('r-0')).toMatchObject({ status: 'pending', runAt: clock.now() + HOUR, attempts: 0 });
    clock.advance(HOUR);
    expect(await runner.runDue()).toBe(1);
    expect(calls).toBe(2);
  });

  it('cancels a pending job by its dedupe key; queued again, it runs', async () => {
    const batch = (runAt: number) => store.jobs.enqueue({ id: `b-${runAt}`, kind: 'test.batch', payload: {}, runAt, dedupeKey: 'batch' }, clock.now());
    await batch(clock.now() + 30_000);
    expect(await store.jobs.cancel('batch', clock.now())).toBe(true);
    expect(await store.jobs.cancel('batch', clock.now())).toBe(false);
    const runner = new JobRunner(store, clock, { 'test.batch': async () => undefined }, log);
    clock.advance(HOUR);
    expect(await runner.runDue()).toBe(0);
    expect((await store.jobs.list('test.batch'))[0]).toMatchObject({ status: 'cancelled' });
    // Queued again, a cancelled job runs.
    await batch(clock.now());
    expect(await runner.runDue()).toBe(1);
  });

  it('buries a job nobody handles at once', async () => {
    const runner = new JobRunner(store, clock, {}, log, { maxAttempts: 3 });
    const id = await enqueue('test.unknown');
    expect(await runner.runDue()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'dead', attempts: 1, lastError: 'no handler for test.unknown' });
  });

  it('runs more due jobs than one batch holds in one pass, each once, in due order', async () => {
    const seen: number[] = [];
    const runner = new JobRunner(store, clock, { 'test.ok': async (j) => void seen.push(Number(j.payload.n)) }, log, { batchSize: 2 });
    for (let n = 4; n >= 0; n--) await enqueue('test.ok', { n }, clock.now() - n * MINUTE);
    const [a, b] = await Promise.all([runner.runDue(), runner.runDue()]);
    expect(a).toBe(5);
    expect(b).toBe(5);
    expect(seen).toEqual([4, 3, 2, 1, 0]);
  });
});
