/**
 * Webhook endpoints and the delivery outbox. Deliveries are written in the same transaction as their
 * event; listeners in this process hear of them only after that transaction commits (the
 * OutboxSignal is flushed by KyselyInboxStore.transaction); other processes find them by polling.
 * Due deliveries are read endpoint by endpoint, on SQLite (one process sends, holding what it took in
 * memory) and claimed with a lease on PostgreSQL (several processes send; FOR UPDATE SKIP LOCKED,
 * docs/storage.md). No business rules here.
 */
import { compileOnce, engineOf, rowsTable, slotsOf, type StorageEngine } from '@svc/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryFilter,
  DeliveryStatus,
  DueRead,
  PayloadStyle,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookStore,
} from '../webhook-store.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';

// Every recorded event reads the subscriptions and queues its deliveries: compiled once.
const activeSubscriptions = compileOnce((db: Kysely<Database>) => db.selectFrom('webhook_endpoints').select(['id', 'events']).where('active', '=', 1).orderBy('id'));
const DELIVERY_COLUMNS = [
  'id', 'endpoint_id', 'event_id', 'event_type', 'item_id', 'status', 'attempts', 'max_attempts', 'next_attempt_at', 'lease_until', 'response_code',
  'duration_ms', 'last_error', 'last_attempt_at', 'body', 'created_at', 'updated_at',
] as const satisfies readonly (keyof WebhookDeliveriesTable)[];
// The dispatcher reads each endpoint's due rows on SQLite (from a position: the start is one before
// every row), several times a second while it sends: compiled once. LIMIT is compiled as
// `cast(? as integer)` (guarded-dialect.ts), so the statement is prepared once.
const laneDue = compileOnce((db: Kysely<Database>, v: { endpointId: string; nowMs: number; afterDueAt: number; afterId: string; limit: number }) =>
  db
    .selectFrom('webhook_deliveries as d')
    .select(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event_type', 'd.item_id', 'd.attempts', 'd.max_attempts', 'd.next_attempt_at', 'd.body'])
    .where('d.endpoint_id', '=', v.endpointId)
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', v.nowMs)
    .where((eb) => eb(eb.refTuple('d.next_attempt_at', 'd.id'), '>', eb.tuple(v.afterDueAt, v.afterId)))
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', v.nowMs)]))
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(v.limit),
);
// The dispatcher's timer asks this when it has nothing due: compiled once.
const nextDue = compileOnce((db: Kysely<Database>, v: { nowMs: number }) =>
  db.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('next_attempt_at').as('at')).where('status', '=', 'pending').where('next_attempt_at', '>', v.nowMs),
);
const insertDelivery = compileOnce((db: Kysely<Database>, row: WebhookDeliveriesTable) => db.insertInto('webhook_deliveries').values(slotsOf(row, DELIVERY_COLUMNS)));

/** Tells listeners that deliveries were queued, once the transaction that queued them has ended. */
export class OutboxSignal {
  readonly #listeners = new Set<() => void>();
  #queued = false;

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  markQueued(): void {
    this.#queued = true;
  }

  /** After a root transaction; a rolled-back one only causes a harmless extra look. */
  flush(): void {
    if (!this.#queued) return;
    this.#queued = false;
    for (const listener of this.#listeners) listener();
  }
}

/** What dueDeliveries reads. */
interface ClaimedRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  item_id: string | null;
  attempts: number;
  max_attempts: number;
  next_attempt_at: number;
  body: string | null;
}

export class KyselyWebhookStore implements WebhookStore {
  readonly #db: Kysely<Database>;
  readonly #signal: OutboxSignal;
  readonly #inTransaction: boolean;
  readonly #engine: StorageEngine;

  constructor(db: Kysely<Database>, signal: OutboxSignal, inTransaction: boolean) {
    this.#db = db;
    this.#signal = signal;
    this.#inTransaction = inTransaction;
    this.#engine = engineOf(db);
  }

  get leasesDue(): boolean {
    return this.#engine === 'postgres';
  }

  async insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    await this.#db.insertInto('webhook_endpoints').values(endpointRow(endpoint)).execute();
  }

  async getEndpoint(id: string): Promise<WebhookEndpointRecord | null> {
    const row = await this.#db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? endpointFromRow(row) : null;
  }

