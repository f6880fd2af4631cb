/**
 * Sends the delivery outbox (inbox spec §6): takes due deliveries, sends them concurrently
 * (bounded), records each outcome and schedules the next attempt. What it has taken and not yet
 * recorded is held in memory. On SQLite that is all: one process owns an inbox's data, and a process
 * that dies holds nothing, so its deliveries simply go again. On PostgreSQL several processes may
 * send, so the store also leases what it hands out (FOR UPDATE SKIP LOCKED): no two processes take
 * one delivery, and a dead process's deliveries go again when its lease runs out.
 *
 * Each endpoint has its own share (docs/webhooks.md "The dispatcher"): its deliveries are read,
 * queued and sent in a lane of their own, and a send slot always waits for it, so a receiver that
 * never answers (each send holding its slot for the ten-second timeout) delays only its own events.
 *
 * Timing: woken right after a commit that queued deliveries, and by a timer armed for the next
 * delivery due (a retry fires when it is due, not at the next poll). The one-second poll is only a
 * safety net, for rows other processes wrote and clocks that jumped.
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
  /** Deliveries in flight at once, beyond which only an endpoint's own share may start (ENDPOINT_OWN_SLOTS). */
  concurrency?: number;
  /** The safety net's poll; new work wakes the dispatcher and a timer fires for the next due delivery. */
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
/**
 * Sends an endpoint may always start, however many the others hold: its own share. A receiver that
 * never answers holds each of its slots for the whole timeout; whatever it holds, every other endpoint
 * keeps these. Small enough that ten busy endpoints stay within `concurrency` (10 × 4 < 64).
 */
export const ENDPOINT_OWN_SLOTS = 4;
/** The most one endpoint may have in flight, as a share of `concurrency`: a dead receiver takes at most half. */
const ENDPOINT_MAX_SHARE = 0.5;
/** setTimeout's longest delay (about 24.8 days); a later due time is armed again when this fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One endpoint's lane: what was taken for it and how much of it is out. */
interface Lane {
  /** Taken, not yet sent, in due order. */
  queue: Buffered[];
  inFlight: number;
  /** Taken and not yet recorded (queued, in flight, or waiting for the outcome's write). */
  held: number;
  /** Where one process sends (SQLite): where the last read of this endpoint stopped; null reads from its start. */
  readFrom: DuePosition | null;
  /** Its last read filled its page, or it was left out: more may be due in the database (a finished send then asks for a read). */
  mayHaveMore: boolean;
}

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
 * during a send. A lane's queue (at most twice an endpoint's share) drains in a few rounds of the
 * timeout, within it; an endpoint down to its own few slots may not, and what waits too long is let go
 * and claimed again later: never sent by two processes at once.
 */
export const DELIVERY_LEASE_MS = 60_000;

