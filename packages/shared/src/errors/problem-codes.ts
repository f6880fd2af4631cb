/**
 * The one catalogue of problem codes both services answer with (inbox spec §7).
 * Each code has one HTTP status and one title; doors translate, never invent.
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
  bad_acknowledgement: { status: 422, title: 'Acknowledgement refused' },
  nothing_to_verify: { status: 409, title: 'Nothing to verify' },
  already_verified: { status: 409, title: 'Already verified' },
  bad_code: { status: 422, title: 'Wrong code' },
  code_expired: { status: 422, title: 'Code expired' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  positive_only: { status: 422, title: 'Rules may only act in the customer\'s favour' },
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
  storage_unavailable: { status: 503, title: 'Storage unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEM_CODES, code);
}
