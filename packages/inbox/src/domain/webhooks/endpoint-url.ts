/**
 * Which URLs an endpoint may have (inbox spec §4 webhooks rule 1): https on a public host name.
 * IP literals, localhost and internal names are refused here; what a name resolves to is checked
 * again at every delivery, since DNS can change after registration (shared/net publicFetch).
 */
import { isIP } from 'node:net';

/** Development only (INBOX_ALLOW_LOCAL_WEBHOOKS): http and 127.0.0.1 / localhost / [::1] are allowed too. */
export interface UrlPolicy {
  allowLocal: boolean;
}

const MAX_URL_LENGTH = 2_000;
/** Suffixes that only mean something inside a private network (RFC 6761, 6762, 8375 and common practice). */
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home', '.corp', '.private', '.home.arpa', '.localdomain', '.onion', '.arpa'];
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/** The one form an accepted URL is stored and used in: WHATWG's serialisation of it (`new URL(raw).href`). */
export function normalEndpointUrl(raw: string): string {
  return new URL(raw).href;
}

/** The reason a URL is refused, or null when it may be used. */
export function endpointUrlProblem(raw: string, policy: UrlPolicy): string | null {
  if (raw.length > MAX_URL_LENGTH) return `at most ${MAX_URL_LENGTH} characters`;
  // WHATWG parsers read a backslash as a slash and others do not, so `https://a.example\@b.example/`
  // names one host to us and another to a different reader: refused, not guessed (issue 19).
  if (raw.includes('\\')) return 'must not hold a backslash';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const isLocalAllowed = policy.allowLocal && LOOPBACK_HOSTS.has(host);
  if (url.protocol !== 'https:' && !(isLocalAllowed && url.protocol === 'http:')) return 'must use https';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.hash) return 'must not have a #fragment';
  if (isLocalAllowed) return null;
  if (isIP(host)) return 'must name a host, not an IP address';
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return `${host} is not a public host name`;
  if (!host.includes('.')) return `${host} is an internal name, not a public host name`;
  if (!/^[a-z0-9.-]+$/.test(host) || host.split('.').some((label) => label.length === 0 || label.length > 63)) return `${host} is not a valid host name`;
  // A last label of digits only (such as 0x7f.1 or 2130706433.1) is how numeric addresses hide.
  if (/^(\d+|0x[0-9a-f]+)$/.test(host.split('.').pop() ?? '')) return `${host} is not a public host name`;
  return null;
}
