/**
 * Extra headers of an endpoint (inbox spec §4 webhooks rule 2): at most five, names checked, values
 * sealed at rest and never shown again. Headers a delivery sets itself are refused.
 */

export const MAX_EXTRA_HEADERS = 5;
const MAX_NAME_LENGTH = 100;
const MAX_VALUE_LENGTH = 2_000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** Set by the delivery or owned by the connection (RFC 9110 §7.6.1, RFC 9112). */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'user-agent',
  'accept',
  'accept-encoding',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);
const RESERVED_PREFIXES = ['webhook-', 'svc-', 'proxy-', 'sec-', ':'];

/** Names are case-insensitive; they are kept in lower case. */
export function normaliseHeaderName(name: string): string {
  return name.trim().toLowerCase();
}

export function headerNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || !TOKEN.test(name)) return 'not a valid header name';
  if (RESERVED.has(name) || RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix))) return `${name} is set by the delivery itself`;
  return null;
}

export function headerValueProblem(value: string): string | null {
  if (value.length > MAX_VALUE_LENGTH) return `at most ${MAX_VALUE_LENGTH} characters`;
  // Visible ASCII, space and tab only: no line breaks that could smuggle another header.
  if (!/^[\t\x20-\x7e]*$/.test(value)) return 'only printable ASCII characters';
  return null;
}
