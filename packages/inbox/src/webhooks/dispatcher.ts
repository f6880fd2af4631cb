/**
 * Sends the delivery outbox (inbox spec §6): takes due deliveries, sends them concurrently
 * (bounded), records each outcome and schedules the next attempt. Woken right after a commit that
 * queued deliveries, and polling too, so a restart resumes whatever was left. What it has taken and
 * not yet recorded is held in memory. On SQLite that is all: one process owns an inbox's data, and a
 * process that dies holds nothing, so its deliveries simply go again. On PostgreSQL several
 * processes may send, so the store also leases what it hands out (FOR UPDATE SKIP LOCKED): no two
 * processes take one delivery, and a dead process's deliveries go again when its lease runs out.
 */
import { storageFailureKind } from '@svc/shared';
import type { DomainContext } from '../domain/context.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Clock } from '../domain/types.js';
import { nextAttemptAt } from '../domain/webhooks/delivery-records.js';
import { BodyCache, buildDeliveryBody } from '../domain/webhooks/delivery-body.js';
import { applyEndpointHealth } from '../domain/webhooks/endpoint-health.js';
import { extraHeaders, signingSecrets } from '../domain/webhooks/endpoints.js';
import { TEST_EVENT_TYPE } from '../domain/webhooks/test-event.js';
import type { InboxStore } from '../store/store.js';
import type { AttemptOutcome, ClaimedDelivery, DuePosition, WebhookEndpointRecord } from '../store/webhook-store.js';
import { DELIVERY_TIMEOUT_MS, sendSigned } from './attempt.js';

export interface DispatcherOptions {
  store: InboxStore;
  /** Schedules attempts and leases (tests move it). */
  clock: Clock;
  secrets: SecretBox;
  publicBaseUrl: string;
  /** Development: deliver over http to 127.0.0.1 (INBOX_ALLOW_LOCAL_WEBHOOKS). */
  allowLocal: boolean;
  log: (message: string, detail?: unknown) => void;
  /** Deliveries in flight at once. */
  concurrency?: number;
  pollIntervalMs?: number;
  timeoutMs?: number;
  /** Real Unix time for `webhook-timestamp`, which receivers compare with their own clocks. */
  wallClockMs?: () => number;
  /** Where the store leases what it hands out (PostgreSQL): for how long (DELIVERY_LEASE_MS; tests shorten it). */
  leaseMs?: number;
  random?: () => number;
}

/** Enough parallel sends to keep ten slow receivers busy without flooding the event loop. */
const DEFAULT_CONCURRENCY = 64;
const DEFAULT_POLL_MS = 1_000;
/** Free places that make a new read worth it. */
const CLAIM_AT_FREE_SLOTS = 8;
/** Taken plus in-flight deliveries, in multiples of `concurrency`: one read of ~190 rows costs far less than three of 64. */
const CLAIM_AHEAD = 4;

/** An endpoint as read at a claim, with its secrets and headers (opened once per process). */
interface SendTarget {
  endpoint: WebhookEndpointRecord;
  secrets: string[];
  headers: Record<string, string>;
}

interface Buffered {
  ctx: DomainContext;
  delivery: ClaimedDelivery;
  target: SendTarget;
  cache: BodyCache;
  /** When the store's lease of it ends (infinite where the store does not lease). */
  leaseEnds: number;
}
/** Opened sealed values kept (endpoints × their secrets and headers, with room for changes). */
const OPENED_CACHE_SIZE = 1_000;
/** How long an outcome may wait to share its write with others; the receiver already has the event. */
const RECORD_BATCH_MS = 20;
/** Outcomes written at once without waiting: a write costs about the same for 64 rows as for 256. */
const RECORD_BATCH_SIZE = 256;
/** A delivery whose outcome could not be written is sent again after this long. */
const UNRECORDED_RETRY_MS = 60_000;
/**
 * Where the store leases what it hands out (PostgreSQL): a process that died gives its deliveries to
 * the others after this long. A send starts only while more than its timeout is left of the lease
 * (else the delivery is let go: its lease lapses and it is claimed again), so a lease never runs out
 * during a send. A full buffer drains in about four rounds of the timeout, well within it.
 */
export const DELIVERY_LEASE_MS = 60_000;