export class WebhookDispatcher {
  readonly #o: Required<DispatcherOptions>;
  /** The most one endpoint may have in flight (ENDPOINT_MAX_SHARE of `concurrency`, at least its own slots). */
  readonly #endpointMax: number;
  /** Deliveries read per endpoint at once: one read feeds many sends. */
  readonly #readPerEndpoint: number;
  readonly #inFlight = new Set<Promise<void>>();
  /** Outcomes waiting for their batched write. */
  readonly #recording = new Set<Promise<void>>();
  /** Per endpoint, in the order they are served (a lane that started a send goes to the back). */
  readonly #lanes = new Map<string, Lane>();
  /** Ids taken and not yet recorded, with their endpoint (queued, in flight, or waiting for their write): never taken twice. */
  readonly #held = new Map<string, string>();
  /** A read is under way: ids recorded meanwhile stay held until it is filtered (it may have seen them pending). */
  #reading = false;
  #recordedDuringRead: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** Armed for the next delivery due (a retry, a row another read found later): a retry goes when it is due. */
  #dueTimer: NodeJS.Timeout | null = null;
  #dueTimerAt = Number.POSITIVE_INFINITY;
  /** When the database was last asked for the next due time (at most once a poll interval). */
  #nextDueAskedAt = Number.NEGATIVE_INFINITY;
  /** The time the last read of due deliveries read up to: what fell due after it has not been looked for. */
  #readUpTo = Number.NEGATIVE_INFINITY;
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
    this.#endpointMax = Math.max(ENDPOINT_OWN_SLOTS, Math.floor(this.#o.concurrency * ENDPOINT_MAX_SHARE));
    this.#readPerEndpoint = this.#o.concurrency;
  }

  /** Starts sending: leases left in the database (a test send of a process that died) are dropped, then the queue is read at once. */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    const released = await this.#o.store.webhooks.releaseLeases();
    if (released > 0) this.#o.log(`webhooks: took back ${released} test deliveries left leased by an earlier process`);
    for (const lane of this.#lanes.values()) lane.readFrom = null;
    this.#nextDueAskedAt = Number.NEGATIVE_INFINITY;
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
    this.#disarm();
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    await this.#pumping?.catch(() => undefined);
    // Taken but never sent: let go, so a start (or another process) takes them again.
    const unsent = [...this.#lanes.values()].flatMap((lane) => lane.queue.splice(0).map((b) => b.delivery.id));
    this.#release(unsent);
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
   * Keeps each endpoint's sends going from its lane, and reads again for the lanes running low: one
   * read feeds many sends. When nothing more is due, arms the timer for the next delivery that will be.
   */
  async #claimAndSend(): Promise<number> {
    let claimed = 0;
    for (;;) {
      this.#launchQueued();
      if (this.#halted()) break;
      const batch = await this.#takeDue();
      if (batch === null) {
        await this.#armForNextDue();
        break;
      }
      if (batch.length === 0) continue;
      claimed += batch.length;
      try {
        await this.#prepare(batch);
      } catch (error) {
        this.#releaseLater(batch.map((d) => d.id));
        throw error;
      }
    }
    this.#launchQueued();
    return claimed;
  }

  /** Endpoints (secrets opened) and events of a batch, one read each however many deliveries share them; then queued in their lanes. */
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
      if (target) this.#lane(delivery.endpointId).queue.push({ ctx, delivery, target, cache, leaseEnds });
      // An endpoint deleted since the read took its deliveries with it.
      else this.#release([delivery.id]);
    }
  }

  /**
   * Reads each endpoint's due deliveries on its own, leaving out the lanes with enough waiting (so a
   * dead receiver's backlog is neither read again and again nor in another's way), and keeps what
   * nobody holds. Null when nothing new was found and every endpoint read was read to its end. From an
   * endpoint's start, the rows held (still pending until recorded) are read past too.
   */
  async #takeDue(): Promise<ClaimedDelivery[] | null> {
    const webhooks = this.#o.store.webhooks;
    const perEndpoint = this.#readPerEndpoint;
    const skip: string[] = [];
    const after = new Map<string, DuePosition>();
    for (const [endpointId, lane] of this.#lanes) {
      if (lane.queue.length >= this.#endpointMax) {
        skip.push(endpointId);
        lane.mayHaveMore = true;
      } else if (lane.readFrom) after.set(endpointId, lane.readFrom);
    }
    this.#reading = true;
    let rows: ClaimedDelivery[];
    try {
      this.#readUpTo = this.#o.clock.now();
      rows = await webhooks.dueDeliveries(this.#readUpTo, { perEndpoint, skip, after }, this.#o.leaseMs);
    } finally {
      this.#reading = false;
    }
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const row of rows) {
      const list = byEndpoint.get(row.endpointId);
      if (list) list.push(row);
      else byEndpoint.set(row.endpointId, [row]);
    }
    // A lane read but not answered has been read to its end.
    for (const [endpointId, lane] of this.#lanes) {
      if (skip.includes(endpointId) || byEndpoint.has(endpointId)) continue;
      lane.readFrom = null;
      lane.mayHaveMore = false;
    }
    const taken: ClaimedDelivery[] = [];
    let readOn = false;
    for (const [endpointId, list] of byEndpoint) {
      const lane = this.#lane(endpointId);
      let takenHere = 0;
      for (const d of list) {
        if (this.#held.has(d.id)) continue;
        this.#held.set(d.id, endpointId);
        lane.held += 1;
        taken.push(d);
        takenHere += 1;
      }
      const last = list.at(-1) as ClaimedDelivery;
      // A store that leases hands out only what nobody holds: it reads from the start each time.
      // One that reads goes on from the last row, or from the start once the end is reached
      // (rows committed late with an earlier time are found then).
      lane.readFrom = !webhooks.leasesDue && list.length === perEndpoint ? { dueAt: last.dueAt, id: last.id } : null;
      lane.mayHaveMore = list.length === perEndpoint;
      // Read on while that gets somewhere: a position moved on, or something new was taken (a lease
      // that ran out on a delivery still held here hands it out again; reading again would not help).
      if (lane.mayHaveMore && (lane.readFrom !== null || takenHere > 0)) readOn = true;
    }
    for (const id of this.#recordedDuringRead) this.#forget(id);
    this.#recordedDuringRead = [];
    this.#dropIdleLanes();
    if (taken.length === 0 && !readOn) return null;
    return taken;
  }

  #lane(endpointId: string): Lane {
    let lane = this.#lanes.get(endpointId);
    if (!lane) {
      lane = { queue: [], inFlight: 0, held: 0, readFrom: null, mayHaveMore: false };
      this.#lanes.set(endpointId, lane);
    }
    return lane;
  }

  /** Lanes holding nothing are forgotten (an endpoint paused or deleted leaves none behind); read again from their start. */
  #dropIdleLanes(): void {
    for (const [endpointId, lane] of this.#lanes) if (lane.held === 0 && lane.queue.length === 0) this.#lanes.delete(endpointId);
  }

  /** After a failure to record: sent again, but not at once (the database may need a moment). */
  #releaseLater(ids: readonly string[]): void {
    setTimeout(() => this.#release(ids), UNRECORDED_RETRY_MS).unref();
  }

  #release(ids: readonly string[]): void {
    if (this.#reading) this.#recordedDuringRead.push(...ids);
    else {
      for (const id of ids) this.#forget(id);
      this.#dropIdleLanes();
    }
  }

  #forget(id: string): void {
    const endpointId = this.#held.get(id);
    if (endpointId === undefined) return;
    this.#held.delete(id);
    const lane = this.#lanes.get(endpointId);
    if (lane) lane.held -= 1;
  }

  /** Stopped and not draining: nothing is taken or launched (stop() lets go of the queues). */
  #halted(): boolean {
    return this.#stopped && this.#draining === 0;
  }

  /**
   * An endpoint may start a send while it has fewer than its own slots out, whatever the others hold;
   * beyond that, while fewer than `concurrency` are out in all and it holds less than its maximum.
   */
  #mayStart(lane: Lane): boolean {
    if (lane.inFlight < ENDPOINT_OWN_SLOTS) return true;
    return lane.inFlight < this.#endpointMax && this.#inFlight.size < this.#o.concurrency;
  }

  /** Starts what the lanes may, one send per lane in turn, so that endpoints share the slots. */
  #launchQueued(): void {
    for (let started = true; started && !this.#halted(); ) {
      started = false;
      for (const [endpointId, lane] of [...this.#lanes]) {
        if (this.#halted()) return;
        if (lane.queue.length === 0 || !this.#mayStart(lane)) continue;
        const next = lane.queue.shift() as Buffered;
        started = true;
        if (this.#o.clock.now() + this.#o.timeoutMs >= next.leaseEnds) {
          // Its lease could run out during the send, and another process send it too: let it lapse.
          this.#release([next.delivery.id]);
          continue;
        }
        this.#launch(endpointId, lane, next);
      }
    }
  }

  #launch(endpointId: string, lane: Lane, next: Buffered): void {
    lane.inFlight += 1;
    // To the back of the turn: the next free slot goes to another endpoint first.
    this.#lanes.delete(endpointId);
    this.#lanes.set(endpointId, lane);
    const sending = this.#attempt(next.ctx, next.delivery, next.target, next.cache)
      .catch((error) => {
        this.#o.log('webhooks: an attempt could not be recorded', error);
        this.#releaseLater([next.delivery.id]);
      })
      .finally(() => {
        lane.inFlight -= 1;
        this.#inFlight.delete(sending);
        this.#launchQueued();
        // Read again only for a lane with more due than it took; new work and due retries wake the dispatcher themselves.
        if (lane.mayHaveMore && lane.queue.length < this.#endpointMax / 2) this.wake();
      });
    this.#inFlight.add(sending);
  }

  /**
   * Arms the timer for the earliest delivery due after the last read (one indexed read), asked at most once
   * a poll interval: this process's own retries arm it as their outcomes are written (#flush); the
   * read finds the others (due before a restart, written by another process).
   */
  async #armForNextDue(): Promise<void> {
    const nowMs = this.#o.clock.now();
    if (this.#stopped || nowMs - this.#nextDueAskedAt < this.#o.pollIntervalMs) return;
    this.#nextDueAskedAt = nowMs;
    // From where the round's last read stopped, not from now: a delivery that fell due in between
    // (two retries a few ms apart) would otherwise wait for the poll. One already due fires at once.
    const at = await this.#o.store.webhooks.nextDueAfter(Number.isFinite(this.#readUpTo) ? Math.min(this.#readUpTo, nowMs) : nowMs);
    if (at !== null) this.#armFor(at);
  }

  /** Wakes the dispatcher at `atMs` (by the injected clock), unless it is already woken earlier. */
  #armFor(atMs: number): void {
    if (this.#stopped || atMs >= this.#dueTimerAt) return;
    this.#disarm();
    this.#dueTimerAt = atMs;
    this.#dueTimer = setTimeout(
      () => {
        this.#dueTimer = null;
        this.#dueTimerAt = Number.POSITIVE_INFINITY;
        // One timer for the earliest only: the round it starts asks for the next due time, whatever the interval.
        this.#nextDueAskedAt = Number.NEGATIVE_INFINITY;
        this.wake();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, atMs - this.#o.clock.now())),
    );
    this.#dueTimer.unref();
  }

  #disarm(): void {
    if (this.#dueTimer) clearTimeout(this.#dueTimer);
    this.#dueTimer = null;
    this.#dueTimerAt = Number.POSITIVE_INFINITY;
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
      // Each retry is due at a time of its own: the timer goes off for the first.
      const retries = batch.map((b) => b.outcome.nextAttemptAt).filter((at): at is number => at !== null);
      if (retries.length > 0) this.#armFor(Math.min(...retries));
    } catch (error) {
      this.#releaseLater(batch.map((b) => b.outcome.deliveryId));
      for (const b of batch) b.fail(error);
    }
  }
}
