/**
 * Endpoint health (inbox spec §3 "Webhook endpoint states"): any success ends a run of failures;
 * an endpoint whose failures have run for five days with no success becomes inactive, is kept,
 * and its pending deliveries end as failed so they can be replayed once it is re-enabled.
 */
import type { InboxStore } from '../../store/store.js';
import type { AttemptOutcome } from '../../store/webhook-store.js';

export const DEACTIVATE_AFTER_MS = 5 * 86_400_000;

/** Applies attempt outcomes (in the order they happened) to their endpoints, inside the caller's transaction. */
export async function applyEndpointHealth(store: InboxStore, outcomes: readonly AttemptOutcome[]): Promise<void> {
  const byEndpoint = new Map<string, AttemptOutcome[]>();
  for (const outcome of outcomes) byEndpoint.set(outcome.endpointId, [...(byEndpoint.get(outcome.endpointId) ?? []), outcome]);
  // The common case, only successes, needs no read: one statement clears any failure run.
  const onlySucceeded = [...byEndpoint].filter(([, list]) => list.every((o) => o.succeeded)).map(([id]) => id);
  if (onlySucceeded.length > 0) await store.webhooks.clearFailureRuns(onlySucceeded, Math.max(...outcomes.map((o) => o.attemptedAt)));
  for (const [endpointId, list] of byEndpoint) {
    if (list.every((o) => o.succeeded)) continue;
    const endpoint = await store.webhooks.getEndpoint(endpointId);
    if (!endpoint) continue;
    const next = { ...endpoint };
    for (const outcome of [...list].sort((a, b) => a.attemptedAt - b.attemptedAt)) {
      if (outcome.succeeded) {
        next.failingSince = null;
        continue;
      }
      next.lastError = outcome.error;
      next.lastErrorAt = outcome.attemptedAt;
      next.failingSince ??= outcome.attemptedAt;
    }
    const deactivate = next.active && next.failingSince !== null && list.some((o) => !o.succeeded && o.attemptedAt - (next.failingSince as number) >= DEACTIVATE_AFTER_MS);
    if (deactivate) {
      const at = Math.max(...list.map((o) => o.attemptedAt));
      next.active = false;
      next.disabledAt = at;
      next.updatedAt = at;
    }
    const changed = next.failingSince !== endpoint.failingSince || next.lastError !== endpoint.lastError || next.lastErrorAt !== endpoint.lastErrorAt || deactivate;
    if (changed) await store.webhooks.updateEndpoint(next);
    if (deactivate) {
      await store.webhooks.failPending(endpointId, `the endpoint was deactivated after five days of failures: ${next.lastError ?? ''}`.trim(), next.disabledAt as number);
    } else if (!next.active && list.some((o) => !o.succeeded && o.nextAttemptAt !== null)) {
      // An attempt that was in flight when the endpoint became inactive ends failed like the others.
      await store.webhooks.failPending(endpointId, 'the endpoint is inactive', Math.max(...list.map((o) => o.attemptedAt)));
    }
  }
}
