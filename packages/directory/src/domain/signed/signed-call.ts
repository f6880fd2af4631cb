/**
 * Every call an inbox makes to the network (registration, the hourly ping, receipt publication) is
 * an HTTP Message Signature under profile svc-instance/1 (docs/signatures.md): checked against the
 * keys of the calling instance's own manifest, refused when replayed (each signature is remembered
 * in the database until its expiry plus a minute) or outside the clock window. A refusal is a
 * problem document naming the exact reason (`signature_error`); a 401 also says, in
 * Accept-Signature (RFC 9421 §5.1), what signature would be taken.
 */
import { INSTANCE_PROFILE, Problem, headerField, signatureProblem, verifyInstanceRequest, type HeaderSource } from '@svc/shared';
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
}

/** What a signature must look like here (sent with every 401 about a signature). */
export const ACCEPT_SIGNATURE = `svc=("@method" "@authority" "@path" "content-digest" "${INSTANCE_PROFILE.instanceHeader}");tag="${INSTANCE_PROFILE.tag}";alg="${INSTANCE_PROFILE.alg}"`;

export async function verifySignedCall(ctx: DirectoryContext, request: SignedCallRequest): Promise<SignedCaller> {
  const result = await verifyInstanceRequest(request, {
    lookupKey: ctx.instanceKeys.lookup,
    replayStore: ctx.store.replays,
    now: () => ctx.clock.now(),
    allowHttpInstance: ctx.settings.allowLocalInboxes,
  });
  if (result.ok) return { origin: result.instance, domain: new URL(result.instance).host, keyid: result.keyid };
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

/** A signed call for `origin` must come from that instance itself (403 not_allowed otherwise). */
export function requireCaller(caller: SignedCaller | undefined, origin: string, what: string): SignedCaller {
  if (!caller) throw new Problem('unauthorized', `${what} must be signed by the inbox (HTTP Message Signatures, profile ${INSTANCE_PROFILE.name}).`, { headers: { 'accept-signature': ACCEPT_SIGNATURE } });
  if (caller.origin !== origin) throw new Problem('not_allowed', `${what} for ${origin} must be signed by ${origin} itself; this call was signed by ${caller.origin}.`);
  return caller;
}
