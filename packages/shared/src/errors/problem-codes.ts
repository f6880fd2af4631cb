/**
 * The one catalogue of problem codes both services answer with (inbox spec §7).
 * Each code has one HTTP status and one title; doors translate, never invent. A `description`, when
 * given, is served on the code's page (/problems/{code}): what it means and what to do about it.
 */
export const PROBLEM_CODES = {
  invalid_input: { status: 422, title: 'Invalid input' },
  bad_request: { status: 400, title: 'Bad request' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_allowed: { status: 403, title: 'Not allowed' },
  wrong_state: { status: 409, title: 'Wrong state' },
  unknown_event: { status: 400, title: 'Unknown event' },
  guard_failed: { status: 409, title: 'Guard failed' },
  slot_taken: { status: 409, title: 'Slot taken' },
  version_conflict: { status: 409, title: 'Version conflict' },
  idempotency_mismatch: { status: 422, title: 'Idempotency key reused with a different request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  replayed_signature: { status: 401, title: 'Replayed signature' },
  bad_receipt: { status: 422, title: 'Receipt refused' },
  unknown_key: { status: 422, title: 'Unknown signing key' },
  nothing_to_verify: { status: 409, title: 'Nothing to verify' },
  already_verified: { status: 409, title: 'Already verified' },
  bad_code: { status: 422, title: 'Wrong code' },
  code_expired: { status: 422, title: 'Code expired' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  positive_only: { status: 422, title: 'Rules may only act in the customer\'s favour' },
  bad_acknowledgement: {
    status: 422,
    title: 'Acknowledgement not valid',
    description:
      'The acknowledgement is not a compact JWS of typ svc-receipt-ack+jws signed with EdDSA by the Ed25519 public key in its own header (jwk), with claims rcp, sha and iat. ack_error says which part failed: malformed, bad_alg, bad_typ, bad_key, bad_signature or bad_payload; at a network (POST /v1/receipts) also wrong_receipt, when it does not bind the receipt published with it (its id and the SHA-256 of its JWS), and that receipt is not held either. At an inbox, a request signed to acknowledge a receipt by receipt_id (no ack) is refused as carries_secret when what it signs holds an access token, a key or a full pass (it is kept and shown as the acknowledgement), and as receipt_not_signed when its signed body does not name the receipt of the item. Sign it again; nothing was stored.',
  },
  wrong_receipt: {
    status: 422,
    title: 'Acknowledgement binds another receipt',
    description:
      "The acknowledgement names a receipt this item does not have (ack_error unknown_receipt, or receipt_id_mismatch when receipt_id differs from rcp), or its sha is not the base64url SHA-256 of the receipt's jws exactly as issued (sha_mismatch). Read the receipt again from the item and sign over its jws; nothing was stored.",
  },
  receipt_of_other_item: {
    status: 403,
    title: 'Receipt of another item',
    description:
      "The acknowledgement names a receipt of another item. Acknowledge a receipt on its own item (the receipt's itm claim), with that item's access token; nothing was stored.",
  },
  acknowledgement_expired: {
    status: 422,
    title: 'Acknowledgement too old',
    description: 'The acknowledgement was signed (iat) more than an hour before it arrived. Sign a fresh one and send it at once; nothing was stored.',
  },
  acknowledgement_not_yet_valid: {
    status: 422,
    title: 'Acknowledgement signed in the future',
    description: "The acknowledgement's iat is more than five minutes ahead of the inbox's clock. Check the signer's clock and sign again; nothing was stored.",
  },
  already_acknowledged: {
    status: 409,
    title: 'Receipt already acknowledged',
    description:
      "Another agent key already acknowledged this receipt; a receipt is acknowledged once. The same acknowledgement again, or another one by the same key, is answered as the first was.",
  },
  rate_limited: { status: 429, title: 'Rate limited' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  too_large: { status: 413, title: 'Too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  category_unresolved: { status: 400, title: 'Category not found' },
  page_too_deep: { status: 400, title: 'Page too deep' },
  search_timeout: { status: 503, title: 'Search took too long' },
  internal_error: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
  storage_full: { status: 503, title: 'Storage full' },
  storage_unavailable: {
    status: 503,
    title: 'Storage unavailable',
    description:
      "The service's disk failed a write, or its database cannot be reached just now (restarting, failing over, out of connections). Nothing was saved, unless the problem says saved: \"unknown\" (the connection was lost while the change was being committed). Retry after Retry-After with the same idempotency key: a change that was saved is answered, not made twice.",
  },
} as const satisfies Record<string, { status: number; title: string; description?: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEM_CODES, code);
}
