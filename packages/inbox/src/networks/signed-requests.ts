/**
 * What this inbox sends a network (docs/receipts.md "Signed instance requests"): every request an
 * RFC 9421 signature under profile svc-instance/1 (shared/signatures), made with the active receipt
 * key at the moment it goes out, so a retry is signed anew and a rotation takes effect at once. Calls
 * go through the SSRF-safe fetch, bounded in time and size. Answers are read tolerantly: a network's
 * answer is outside data.
 */
import { publicFetch, signInstanceRequest, type PublicFetchResult } from '@svc/shared';
import type { ReceiptSigning } from '../domain/receipts/signing-keys.js';
import type { Clock } from '../domain/types.js';
import type { InboxStore } from '../store/store.js';

const NETWORK_TIMEOUT_MS = 5_000;
const NETWORK_MAX_BYTES = 64 * 1024;

export interface NetworkReporting {
  /** This inbox's public origin; its host is the domain it registers. */
  publicBaseUrl: string;
  softwareVersion: string;
  /** Development: networks on 127.0.0.1 over http. Off by default. */
  allowLocalNetworks: boolean;
}

/** What a network call needs: where we are, who signs, and the store the active key is read from. */
export interface NetworkCaller {
  store: InboxStore;
  clock: Clock;
  reporting: NetworkReporting;
  signing: ReceiptSigning;
}

export function inboxDomain(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).host;
}

export function networkUrl(origin: string, path: string): string {
  return `${origin.replace(/\/$/, '')}${path}`;
}

/** A signed POST of a JSON body: exactly the bytes signed go out. */
export async function postSigned(caller: NetworkCaller, url: string, body: unknown): Promise<PublicFetchResult> {
  const text = JSON.stringify(body);
  const key = await caller.signing.keys.active(caller.store);
  const signature = signInstanceRequest({
    method: 'POST',
    url,
    body: text,
    instance: caller.signing.issuer,
    privateJwk: key.privateJwk,
    now: () => caller.clock.now(),
    // An inbox served over http (development on 127.0.0.1) names itself so; the network decides.
    allowHttpInstance: caller.signing.issuer.startsWith('http:'),
  });
  return publicFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signature },
    body: text,
    timeoutMs: NETWORK_TIMEOUT_MS,
    maxBytes: NETWORK_MAX_BYTES,
    allowLoopback: caller.reporting.allowLocalNetworks,
    allowHttp: caller.reporting.allowLocalNetworks,
  });
}

/** A plain GET (public reads such as our registration status need no signature). */
export async function getJson(caller: NetworkCaller, url: string): Promise<PublicFetchResult> {
  return publicFetch(url, {
    method: 'GET',
    headers: { accept: 'application/json' },
    timeoutMs: NETWORK_TIMEOUT_MS,
    maxBytes: NETWORK_MAX_BYTES,
    allowLoopback: caller.reporting.allowLocalNetworks,
    allowHttp: caller.reporting.allowLocalNetworks,
  });
}

export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** A problem document's code and detail, read tolerantly; null when the body is none. */
export function problemOf(body: string): { code: string; detail: string; signatureError: string | null } | null {
  const value = parseJson(body);
  if (value === null || typeof value !== 'object') return null;
  const doc = value as Record<string, unknown>;
  if (typeof doc.code !== 'string') return null;
  const text = (v: unknown) => (typeof v === 'string' ? withoutControls(v).slice(0, 300) : '');
  const signatureError = typeof doc.signature_error === 'string' ? text(doc.signature_error) : null;
  return { code: text(doc.code), detail: text(doc.detail) || text(doc.title), signatureError };
}

/** A network's words with C0 and C1 controls turned into spaces, so one line shows them safely. */
function withoutControls(text: string): string {
  return Array.from(text, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : c;
  }).join('');
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
