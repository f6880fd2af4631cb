/**
 * Records one item event: the history row, its place in the stream, one outbox delivery per active
 * endpoint that subscribes to it, and the owner's notice when it needs them, all in the caller's
 * transaction. Nothing is sent here; the dispatcher is told after the commit (inbox spec §6 "sent
 * after the write has committed").
 */
import { newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { ItemEventRecord } from '../types.js';
import { newDeliveryRecord } from '../webhooks/delivery-records.js';
import { matchesAny } from './event-patterns.js';
import { keptRead } from '../kept-reads.js';
import { queueOwnerNotice } from '../notifications/owner-notices.js';

export async function recordEvent(ctx: DomainContext, event: ItemEventRecord): Promise<void> {
  await ctx.store.items.appendEvent(event);
  await ctx.store.eventStream.append(event);
  const endpoints = await keptRead(ctx.store, 'webhooks', () => ctx.store.webhooks.activeSubscriptions());
  const nowMs = ctx.clock.now();
  const deliveries = endpoints
    .filter((endpoint) => matchesAny(endpoint.events, event.type))
    .map((endpoint) =>
      newDeliveryRecord({ id: newId(nowMs), endpointId: endpoint.id, eventId: event.id, eventType: event.type, itemId: event.itemId, nowMs }),
    );
  await ctx.store.webhooks.queueDeliveries(deliveries);
  // The owner hears of what needs them by mail and push (docs/mail.md "The owner's notices").
  await queueOwnerNotice(ctx, event);
}
