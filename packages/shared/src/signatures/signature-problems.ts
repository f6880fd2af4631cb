/**
 * Signature failures as problem documents, with the catalogue's existing codes:
 * 400 bad_request (malformed, digest_mismatch), 401 replayed_signature (replayed),
 * 503 unavailable (replay_store_full) and 401 unauthorized for every other reason.
 * The precise reason is the extension member `signature_error`.
 */
import { Problem } from '../errors/problem.js';
import type { ProblemCode } from '../errors/problem-codes.js';
import type { SignatureFailure, SignatureFailureReason } from './instance-profile.js';

export const SIGNATURE_FAILURE_PROBLEMS: Readonly<Record<SignatureFailureReason, ProblemCode>> = {
  missing: 'unauthorized',
  malformed: 'bad_request',
  unknown_key: 'unauthorized',
  bad_signature: 'unauthorized',
  expired: 'unauthorized',
  too_far_in_future: 'unauthorized',
  replayed: 'replayed_signature',
  digest_mismatch: 'bad_request',
  component_missing: 'unauthorized',
  profile_mismatch: 'unauthorized',
  replay_store_full: 'unavailable',
};

/** Seconds a caller should wait when the replay store is full. */
export const REPLAY_STORE_FULL_RETRY_AFTER = 5;

export function signatureProblem(failure: Pick<SignatureFailure, 'reason' | 'detail'>): Problem {
  const code = SIGNATURE_FAILURE_PROBLEMS[failure.reason];
  const headers: Record<string, string> = failure.reason === 'replay_store_full' ? { 'Retry-After': String(REPLAY_STORE_FULL_RETRY_AFTER) } : {};
  return new Problem(code, failure.detail, { extensions: { signature_error: failure.reason }, headers });
}
