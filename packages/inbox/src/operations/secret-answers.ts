/**
 * Answers that show a secret once (a new key, a webhook signing secret). The runner keeps every
 * stored answer sealed; one marked here is replayed only to the principal that made the first
 * request (inbox spec §9: "a sealed secret in a stored answer is shown again only to whoever made
 * the first request"). The mark travels on the call's ResponseExtras object.
 */
import type { ResponseExtras } from '@svc/shared';

const answersWithSecret = new WeakSet<ResponseExtras>();

/** Call from a handler whose answer carries a secret shown only in that answer. */
export function markAnswerSecret(extras: ResponseExtras): void {
  answersWithSecret.add(extras);
}

export function isAnswerSecret(extras: ResponseExtras): boolean {
  return answersWithSecret.has(extras);
}
