/**
 * Talking to networks about customers (docs/identity.md "Passes and networks"): presenting passes and
 * keys, asking for a first-time customer's key, reporting outcomes. Every call is signed
 * (svc-instance/1 with the receipt key), capped at 3 s and 16 KiB, and fails open: a slow or failing
 * network never delays or refuses a customer. After three failures in a row a network is skipped for
 * a minute. A network's answer is outside data: only the fields the contract lists are kept.
 */
import { publicFetch, signInstanceRequest, type Ed25519PrivateJwk } from '@svc/shared';
import type { NetworkStatus, PersonStanding, PresentedPerson } from '../domain/identity/network-status.js';

export const PERSON_CALL = { timeoutMs: 3_000, maxBytes: 16 * 1024, failuresBeforePause: 3, pauseMs: 60_000 } as const;

export interface NetworkSigner {
  /** This instance's origin (Svc-Instance). */
  instance: string;
  privateJwk: Ed25519PrivateJwk;
  allowLocal: boolean;
  now: () => number;
}

const failures = new Map<string, { count: number; until: number }>();

function paused(origin: string, nowMs: number): boolean {
  const f = failures.get(origin);
  return f !== undefined && f.count >= PERSON_CALL.failuresBeforePause && nowMs < f.until;
}

function noteFailure(origin: string, nowMs: number): void {
  const f = failures.get(origin) ?? { count: 0, until: 0 };
  f.count += 1;
  if (f.count >= PERSON_CALL.failuresBeforePause) f.until = nowMs + PERSON_CALL.pauseMs;
  failures.set(origin, f);
}

/** A signed POST of JSON to a network; the status and parsed body, or throws (timeout, refused, not JSON). */
export async function signedPost(signer: NetworkSigner, origin: string, path: string, body: unknown, timeoutMs: number = PERSON_CALL.timeoutMs): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = `${origin}${path}`;
  const text = JSON.stringify(body);
  const headers = signInstanceRequest({ method: 'POST', url, body: text, instance: signer.instance, privateJwk: signer.privateJwk, now: signer.now, allowHttpInstance: signer.allowLocal });
  const answer = await publicFetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: text,
    timeoutMs,
    maxBytes: PERSON_CALL.maxBytes,
    allowLoopback: signer.allowLocal,
    allowHttp: signer.allowLocal,
  });
  let parsed: unknown = null;
  try {
    parsed = answer.body ? JSON.parse(answer.body) : null;
  } catch {
    parsed = null;
  }
  return { status: answer.status, body: typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {} };
}

const TIERS = ['new', 'building', 'trusted'];

/** The standing as the contract lists it, or null when the answer does not carry one. */
function standingOf(value: unknown): PersonStanding | null {
  const v = (value ?? {}) as Record<string, unknown>;
  const int = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null);
  const tier = typeof v.tier === 'string' && TIERS.includes(v.tier) ? (v.tier as PersonStanding['tier']) : null;
  const score = typeof v.score === 'number' && v.score >= 0 && v.score <= 1 ? v.score : null;
  const kept = int(v.kept);
  const broken = int(v.broken);
  const businesses = int(v.businesses);
  const since = typeof v.since === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v.since) ? v.since.slice(0, 10) : null;
  if (tier === null || score === null || kept === null || broken === null || businesses === null || since === null) return null;
  return { tier, score, kept, broken, businesses, since, email_proven: v.email_proven === true, unusual_use: v.unusual_use === true };
}

export type PresentationOutcome = { status: 'presented'; person: PresentedPerson } | { status: NetworkStatus };

/** Presents one pass, key or pass reference (with the agent's forwarded signature) to a network. */
export async function presentTo(signer: NetworkSigner, origin: string, body: Record<string, unknown>): Promise<PresentationOutcome> {
  const nowMs = signer.now();
  if (paused(origin, nowMs)) return { status: 'unreachable' };
  let answer: { status: number; body: Record<string, unknown> };
  try {
    answer = await signedPost(signer, origin, '/v1/presentations', body);
  } catch {
    noteFailure(origin, nowMs);
    return { status: 'unreachable' };
  }
  if (answer.status === 429) return { status: 'rate_limited' };
  if (answer.status !== 200) {
    noteFailure(origin, nowMs);
    return { status: 'unreachable' };
  }
  failures.delete(origin);
  const said = answer.body.status;
  if (said === 'unknown_pass' || said === 'revoked' || said === 'pass_requires_signature') return { status: said };
  const standing = standingOf(answer.body.person);
  const host = new URL(origin).host;
  if (said !== 'presented' || typeof answer.body.presentation_id !== 'string' || typeof answer.body.ppid !== 'string' || !standing) return { status: 'unreachable' };
  const person: PresentedPerson = { network: origin, ppid: answer.body.ppid.slice(0, 64), presentationId: answer.body.presentation_id.slice(0, 64), standing };
  // A pass made from a key must be this network's own.
  if (typeof answer.body.pass === 'string' && answer.body.pass.startsWith(`svcpass1_${host}_`) && answer.body.pass.length <= 200) person.pass = answer.body.pass;
  return { status: 'presented', person };
}
