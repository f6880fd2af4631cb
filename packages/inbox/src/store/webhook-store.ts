/**
 * Storage seams for the event stream and webhooks (inbox spec §2 "Webhook endpoint and delivery",
 * §6): endpoints with sealed secrets, the delivery outbox, and the commit-ordered stream of events.
 * Domain types only; the Kysely implementation lives in store/kysely.
 */
import type { ItemEventRecord } from '../domain/types.js';

export type PayloadStyle = 'thin' | 'full';

export interface WebhookEndpointRecord {
  id: string;
  url: string;
  /** Subscription patterns: an exact type, `<item type>.*` or `*`. */
  events: string[];
  payloadStyle: PayloadStyle;
  /** Extra header names (lower case), in the order they were added. */
  headerNames: string[];
  /** Extra header values, each sealed with the SecretBox under its own name. */
  sealedHeaders: Record<string, string>;
  sealedSecret: string;
  /** The secret before the last rotation; signs too until `previousSecretUntil`. */
  sealedPreviousSecret: string | null;
  previousSecretUntil: number | null;
  active: boolean;
  disabledAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Start of the current run of failures (null after any success): five days of it deactivates. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * `pending`: waiting for its next attempt (the first, a retry or a replay); `succeeded`: a receiver
 * answered 2xx; `failed`: its attempts ran out (or its endpoint became inactive) and it is kept for replay.
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  /** The event's id, sent as `webhook-id` on every attempt. */
  eventId: string;
  eventType: string;
  itemId: string | null;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts allowed before `failed`: 8 on the schedule; a manual replay allows one more. */
  maxAttempts: number;
  nextAttemptAt: number | null;
  leaseUntil: number | null;
  responseCode: number | null;
  durationMs: number | null;
  lastError: string | null;
  lastAttemptAt: number | null;
  /** A body fixed at creation (test events, which have no item to rebuild from); null builds from the event. */
  body: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A delivery as claimed for sending: what an attempt needs, no more. */
export type ClaimedDelivery = Pick<WebhookDeliveryRecord, 'id' | 'endpointId' | 'eventId' | 'eventType' | 'itemId' | 'attempts' | 'maxAttempts' | 'body'> & {
  /** Where the delivery stands in the due order (a position to read on from). */
  dueAt: number;
};

/** A place in the due order: (next attempt, id). */
export interface DuePosition {
  dueAt: number;
  id: string;
}

/** Which endpoints' due deliveries to take, each endpoint on its own (docs/webhooks.md "The dispatcher"). */
export interface DueRead {
  /** At most this many deliveries of each endpoint. */
  perEndpoint: number;
  /** Endpoints to leave out (their sender has enough waiting). */
  skip: readonly string[];
  /** Where one process sends (SQLite): per endpoint, the position to read on from; from its start when absent. */
  after: ReadonlyMap<string, DuePosition>;
}

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  attemptedAt: number;
  succeeded: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  /** When to try again; null ends the delivery (succeeded, or failed when it did not succeed). */
  nextAttemptAt: number | null;
}

export interface DeliveryFilter {
  endpointId?: string | undefined;
  status?: DeliveryStatus | undefined;
}

/** Event types as the stream filters them: exact names and `<item type>.` prefixes, or everything. */
export interface TypeFilter {
  all: boolean;
  exact: string[];
  prefixes: string[];
}

export interface StreamEntry {
  position: number;
  event: ItemEventRecord;
}

export interface WebhookStore {
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  getEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  getEndpoints(ids: readonly string[]): Promise<WebhookEndpointRecord[]>;
  /** Oldest first. */
  listEndpoints(): Promise<WebhookEndpointRecord[]>;
  activeEndpoints(): Promise<WebhookEndpointRecord[]>;
  /** Ids and patterns of active endpoints: what recording an event needs, without the sealed parts. */
  activeSubscriptions(): Promise<{ id: string; events: string[] }[]>;
  updateEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Deletes the endpoint and its deliveries; false when there was none. */
  deleteEndpoint(id: string): Promise<boolean>;

  /** Writes outbox rows; the dispatcher is told once the surrounding transaction commits. */
  queueDeliveries(deliveries: WebhookDeliveryRecord[]): Promise<void>;
  getDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** Newest first, ids below `after`. */
  listDeliveries(filter: DeliveryFilter, page: { after?: string | undefined; limit: number }): Promise<WebhookDeliveryRecord[]>;
  /** The deliveries an endpoint already has for these events. */
  deliveriesForEvents(endpointId: string, eventIds: readonly string[]): Promise<WebhookDeliveryRecord[]>;
  /** Puts a delivery back in the queue on its own row: due now, `maxAttempts` allowed in total. */
  requeueDelivery(id: string, nowMs: number, maxAttempts: number): Promise<void>;
  /**
   * Due deliveries of active endpoints that no one has leased: of each endpoint not skipped, its first
   * `perEndpoint` in (next attempt, id) order, each endpoint read on its own (a long backlog of one is
   * never walked through to reach another's); all of them in (next attempt, id) order.
   * Where one process sends (`leasesDue` false: SQLite) it is a read from each endpoint's position in
   * `after`, and the dispatcher holds what it takes in memory; only a test send leases in the database.
   * Where several may (`leasesDue` true: PostgreSQL) it claims: what it returns is leased to this
   * process until `nowMs + leaseMs` and nobody else gets it meanwhile (`after` is not needed).
   */
  dueDeliveries(nowMs: number, read: DueRead, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** The earliest next attempt of a pending delivery later than `nowMs` (the dispatcher's timer), or null. */
  nextDueAfter(nowMs: number): Promise<number | null>;
  /** Whether dueDeliveries leases what it returns (several processes may send). */
  readonly leasesDue: boolean;
  /** Gives back deliveries taken and not sent (a stop): others may take them at once. */
  releaseDeliveries(ids: readonly string[]): Promise<void>;
  recordAttempts(outcomes: readonly AttemptOutcome[]): Promise<void>;
  /** A success ends the run of failures of these endpoints (only rows that had one are written). */
  clearFailureRuns(endpointIds: readonly string[], nowMs: number): Promise<void>;
  /** Ends every pending delivery of an endpoint as failed (it became inactive); they stay for replay. */
  failPending(endpointId: string, reason: string, nowMs: number): Promise<number>;
  /** Drops every lease (at start: the test send that held it is gone); none where several processes send, whose leases run out by themselves. */
  releaseLeases(): Promise<number>;
  /** Deletes deliveries created before `beforeMs`. */
  pruneDeliveries(beforeMs: number): Promise<number>;
  /** Calls `listener` after each commit that queued deliveries; returns an unsubscribe. */
  onQueued(listener: () => void): () => void;
}

export interface EventStreamStore {
  /** Puts a recorded event in the stream; call inside the event's write transaction. Its position is given as that transaction commits, in commit order. */
  append(event: ItemEventRecord): Promise<void>;
  /** Events after a position in position (commit) order. */
  read(query: { afterPosition: number; types: TypeFilter; sinceMs?: number | undefined; limit: number }): Promise<StreamEntry[]>;
  positionOf(eventId: string): Promise<number | null>;
  getEvent(eventId: string): Promise<ItemEventRecord | null>;
  getEvents(eventIds: readonly string[]): Promise<ItemEventRecord[]>;
}