export class WebhookDispatcher {
  readonly #o: Required<DispatcherOptions>;
  readonly #inFlight = new Set<Promise<void>>();
  /** Outcomes waiting for their batched write. */
  readonly #recording = new Set<Promise<void>>();
  /** Taken, not yet sent. */
  #buffer: Buffered[] = [];
  /** Ids taken and not yet recorded (buffered, in flight, or waiting for their write): never taken twice. */
  readonly #held = new Set<string>();
  /** Where the last read of the due order stopped; null reads from the start (after the end was reached). */
  #readFrom: DuePosition | null = null;
  /** A read is under way: ids recorded meanwhile stay held until it is filtered (it may have seen them pending). */
  #reading = false;
  #recordedDuringRead: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  #unsubscribe: (() => void) | null = null;
  #pumping: Promise<number> | null = null;
  #pumpAgain = false;
  #wakeScheduled = false;
  #stopped = true;
  #draining = 0;
  /** Sealed values already opened (secrets, header values): a sealed string always opens to the same value. */
  readonly #opened = new Map<string, string>();
  readonly #openOnce: Pick<SecretBox, 'open'> = {
    open: (sealed, purpose, rowId) => {
      const key = `${purpose}\u0000${rowId}\u0000${sealed}`;
      let value = this.#opened.get(key);
      if (value === undefined) {
        value = this.#o.secrets.open(sealed, purpose, rowId);
        // Rotations and header changes add values; old ones are simply forgotten now and then.
        if (this.#opened.size >= OPENED_CACHE_SIZE) this.#opened.clear();
        this.#opened.set(key, value);
      }
      return value;
    },
  };
  #pendingOutcomes: { outcome: AttemptOutcome; health: boolean; done: () => void; fail: (e: unknown) => void }[] = [];
  #flushScheduled = false;

