/**
 * Deliveries as the owner sees them: lists (newest first), a replay of one delivery on its own row,
 * and a replay of the events an endpoint never received since an instant (inbox spec §4 rule 5).
 * A replay keeps the event's id, so receivers deduplicate on the same `webhook-id`.
 */
import { Problem, decodeCursor, encodeCursor, invalidField, newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import { typeFilterOf } from '../events/event-patterns.js';
import { isoUtc } from '../time.js';
import type { DeliveryStatus, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../store/webhook-store.js';
import { newDeliveryRecord } from './delivery-records.js';
import { loadEndpoint } from './endpoints.js';

/** At most this many events are read by one missing-events replay (inbox spec §8). */
export const REPLAY_SCAN_LIMIT = 500;

export function deliveryView(d: WebhookDeliveryRecord) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    webhook_id: d.eventId,
    event_type: d.eventType,
    item_id: d.itemId,
    status: d.status,
    attempts: d.attempts,
    response_code: d.responseCode,
    duration_ms: d.durationMs,
    last_error: d.lastError,
    next_attempt_at: d.status === 'pending' && d.nextAttemptAt !== null ? isoUtc(d.nextAttemptAt) : null,
    last_attempt_at: d.lastAttemptAt === null ? null : isoUtc(d.lastAttemptAt),
    created_at: isoUtc(d.createdAt),
  };
}

export async function listDeliveries(
  ctx: DomainContext,
  query: { endpointId?: string | undefined; status?: DeliveryStatus | undefined; after?: string | undefined; limit: number },
) {
  if (query.endpointId !== undefined) await loadEndpoint(ctx, query.endpointId);
  const rows = await ctx.store.webhooks.listDeliveries(
    { endpointId: query.endpointId, status: query.status },
    { after: query.after, limit: query.limit + 1 },
  );
  const page = rows.slice(0, query.limit);
  return { items: page.map(deliveryView), lastId: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null };
}

function requireActive(endpoint: WebhookEndpointRecord): void {
  if (!endpoint.active) {
    throw new Problem('wrong_state', 'The endpoint is inactive; re-enable it (PATCH {"active": true}) before replaying.');
  }
}

/** Sends one delivery again on its row: one more attempt, due now. */
export async function replayDelivery(ctx: DomainContext, deliveryId: string) {
  const delivery = await ctx.store.webhooks.getDelivery(deliveryId);
  if (!delivery) throw new Problem('not_found', `No delivery has id ${deliveryId}.`);
  requireActive(await loadEndpoint(ctx, delivery.endpointId));
  const nowMs = ctx.clock.now();
  const maxAttempts = delivery.status === 'pending' ? Math.max(delivery.maxAttempts, delivery.attempts + 1) : delivery.attempts + 1;
  await ctx.store.webhooks.requeueDelivery(delivery.id, nowMs, maxAttempts);
  return deliveryView({ ...delivery, status: 'pending', nextAttemptAt: nowMs, maxAttempts, leaseUntil: null });
}

/**
 * Queues every event the endpoint subscribes to, recorded since `sinceMs`, that it never received:
 * events without a delivery get one; failed deliveries get one more attempt on their row; pending
 * and succeeded ones are left alone, so asking again queues nothing new.
 */
export async function replayMissing(ctx: DomainContext, endpointId: string, request: { sinceMs: number; after?: string | undefined }) {
  const endpoint = await loadEndpoint(ctx, endpointId);
  requireActive(endpoint);
  const afterPosition = request.after === undefined ? 0 : decodeAfter(request.after);
  const entries = await ctx.store.eventStream.read({
    afterPosition,
    types: typeFilterOf(endpoint.events),
    sinceMs: request.sinceMs,
    limit: REPLAY_SCAN_LIMIT + 1,
  });
  const scanned = entries.slice(0, REPLAY_SCAN_LIMIT);
  const truncated = entries.length > REPLAY_SCAN_LIMIT;
  const existing = new Map(
    (await ctx.store.webhooks.deliveriesForEvents(endpoint.id, scanned.map((e) => e.event.id))).map((d) => [d.eventId, d]),
  );
  const nowMs = ctx.clock.now();
  const fresh: WebhookDeliveryRecord[] = [];
  let requeued = 0;
  for (const { event } of scanned) {
    const delivery = existing.get(event.id);
    if (!delivery) {
      fresh.push(newDeliveryRecord({ id: newId(nowMs), endpointId: endpoint.id, eventId: event.id, eventType: event.type, itemId: event.itemId, nowMs }));
    } else if (delivery.status === 'failed') {
      await ctx.store.webhooks.requeueDelivery(delivery.id, nowMs, delivery.attempts + 1);
      requeued += 1;
    }
  }
  await ctx.store.webhooks.queueDeliveries(fresh);
  const last = scanned[scanned.length - 1];
  return {
    queued: fresh.length + requeued,
    scanned: scanned.length,
    truncated,
    next_after: truncated && last ? encodeCursor({ p: last.position }) : null,
  };
}

function decodeAfter(after: string): number {
  try {
    return decodeCursor(
      after,
      (v): v is { p: number } => typeof v === 'object' && v !== null && Number.isSafeInteger((v as { p?: unknown }).p) && (v as { p: number }).p >= 0,
    ).p;
  } catch {
    throw invalidField('after', 'after is not a next_after this service gave out.');
  }
}