  async getEndpoints(ids: readonly string[]): Promise<WebhookEndpointRecord[]> {
    if (ids.length === 0) return [];
    return (await this.#db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', [...ids]).execute()).map(endpointFromRow);
  }

  async listEndpoints(): Promise<WebhookEndpointRecord[]> {
    return (await this.#db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute()).map(endpointFromRow);
  }

  async activeEndpoints(): Promise<WebhookEndpointRecord[]> {
    const rows = await this.#db.selectFrom('webhook_endpoints').selectAll().where('active', '=', 1).orderBy('id').execute();
    return rows.map(endpointFromRow);
  }

  async updateEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    const { id, created_at: _created, ...changes } = endpointRow(endpoint);
    await this.#db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    await this.#db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    const result = await this.#db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async queueDeliveries(deliveries: WebhookDeliveryRecord[]): Promise<void> {
    if (deliveries.length === 0) return;
    // One compiled row insert each: an event reaches a handful of endpoints, and one SQL text serves any number.
    for (const delivery of deliveries) await insertDelivery.run(this.#db, deliveryRow(delivery));
    this.#signal.markQueued();
    if (!this.#inTransaction) this.#signal.flush();
  }

  async getDelivery(id: string): Promise<WebhookDeliveryRecord | null> {
    const row = await this.#db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? deliveryFromRow(row) : null;
  }

  async listDeliveries(filter: DeliveryFilter, page: { after?: string | undefined; limit: number }): Promise<WebhookDeliveryRecord[]> {
    let query = this.#db.selectFrom('webhook_deliveries').selectAll().orderBy('id', 'desc').limit(page.limit);
    if (filter.endpointId) query = query.where('endpoint_id', '=', filter.endpointId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (page.after) query = query.where('id', '<', page.after);
    return (await query.execute()).map(deliveryFromRow);
  }

  async deliveriesForEvents(endpointId: string, eventIds: readonly string[]): Promise<WebhookDeliveryRecord[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('event_id', 'in', [...eventIds])
      .execute();
    return rows.map(deliveryFromRow);
  }

  async requeueDelivery(id: string, nowMs: number, maxAttempts: number): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: nowMs, lease_until: null, max_attempts: maxAttempts, updated_at: nowMs })
      .where('id', '=', id)
      .execute();
    this.#signal.markQueued();
    if (!this.#inTransaction) this.#signal.flush();
  }

  async dueDeliveries(nowMs: number, read: DueRead, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = this.#engine === 'postgres' ? await this.#claimDue(nowMs, read, leaseMs) : await this.#readDue(nowMs, read);
    // The due order across endpoints (each endpoint's own order within it).
    rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return rows.map((r) => ({
      id: r.id,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      eventType: r.event_type,
      itemId: r.item_id,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      body: r.body,
      dueAt: Number(r.next_attempt_at),
    }));
  }

  async nextDueAfter(nowMs: number): Promise<number | null> {
    const row = await nextDue.first(this.#db, { nowMs });
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  /**
   * SQLite: one read per active endpoint not skipped (`laneDue`), in the index (endpoint, next
   * attempt, id) order from that endpoint's position. SQLite runs in this process: a read per
   * endpoint costs no round trip, and each is a seek to that endpoint's due rows.
   */
  async #readDue(nowMs: number, read: DueRead): Promise<ClaimedRow[]> {
    const skip = new Set(read.skip);
    const rows: ClaimedRow[] = [];
    for (const { id: endpointId } of await activeSubscriptions.all(this.#db, {})) {
      if (skip.has(endpointId)) continue;
      const from = read.after.get(endpointId) ?? { dueAt: Number.MIN_SAFE_INTEGER, id: '' };
      rows.push(...((await laneDue.all(this.#db, { endpointId, nowMs, afterDueAt: from.dueAt, afterId: from.id, limit: read.perEndpoint })) as ClaimedRow[]));
    }
    return rows;
  }

  /**
   * PostgreSQL: of each active endpoint not skipped, the first due rows nobody holds, leased to this
   * process in the same statement (one round trip; LATERAL takes each endpoint's rows on their own).
   * Rows another process is claiming are skipped, not waited for (SKIP LOCKED), and a leased row is not
   * due again until its lease runs out (the process died) or its outcome is recorded.
   */
  async #claimDue(nowMs: number, read: DueRead, leaseMs: number): Promise<ClaimedRow[]> {
    const { rows } = await sql<ClaimedRow>`
      UPDATE webhook_deliveries AS w SET lease_until = ${nowMs + leaseMs}
      FROM (
        SELECT x.id FROM webhook_endpoints AS e
        CROSS JOIN LATERAL (
          SELECT d.id FROM webhook_deliveries AS d
          WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ${nowMs} AND (d.lease_until IS NULL OR d.lease_until <= ${nowMs})
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${read.perEndpoint}
          FOR UPDATE OF d SKIP LOCKED
        ) AS x
        WHERE e.active = 1 AND e.id NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(read.skip)}::jsonb))
      ) AS due
      WHERE w.id = due.id
      RETURNING w.id, w.endpoint_id, w.event_id, w.event_type, w.item_id, w.attempts, w.max_attempts, w.next_attempt_at, w.body`.execute(this.#db);
    return rows;
  }

  async releaseDeliveries(ids: readonly string[]): Promise<void> {
    if (ids.length === 0 || this.#engine !== 'postgres') return;
    await this.#db.updateTable('webhook_deliveries').set({ lease_until: null }).where('id', 'in', [...ids]).where('status', '=', 'pending').execute();
  }

  async recordAttempts(outcomes: readonly AttemptOutcome[]): Promise<void> {
    // Successes share every value but code, duration and time: one statement for all of them, its
    // rows passed as one parameter (or one per column) so that the SQL text never changes.
    const successes = outcomes.filter((o) => o.succeeded);
    if (successes.length > 0) {
      const at = Math.max(...successes.map((o) => o.attemptedAt));
      const rows = rowsTable(
        this.#db,
        'o',
        [
          ['id', 'text'],
          ['code', 'integer'],
          ['ms', 'integer'],
          ['at', 'bigint'],
        ],
        successes.map((o) => [o.deliveryId, o.responseCode, o.durationMs, o.attemptedAt]),
      );
      await sql`
        UPDATE webhook_deliveries
        SET status = 'succeeded', attempts = attempts + 1, next_attempt_at = NULL, lease_until = NULL,
          response_code = o.code, duration_ms = o.ms, last_error = NULL, last_attempt_at = o.at, updated_at = ${at}
        FROM ${rows}
        WHERE webhook_deliveries.id = o.id`.execute(this.#db);
    }
    for (const o of outcomes.filter((o) => !o.succeeded)) {
      const status: DeliveryStatus = o.nextAttemptAt === null ? 'failed' : 'pending';
      await this.#db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status,
          attempts: eb('attempts', '+', 1),
          next_attempt_at: o.nextAttemptAt,
          lease_until: null,
          response_code: o.responseCode,
          duration_ms: o.durationMs,
          last_error: o.error,
          last_attempt_at: o.attemptedAt,
          updated_at: o.attemptedAt,
        }))
        .where('id', '=', o.deliveryId)
        .execute();
    }
  }

  async clearFailureRuns(endpointIds: readonly string[], nowMs: number): Promise<void> {
    if (endpointIds.length === 0) return;
    await this.#db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null, updated_at: nowMs })
      .where('id', 'in', [...endpointIds])
      .where('failing_since', 'is not', null)
      .execute();
  }

  async activeSubscriptions(): Promise<{ id: string; events: string[] }[]> {
    const rows = await activeSubscriptions.all(this.#db, {});
    return rows.map((r) => ({ id: r.id, events: JSON.parse(r.events) as string[] }));
  }

  async failPending(endpointId: string, reason: string, nowMs: number): Promise<number> {
    const result = await this.#db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, lease_until: null, last_error: reason, updated_at: nowMs })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async releaseLeases(): Promise<number> {
    // PostgreSQL: other processes hold live leases; a dead process's run out by themselves.
    if (this.#engine === 'postgres') return 0;
    const result = await this.#db.updateTable('webhook_deliveries').set({ lease_until: null }).where('lease_until', 'is not', null).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async pruneDeliveries(beforeMs: number): Promise<number> {
    const result = await this.#db.deleteFrom('webhook_deliveries').where('created_at', '<', beforeMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  onQueued(listener: () => void): () => void {
    return this.#signal.subscribe(listener);
  }
}

function endpointRow(e: WebhookEndpointRecord): WebhookEndpointsTable {
  return {
    id: e.id,
    url: e.url,
    events: JSON.stringify(e.events),
    payload_style: e.payloadStyle,
    header_names: JSON.stringify(e.headerNames),
    sealed_headers: JSON.stringify(e.sealedHeaders),
    sealed_secret: e.sealedSecret,
    sealed_previous_secret: e.sealedPreviousSecret,
    previous_secret_until: e.previousSecretUntil,
    active: e.active ? 1 : 0,
    disabled_at: e.disabledAt,
    last_error: e.lastError,
    last_error_at: e.lastErrorAt,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

function endpointFromRow(r: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord {
  return {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    payloadStyle: r.payload_style as PayloadStyle,
    headerNames: JSON.parse(r.header_names) as string[],
    sealedHeaders: JSON.parse(r.sealed_headers) as Record<string, string>,
    sealedSecret: r.sealed_secret,
    sealedPreviousSecret: r.sealed_previous_secret,
    previousSecretUntil: numberOrNull(r.previous_secret_until),
    active: r.active === 1,
    disabledAt: numberOrNull(r.disabled_at),
    lastError: r.last_error,
    lastErrorAt: numberOrNull(r.last_error_at),
    failingSince: numberOrNull(r.failing_since),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function deliveryRow(d: WebhookDeliveryRecord): WebhookDeliveriesTable {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    item_id: d.itemId,
    status: d.status,
    attempts: d.attempts,
    max_attempts: d.maxAttempts,
    next_attempt_at: d.nextAttemptAt,
    lease_until: d.leaseUntil,
    response_code: d.responseCode,
    duration_ms: d.durationMs,
    last_error: d.lastError,
    last_attempt_at: d.lastAttemptAt,
    body: d.body,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

function deliveryFromRow(r: Selectable<WebhookDeliveriesTable>): WebhookDeliveryRecord {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    itemId: r.item_id,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: numberOrNull(r.next_attempt_at),
    leaseUntil: numberOrNull(r.lease_until),
    responseCode: r.response_code,
    durationMs: r.duration_ms,
    lastError: r.last_error,
    lastAttemptAt: numberOrNull(r.last_attempt_at),
    body: r.body,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function numberOrNull(value: number | null): number | null {
  return value === null ? null : Number(value);
}
