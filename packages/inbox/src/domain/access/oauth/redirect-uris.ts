/**
 * Which redirect URIs a client may register, and whether a requested one matches. https anywhere,
 * or http on the loopback interface for native apps (RFC 8252 §7.3, §8.3). Matching is exact
 * string comparison, except that a loopback http URI matches on any port, since a native app gets
 * its port from the system at each start (RFC 8252 §7.3).
 */
import { MAX_REDIRECT_URI_LENGTH } from './oauth-limits.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why a URI cannot be registered, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment (RFC 6749 §3.1.2)';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  if (url.protocol === 'http:') return 'must use https, or http only on 127.0.0.1, [::1] or localhost';
  return 'must be an https URL, or http on the loopback interface';
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** The registered URI a requested one matches, or null. */
export function matchRedirectUri(registered: readonly string[], requested: string): string | null {
  if (registered.includes(requested)) return requested;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return null;
  }
  if (!isLoopbackHttp(asked) || requested.includes('#')) return null;
  for (const uri of registered) {
    const known = new URL(uri);
    if (!isLoopbackHttp(known)) continue;
    // Same except the port: compare the URIs with both ports removed.
    known.port = '';
    const candidate = new URL(requested);
    candidate.port = '';
    if (known.href === candidate.href) return requested;
  }
  return null;
}
