/**
 * send_test_event's work: queue an `inbox.test` delivery leased to this call (so the dispatcher
 * leaves it alone), send it at once outside any transaction, record the outcome. It does not count
 * for the endpoint's health; a replay can send it again.
 */
import type { DomainContext } from '../domain/context.js';
import type { SecretBox } from '../domain/secrets/secret-box.js';
import type { Actor, Channel } from '../domain/types.js';
import { nextAttemptAt } from '../domain/webhooks/delivery-records.js';
import { deliveryView } from '../domain/webhooks/deliveries.js';
import { extraHeaders, loadEndpoint, signingSecrets } from '../domain/webhooks/endpoints.js';
import { newTestDelivery } from '../domain/webhooks/test-event.js';
import { DELIVERY_TIMEOUT_MS, sendSigned } from './attempt.js';

/** Longer than the send's timeout: nobody else takes the row while we wait. */
const TEST_LEASE_MS = 2 * DELIVERY_TIMEOUT_MS;

export async function sendTestEvent(
  ctx: DomainContext,
  deps: { secrets: SecretBox; allowLocal: boolean },
  endpointId: string,
  by: { actor: Actor; channel: Channel },
) {
  const { store, clock } = ctx;
  const { endpoint, delivery } = await store.transaction(async (tx) => {
    const found = await loadEndpoint({ store: tx, clock }, endpointId);
    const nowMs = clock.now();
    const record = { ...newTestDelivery(found, by, nowMs), leaseUntil: nowMs + TEST_LEASE_MS };
    await tx.webhooks.queueDeliveries([record]);
    return { endpoint: found, delivery: record };
  });
  const result = await sendSigned(
    {
      url: endpoint.url,
      webhookId: delivery.eventId,
      eventType: delivery.eventType,
      attempt: 1,
      body: delivery.body as string,
      secrets: signingSecrets(endpoint, deps.secrets, clock.now()),
      extraHeaders: extraHeaders(endpoint, deps.secrets),
      timestampSec: Math.floor(Date.now() / 1000),
    },
    deps.allowLocal,
  );
  const attemptedAt = clock.now();
  await store.webhooks.recordAttempts([
    { deliveryId: delivery.id, endpointId: endpoint.id, attemptedAt, ...result, nextAttemptAt: result.succeeded ? null : nextAttemptAt(1, 1, attemptedAt) },
  ]);
  const stored = await store.webhooks.getDelivery(delivery.id);
  return deliveryView(stored ?? delivery);
}
