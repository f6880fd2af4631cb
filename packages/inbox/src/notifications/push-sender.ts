/**
 * Sends one Web Push message (RFC 8030) to one browser: the payload encrypted to the browser's keys
 * (RFC 8291, aes128gcm) and a VAPID JWT (RFC 8292), both made by the web-push library; the request
 * itself goes through the SSRF-safe publicFetch (public addresses only, no redirects, a timeout), as
 * every other request to an address someone gave us. 404 and 410 mean the subscription is gone.
 */
import { PublicFetchError, publicFetch } from '@svc/shared';
import webpush from 'web-push';
import type { PushSubscriptionRecord } from '../store/notification-store.js';
import type { VapidKeys } from './vapid-keys.js';

const PUSH_TIMEOUT_MS = 10_000;
/** A push service keeps an undelivered message this long (a phone off for the night still gets the morning's news). */
const PUSH_TTL_SEC = 12 * 3_600;

export interface PushSettings {
  vapid: VapidKeys;
  /** The VAPID subject: how a push service reaches the operator (mailto: the sender address). */
  subject: string;
  /** Development and tests: endpoints on 127.0.0.1 over http. */
  allowLocal: boolean;
}

export type PushOutcome = { kind: 'sent'; status: number } | { kind: 'gone'; status: number } | { kind: 'failed'; status: number | null; error: string };

export async function sendPush(subscription: PushSubscriptionRecord, payload: string, settings: PushSettings, topic?: string): Promise<PushOutcome> {
  let details: { method: string; headers: Record<string, string | number>; body: Buffer | null; endpoint: string };
  try {
    details = webpush.generateRequestDetails({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, payload, {
      vapidDetails: { subject: settings.subject, publicKey: settings.vapid.publicKey, privateKey: settings.vapid.privateKey },
      TTL: PUSH_TTL_SEC,
      contentEncoding: 'aes128gcm',
      urgency: 'high',
      ...(topic ? { topic } : {}),
    }) as typeof details;
  } catch {
    // Keys the library cannot encrypt to: the subscription cannot work.
    return { kind: 'gone', status: 0 };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) headers[name.toLowerCase()] = String(value);
  try {
    const answer = await publicFetch(details.endpoint, {
      method: 'POST',
      headers,
      ...(details.body ? { body: details.body } : {}),
      timeoutMs: PUSH_TIMEOUT_MS,
      maxBytes: 16 * 1024,
      overflow: 'truncate',
      allowLoopback: settings.allowLocal,
      allowHttp: settings.allowLocal,
    });
    if (answer.status >= 200 && answer.status < 300) return { kind: 'sent', status: answer.status };
    if (answer.status === 404 || answer.status === 410) return { kind: 'gone', status: answer.status };
    return { kind: 'failed', status: answer.status, error: `answered ${answer.status}` };
  } catch (error) {
    const reason = error instanceof PublicFetchError ? error.reason : 'network';
    return { kind: 'failed', status: null, error: `${reason}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) };
  }
}
