/**
 * One delivery attempt: the signed request (inbox spec §6 "Delivery", "Signature") sent through
 * the SSRF-safe publicFetch, and what came of it. Never throws for a receiver's failure.
 */
import { PublicFetchError, publicFetch } from '@svc/shared';
import { signatureHeader } from '../domain/webhooks/signing.js';

/** A receiver has ten seconds to answer (inbox spec §8). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** We read at most this much of an answer and stop there: only its status matters (a 2xx is a success whatever its body). */
const MAX_ANSWER_BYTES = 64 * 1024;
const ERROR_EXCERPT_CHARS = 200;
export const WEBHOOK_USER_AGENT = 'svc-inbox-webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface SignedRequest {
  url: string;
  webhookId: string;
  eventType: string;
  attempt: number;
  body: string;
  secrets: readonly string[];
  extraHeaders: Record<string, string>;
  /** Real Unix seconds: receivers compare the timestamp with their own clock. */
  timestampSec: number;
}

export interface AttemptResult {
  succeeded: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  return {
    ...request.extraHeaders,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': request.webhookId,
    'webhook-timestamp': String(request.timestampSec),
    'webhook-signature': signatureHeader(request.secrets, request.webhookId, request.timestampSec, request.body),
    'svc-event-type': request.eventType,
    'svc-delivery-attempt': String(request.attempt),
  };
}

export async function sendSigned(request: SignedRequest, allowLocal: boolean, timeoutMs: number = DELIVERY_TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const answer = await publicFetch(request.url, {
      method: 'POST',
      headers: deliveryHeaders(request),
      body: request.body,
      timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      overflow: 'truncate',
      allowLoopback: allowLocal,
      allowHttp: allowLocal,
    });
    if (answer.status >= 200 && answer.status < 300) return { succeeded: true, responseCode: answer.status, durationMs: elapsed(), error: null };
    const excerpt = answer.body.slice(0, ERROR_EXCERPT_CHARS).replace(/\s+/g, ' ').trim();
    return { succeeded: false, responseCode: answer.status, durationMs: elapsed(), error: `answered ${answer.status}${excerpt ? `: ${excerpt}` : ''}` };
  } catch (error) {
    const reason = error instanceof PublicFetchError ? error.reason : 'network';
    const message = error instanceof Error ? error.message : String(error);
    const redirect = reason === 'redirect' ? /answered (\d{3})/.exec(message) : null;
    return { succeeded: false, responseCode: redirect?.[1] ? Number(redirect[1]) : null, durationMs: elapsed(), error: `${reason}: ${message}`.slice(0, 300) };
  }
}
