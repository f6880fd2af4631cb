/**
 * The `inbox.test` event (inbox spec §6): a real, signed delivery to one endpoint that says nothing
 * was created. Its `data.id` names no item. Its body is fixed on the delivery row, since there is
 * no item to rebuild it from.
 */
import { newId } from '@svc/shared';
import { isoUtc } from '../time.js';
import type { Actor, Channel } from '../types.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../store/webhook-store.js';
import { newDeliveryRecord } from './delivery-records.js';

export const TEST_EVENT_TYPE = 'inbox.test';

/** `by`: who asked for the test and through which door; it carries them as every real event does (inbox spec §2). */
export function newTestDelivery(endpoint: WebhookEndpointRecord, by: { actor: Actor; channel: Channel }, nowMs: number): WebhookDeliveryRecord {
  const eventId = newId(nowMs);
  const body = JSON.stringify({
    id: eventId,
    type: TEST_EVENT_TYPE,
    timestamp: isoUtc(nowMs),
    test: true,
    data: {
      id: newId(nowMs),
      type: 'test',
      state: 'test',
      version: 0,
      url: null,
      actor: { kind: by.actor.kind, id: by.actor.id, name: by.actor.name },
      channel: by.channel,
      sandbox: true,
      test: true,
      human: 'This is a test event from your business inbox: nothing was created and no item has this id.',
    },
  });
  // One attempt: the owner is waiting for its answer; a replay can send it again.
  return newDeliveryRecord({ id: newId(nowMs), endpointId: endpoint.id, eventId, eventType: TEST_EVENT_TYPE, itemId: null, nowMs, body, maxAttempts: 1 });
}
