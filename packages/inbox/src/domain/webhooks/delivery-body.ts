/**
 * The bytes a delivery sends (inbox spec §6): a fixed body (test events), a thin transition event
 * rebuilt from its row (the same bytes on every attempt and replay), or a thin side event or any
 * full event rebuilt from the item as it stands now. A cache shares one build between the
 * endpoints of one event.
 */
import type { DomainContext } from '../context.js';
import { fullEnvelope, isTransitionEvent, thinEnvelope } from '../events/event-body.js';
import type { ItemEventRecord, ItemRecord } from '../types.js';
import type { PayloadStyle, WebhookDeliveryRecord } from '../../store/webhook-store.js';

export class BodyCache {
  readonly #events = new Map<string, Promise<ItemEventRecord | null>>();
  readonly #items = new Map<string, Promise<ItemRecord | null>>();
  readonly #bodies = new Map<string, Promise<string>>();

  /** Loads the events of many deliveries in one read. */
  async prefetchEvents(ctx: DomainContext, ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.#events.has(id));
    if (missing.length === 0) return;
    const loaded = await ctx.store.eventStream.getEvents(missing);
    const byId = new Map(loaded.map((event) => [event.id, event]));
    for (const id of missing) this.#events.set(id, Promise.resolve(byId.get(id) ?? null));
  }

  event(ctx: DomainContext, id: string): Promise<ItemEventRecord | null> {
    return memo(this.#events, id, () => ctx.store.eventStream.getEvent(id));
  }

  item(ctx: DomainContext, id: string): Promise<ItemRecord | null> {
    return memo(this.#items, id, () => ctx.store.items.get(id));
  }

  body(key: string, build: () => Promise<string>): Promise<string> {
    return memo(this.#bodies, key, build);
  }
}

function memo<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export class MissingEventError extends Error {}

export async function buildDeliveryBody(
  ctx: DomainContext,
  delivery: Pick<WebhookDeliveryRecord, 'body' | 'eventId'>,
  style: PayloadStyle,
  publicBaseUrl: string,
  cache: BodyCache = new BodyCache(),
): Promise<string> {
  if (delivery.body !== null) return delivery.body;
  return cache.body(`${delivery.eventId}|${style}`, async () => {
    const event = await cache.event(ctx, delivery.eventId);
    if (!event) throw new MissingEventError(`event ${delivery.eventId} no longer exists`);
    if (style === 'thin' && isTransitionEvent(event)) return JSON.stringify(thinEnvelope(event, publicBaseUrl));
    const item = await cache.item(ctx, event.itemId);
    if (!item) throw new MissingEventError(`item ${event.itemId} no longer exists`);
    return JSON.stringify(style === 'thin' ? thinEnvelope(event, publicBaseUrl, item) : await fullEnvelope(ctx, event, item, publicBaseUrl));
  });
}
