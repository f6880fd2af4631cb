/** New outbox rows and the retry schedule they follow (inbox spec §6 "Retries"). */
import type { WebhookDeliveryRecord } from '../../store/webhook-store.js';

/** When each attempt is made, after the one before: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_DELAYS_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;
/** Each delay moves by up to a tenth either way, so failed receivers are not hit in lockstep. */
export const RETRY_JITTER = 0.1;

/**
 * When attempt `attemptsMade + 1` is due after a failure at `failedAtMs`; null when no attempt is
 * left. `random` is in [0, 1).
 */
export function nextAttemptAt(attemptsMade: number, maxAttempts: number, failedAtMs: number, random: number = Math.random()): number | null {
  if (attemptsMade >= maxAttempts) return null;
  const delay = RETRY_DELAYS_MS[Math.min(attemptsMade, RETRY_DELAYS_MS.length - 1)] ?? 0;
  return failedAtMs + Math.round(delay * (1 + RETRY_JITTER * (2 * random - 1)));
}

export function newDeliveryRecord(fields: {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  itemId: string | null;
  nowMs: number;
  body?: string | null;
  maxAttempts?: number;
}): WebhookDeliveryRecord {
  return {
    id: fields.id,
    endpointId: fields.endpointId,
    eventId: fields.eventId,
    eventType: fields.eventType,
    itemId: fields.itemId,
    status: 'pending',
    attempts: 0,
    maxAttempts: fields.maxAttempts ?? MAX_ATTEMPTS,
    nextAttemptAt: fields.nowMs,
    leaseUntil: null,
    responseCode: null,
    durationMs: null,
    lastError: null,
    lastAttemptAt: null,
    body: fields.body ?? null,
    createdAt: fields.nowMs,
    updatedAt: fields.nowMs,
  };
}
