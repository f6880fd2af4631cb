/**
 * Every call an inbox makes to the network (registration, the hourly ping, receipt publication) is
 * an HTTP Message Signature under profile svc-instance/1 (docs/signatures.md): checked against the
 * keys of the calling instance's own manifest, refused when replayed (each signature is remembered
 * in the database until its expiry plus a minute) or outside the clock window. A refusal is a
 * problem document naming the exact reason (`signature_error`); a 401 also says, in
 * Accept-Signature (RFC 9421 §5.1), what signature would be taken.
 */
import { INSTANCE_PROFILE, Problem, headerField, signatureProblem, verifyInstanceRequest, type HeaderSource, type ReplayOutcome, type ReplayStore } from '@svc/shared';
import type { DirectoryStore } from '../../store/store.js';
import type { DirectoryContext } from '../context.js';

export interface SignedCallRequest {
  method: string;
  /** This directory's public origin with the request's path and query: the signed @authority is ours, never the Host header. */
  url: URL;
  headers: HeaderSource;
  /** The body's bytes exactly as received. */
  body: Uint8Array;
}

/** The instance a call was verified to come from. */
export interface SignedCaller {
  /** Its origin, from the covered Svc-Instance header: `https://<domain>`. */
  origin: string;
  /** Its domain as registered (the origin's host). */
  domain: string;
  keyid: string;
  /** The signature's replay id and how long it is kept: recorded by the call's own transaction (takeSignature). */
  signature: { id: string; keepUntil: number };
}

/**
 * The replay step of verifyInstanceRequest, deferred: it notes what this signature would record,
 * and the call records it in the transaction that makes its change (takeSignature), so taking a
 * signature and what it changes commit together, in one write; a copy seen before is refused there,
 * with nothing changed.
 */
class DeferredReplay implements ReplayStore {
  pending: { id: string; keepUntil: number } | null = null;
  async remember(id: string, keepUntil: number): Promise<ReplayOutcome> {
    this.pending = { id, keepUntil };
    return 'new';
  }
}

/** What a signature must look like here (sent with every 401 about a signature). */
export const ACCEPT_SIGNATURE = `svc=("@method" "@authority" "@path" "content-digest" "${INSTANCE_PROFILE.instanceHeader}");tag="${INSTANCE_PROFILE.tag}";alg="${INSTANCE_PROFILE.alg}"`;

export async function verifySignedCall(ctx: DirectoryContext, request: SignedCallRequest): Promise<SignedCaller> {
  const replays = new DeferredReplay();
  const result = await verifyInstanceRequest(request, {
    lookupKey: ctx.instanceKeys.lookup,
    replayStore: replays,
    now: () => ctx.clock.now(),
    allowHttpInstance: ctx.settings.allowLocalInboxes,
  });
  if (result.ok) return { origin: result.instance, domain: new URL(result.instance).host, keyid: result.keyid, signature: replays.pending as { id: string; keepUntil: number } };
  let detail = result.detail;
  if (result.reason === 'unknown_key') {
    const instance = headerField(request.headers, INSTANCE_PROFILE.instanceHeader);
    const failure = instance === undefined ? null : ctx.instanceKeys.lastFailure(instance);
    detail = failure ? `${detail} Its manifest could not be read: ${failure}.` : `${detail} Publish it in the manifest's receipt_keys.`;
  }
  const problem = signatureProblem({ reason: result.reason, detail });
  if (problem.status !== 401 || problem.code === 'replayed_signature') throw problem;
  throw new Problem(problem.code, problem.message, { extensions: problem.extensions, headers: { ...problem.headers, 'accept-signature': ACCEPT_SIGNATURE } });
}

/** A call must be signed by an inbox; one about `origin` by that instance itself (403 not_allowed otherwise). */
export function requireCaller(caller: SignedCaller | undefined, origin: string | null, what: string): SignedCaller {
  if (!caller) throw new Problem('unauthorized', `${what} must be signed by the inbox (HTTP Message Signatures, profile ${INSTANCE_PROFILE.name}).`, { headers: { 'accept-signature': ACCEPT_SIGNATURE } });
  if (origin !== null && caller.origin !== origin) throw new Problem('not_allowed', `${what} for ${origin} must be signed by ${origin} itself; this call was signed by ${caller.origin}.`);
  return caller;
}

/**
 * Records the call's signature in the transaction that makes its change: of two copies of one
 * signature, one commits and the other is refused (401 replayed_signature) with nothing changed.
 * A call refused before it changes anything records nothing (sent again, it is refused again).
 */
export async function takeSignature(store: DirectoryStore, caller: SignedCaller, nowMs: number): Promise<void> {
  const outcome = await store.replays.remember(caller.signature.id, caller.signature.keepUntil, nowMs / 1000);
  if (outcome !== 'new') throw signatureProblem({ reason: 'replayed', detail: 'This signature was already used; sign each request anew.' });
}

/**
 * A signed call of a member inbox about its customers (the persons API, docs/identity.md): verified as
 * every signed instance call is, heard only from an instance this network verified, and its signature
 * taken at once in the same replay store (it survives a restart), since what such a call changes is
 * written by the persons domain in transactions of its own.
 */
export async function verifyMemberCall(ctx: DirectoryContext, request: SignedCallRequest): Promise<SignedCaller> {
  const caller = await verifySignedCall(ctx, request);
  const standing = await ctx.store.instances.standing(caller.domain);
  if (!standing || standing.verifiedAt === null) {
    throw new Problem(
      'wrong_state',
      standing
        ? `${caller.origin} is not verified yet; calls about persons are heard once the network has verified its manifest.`
        : `${caller.origin} is not an instance this network knows; register it first (POST /v1/instances).`,
    );
  }
  await takeSignature(ctx.store, caller, ctx.clock.now());
  return caller;
}