  constructor(options: DispatcherOptions) {
    this.#o = {
      concurrency: DEFAULT_CONCURRENCY,
      pollIntervalMs: DEFAULT_POLL_MS,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      wallClockMs: () => Date.now(),
      random: Math.random,
      leaseMs: DELIVERY_LEASE_MS,
      ...options,
    };
  }

  /** Starts sending: leases left in the database (a test send of a process that died) are dropped, then the queue is read at once. */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    const released = await this.#o.store.webhooks.releaseLeases();
    if (released > 0) this.#o.log(`webhooks: took back ${released} test deliveries left leased by an earlier process`);
    this.#readFrom = null;
    this.#unsubscribe = this.#o.store.webhooks.onQueued(() => this.wake());
    this.#timer = setInterval(() => this.wake(), this.#o.pollIntervalMs);
    this.#timer.unref();
    this.wake();
  }

  /** Stops claiming and waits for sends in flight to be recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    await this.#pumping?.catch(() => undefined);
    // Taken but never sent: let go, so a start (or another process) takes them again.
    const unsent = this.#buffer.map((b) => b.delivery.id);
    for (const id of unsent) this.#held.delete(id);
    this.#buffer = [];
    await this.#o.store.webhooks.releaseDeliveries(unsent).catch((error: unknown) => this.#o.log('webhooks: unsent deliveries could not be released; their lease runs out', error));
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#recording]);
  }

  /** Looks for due deliveries soon (coalesced). */
  wake(): void {
    if (this.#halted() || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      // A wake-up scheduled just before a stop must not take anything: stop() has already let go of
      // what was taken and waits for nothing launched after it, so the delivery could go twice.
      if (this.#halted()) return;
      // A storage failure (the database away) is logged once by its StorageHealth, not at every poll.
      void this.#pump().catch((error: unknown) => storageFailureKind(error) === null && this.#o.log('webhooks: dispatch failed', error));
    });
  }

  /** Sends everything due now and waits until each outcome is recorded (tests and tools). */
  async drain(): Promise<void> {
    // While draining, finished sends wake further claims as they do when started.
    this.#draining += 1;
    try {
      for (;;) {
        const claimed = await this.#pump(true);
        if (claimed === 0 && this.#inFlight.size === 0 && this.#recording.size === 0 && !this.#pumping) return;
        await Promise.allSettled([...this.#inFlight, ...this.#recording]);
        await this.#pumping?.catch(() => 0);
      }
    } finally {
      this.#draining -= 1;
    }
  }

  /** One claiming round; a wake-up during a round asks for another instead of running beside it. */
  async #pump(waitForRound = false): Promise<number> {
    if (this.#pumping && !waitForRound) {
      this.#pumpAgain = true;
      return 0;
    }
    while (this.#pumping) await this.#pumping.catch(() => 0);
    this.#pumping = this.#claimAndSend().finally(() => {
      this.#pumping = null;
    });
    const claimed = await this.#pumping;
    if (this.#pumpAgain && !this.#halted()) {
      this.#pumpAgain = false;
      this.wake();
    }
    return claimed;
  }

  /**
   * Keeps up to `concurrency` sends in flight from a local buffer of taken deliveries, and reads
   * again only when the buffer runs low: one read feeds many sends.
   */
  async #claimAndSend(): Promise<number> {
    let claimed = 0;
    for (;;) {
      this.#launchBuffered();
      if (this.#halted()) break;
      const room = CLAIM_AHEAD * this.#o.concurrency - this.#buffer.length - this.#inFlight.size;
      if (this.#buffer.length >= this.#o.concurrency || room < CLAIM_AT_FREE_SLOTS) break;
      const batch = await this.#takeDue(room);
      if (batch === null) break;
      if (batch.length === 0) continue;
      claimed += batch.length;
      try {
        await this.#prepare(batch);
      } catch (error) {
        this.#releaseLater(batch.map((d) => d.id));
        throw error;
      }
    }
    this.#launchBuffered();
    return claimed;
  }

  /** Endpoints (secrets opened) and events of a batch, one read each however many deliveries share them; then buffered. */
  async #prepare(batch: readonly ClaimedDelivery[]): Promise<void> {
    const { store, clock } = this.#o;
    const ctx: DomainContext = { store, clock };
    const cache = new BodyCache();
    const nowMs = clock.now();
    // The store leased the batch at its read, a moment before now.
    const leaseEnds = store.webhooks.leasesDue ? nowMs + this.#o.leaseMs - 1_000 : Number.POSITIVE_INFINITY;
    const endpoints = new Map(
      (await store.webhooks.getEndpoints([...new Set(batch.map((d) => d.endpointId))])).map((endpoint) => [
        endpoint.id,
        { endpoint, secrets: signingSecrets(endpoint, this.#openOnce, nowMs), headers: extraHeaders(endpoint, this.#openOnce) },
      ]),
    );
    await cache.prefetchEvents(
      ctx,
      batch.filter((d) => d.body === null).map((d) => d.eventId),
    );
    for (const delivery of batch) {
      const target = endpoints.get(delivery.endpointId);
      if (target) this.#buffer.push({ ctx, delivery, target, cache, leaseEnds });
      // An endpoint deleted since the read took its deliveries with it.
      else this.#release([delivery.id]);
    }
  }

  /**
   * Reads on in the due order and keeps what nobody holds; null when the end was reached with nothing
   * new. From the start, the held rows (still pending until recorded) are read past too.
   */
  async #takeDue(room: number): Promise<ClaimedDelivery[] | null> {
    const webhooks = this.#o.store.webhooks;
    // A store that leases never hands out what is held; one that reads does, from the start.
    const fromStart = this.#readFrom === null && !webhooks.leasesDue;
    const limit = room + (fromStart ? this.#held.size : 0);
    this.#reading = true;
    let rows: ClaimedDelivery[];
    try {
      rows = await webhooks.dueDeliveries(this.#o.clock.now(), limit, this.#readFrom, this.#o.leaseMs);
    } finally {
      this.#reading = false;
    }
    const taken = rows.filter((d) => !this.#held.has(d.id));
    for (const d of taken) this.#held.add(d.id);
    for (const id of this.#recordedDuringRead) this.#held.delete(id);
    this.#recordedDuringRead = [];
    const last = rows.at(-1);
    // Rows committed late with an earlier time than the position are found when reading from the start.
    this.#readFrom = rows.length === limit && last ? { dueAt: last.dueAt, id: last.id } : null;
    if (taken.length === 0 && this.#readFrom === null) return null;
    return taken;
  }

  /** After a failure to record: sent again, but not at once (the database may need a moment). */
  #releaseLater(ids: readonly string[]): void {
    setTimeout(() => this.#release(ids), UNRECORDED_RETRY_MS).unref();
  }

  #release(ids: readonly string[]): void {
    if (this.#reading) this.#recordedDuringRead.push(...ids);
    else for (const id of ids) this.#held.delete(id);
  }

  /** Stopped and not draining: nothing is taken or launched (stop() lets go of the buffer). */
  #halted(): boolean {
    return this.#stopped && this.#draining === 0;
  }

  #launchBuffered(): void {
    while (!this.#halted() && this.#inFlight.size < this.#o.concurrency) {
      const next = this.#buffer.shift();
      if (!next) return;
      if (this.#o.clock.now() + this.#o.timeoutMs >= next.leaseEnds) {
        // Its lease could run out during the send, and another process send it too: let it lapse.
        this.#release([next.delivery.id]);
        continue;
      }
      const sending = this.#attempt(next.ctx, next.delivery, next.target, next.cache)
        .catch((error) => {
          this.#o.log('webhooks: an attempt could not be recorded', error);
          this.#releaseLater([next.delivery.id]);
        })
        .finally(() => {
          this.#inFlight.delete(sending);
          this.#launchBuffered();
          if (this.#buffer.length < this.#o.concurrency / 2) this.wake();
        });
      this.#inFlight.add(sending);
    }
  }

  async #attempt(ctx: DomainContext, delivery: ClaimedDelivery, target: SendTarget, cache: BodyCache): Promise<void> {
    const { endpoint } = target;
    const attempt = delivery.attempts + 1;
    let result;
    try {
      const body = await buildDeliveryBody(ctx, delivery, endpoint.payloadStyle, this.#o.publicBaseUrl, cache);
      result = await sendSigned(
        {
          url: endpoint.url,
          webhookId: delivery.eventId,
          eventType: delivery.eventType,
          attempt,
          body,
          secrets: target.secrets,
          extraHeaders: target.headers,
          timestampSec: Math.floor(this.#o.wallClockMs() / 1000),
        },
        this.#o.allowLocal,
        this.#o.timeoutMs,
      );
    } catch (error) {
      // Nothing was sent (the event or a sealed value could not be read): a failed attempt, recorded.
      result = { succeeded: false, responseCode: null, durationMs: 0, error: `not sent: ${error instanceof Error ? error.message : String(error)}` };
    }
    const attemptedAt = this.#o.clock.now();
    const outcome: AttemptOutcome = {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      attemptedAt,
      ...result,
      nextAttemptAt: result.succeeded ? null : nextAttemptAt(attempt, delivery.maxAttempts, attemptedAt, this.#o.random()),
    };
    // The slot is free once the receiver has answered; the outcome is written with others shortly.
    // A test send tells the owner about the receiver; it does not count for the endpoint's health.
    const recording = this.#record(outcome, delivery.eventType !== TEST_EVENT_TYPE)
      .catch((error) => this.#o.log('webhooks: an outcome could not be recorded; the delivery will go again', error))
      .finally(() => this.#recording.delete(recording));
    this.#recording.add(recording);
  }

  /** Outcomes that finish within a few milliseconds of each other are written in one transaction. */
  #record(outcome: AttemptOutcome, health: boolean): Promise<void> {
    return new Promise<void>((done, fail) => {
      this.#pendingOutcomes.push({ outcome, health, done, fail });
      if (this.#pendingOutcomes.length >= RECORD_BATCH_SIZE) {
        void this.#flush();
        return;
      }
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      setTimeout(() => {
        this.#flushScheduled = false;
        void this.#flush();
      }, RECORD_BATCH_MS);
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pendingOutcomes;
    this.#pendingOutcomes = [];
    if (batch.length === 0) return;
    try {
      await this.#o.store.transaction(async (tx) => {
        await tx.webhooks.recordAttempts(batch.map((b) => b.outcome));
        await applyEndpointHealth(
          tx,
          batch.filter((b) => b.health).map((b) => b.outcome),
        );
      });
      this.#release(batch.map((b) => b.outcome.deliveryId));
      for (const b of batch) b.done();
    } catch (error) {
      this.#releaseLater(batch.map((b) => b.outcome.deliveryId));
      for (const b of batch) b.fail(error);
    }
  }
}
