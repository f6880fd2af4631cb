/**
 * Which keys `settings.networks` takes (issue 19, docs/security.md "Strict inputs"): a network is
 * an https origin, and nothing else: no other scheme (`javascript:`, `ftp:`, `http:`), no path,
 * query or fragment, no user name or password, no backslash. Under the development setting
 * INBOX_ALLOW_LOCAL_NETWORKS a loopback origin (127.0.0.1, localhost, [::1]) is one too, over http
 * or https. A key is stored in its normal origin form (`https://Directory.Example:443/` is
 * `https://directory.example`), so one network is never two entries.
 */
import { escapeUnsafe, type FieldProblem } from '@svc/shared';

export interface NetworkPolicy {
  /** Development (INBOX_ALLOW_LOCAL_NETWORKS): loopback origins, over http too. */
  allowLocalNetworks: boolean;
}

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** What a network entry holds; anything else in one is refused, not kept. */
const ENTRY_FIELDS = new Set(['enabled', 'issue']);

/** The origin a key names, or why it names none. */
export function networkOrigin(key: string, policy: NetworkPolicy): { origin: string } | { problem: string } {
  if (key.includes('\\')) return { problem: 'must not hold a backslash' };
  let url: URL;
  try {
    url = new URL(key);
  } catch {
    return { problem: 'is not a URL; a network is an https origin such as https://directory.example' };
  }
  const loopback = LOOPBACK_HOSTNAMES.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && policy.allowLocalNetworks)) {
    return { problem: 'must be an https origin' };
  }
  if (url.username !== '' || url.password !== '') return { problem: 'must not carry a user name or password' };
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(key)) {
    return { problem: 'must be an origin alone (scheme, host and port), without a path, query or fragment' };
  }
  if (loopback && !policy.allowLocalNetworks) return { problem: 'names this machine; loopback networks are for development (INBOX_ALLOW_LOCAL_NETWORKS)' };
  return { origin: url.origin };
}

/**
 * The `networks` part of a settings write with every key in its origin form, and a problem per key
 * that is no network. A key sent with null that the stored document holds as written is removed as
 * written, so an entry an earlier version kept can always be taken out.
 */
export function normaliseNetworksPatch(
  networks: Record<string, unknown>,
  stored: Record<string, unknown>,
  policy: NetworkPolicy,
  problems: FieldProblem[],
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const namedBy = new Map<string, string>();
  for (const [key, value] of Object.entries(networks)) {
    const path = `settings.networks.${escapeUnsafe(key)}`;
    if (value === null && Object.hasOwn(stored, key)) {
      result[key] = null;
      continue;
    }
    const parsed = networkOrigin(key, policy);
    if ('problem' in parsed) {
      problems.push({ path, problem: 'invalid', message: `A network key ${parsed.problem}.` });
      continue;
    }
    const earlier = namedBy.get(parsed.origin);
    if (earlier !== undefined) {
      problems.push({ path, problem: 'invalid', message: `Names the same network as ${escapeUnsafe(earlier)}; send it once.` });
      continue;
    }
    namedBy.set(parsed.origin, key);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const field of Object.keys(value)) {
        if (!ENTRY_FIELDS.has(field)) problems.push({ path: `${path}.${escapeUnsafe(field)}`, problem: 'invalid', message: `${escapeUnsafe(field)} is not a known field.` });
      }
    }
    result[parsed.origin] = value;
  }
  return result;
}
