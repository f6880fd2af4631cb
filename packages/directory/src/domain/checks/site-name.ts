/**
 * Which sites can be checked, and the one name each result is kept under: the registrable domain
 * (the public suffix list with its private suffixes, so `shop.example.co.uk` is `example.co.uk` and
 * `team.github.io` stays itself). Every other spelling of it (capitals, a trailing dot, `www.` or
 * another subdomain, Unicode for a punycode name, a URL) reads the same result: GET /b/{domain}.json
 * answers those 301 to the canonical one. A name that can never be checked (an IP address, a
 * reserved or unknown top-level domain, a public suffix itself) is 404 there and refused by a check.
 *
 * Development only (the local web of sample sites): names under `.test`, reserved for testing and
 * never on the public internet, are checkable and are served by the local web.
 */
import { isIP } from 'node:net';
import { parse } from 'tldts';

export const MAX_SITE_NAME = 253;
export const MAX_SITE_INPUT = 2048;

/** Top-level names reserved for other uses (RFC 2606, 6761, 6762, 7686, ICANN .internal). */
const RESERVED_TLDS = new Set(['example', 'invalid', 'localhost', 'test', 'local', 'internal', 'onion', 'arpa', 'home', 'lan', 'corp', 'localdomain']);
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export type SiteName = { ok: true; domain: string; host: string } | { ok: false; reason: string };

export interface SiteNameOptions {
  /** Development: `.test` names are checkable (served by the local web of sample sites). */
  localWeb: boolean;
}

/** The host a caller named: a bare domain, or the host of a URL (http or https), in lower-case ASCII. */
function hostOf(raw: string): string | null {
  let value = raw.trim();
  if (value === '' || value.length > MAX_SITE_INPUT) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `https://${value}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.port) return null;
  return url.hostname.replace(/\.$/, '').toLowerCase();
}

export function siteName(raw: unknown, options: SiteNameOptions): SiteName {
  if (typeof raw !== 'string') return { ok: false, reason: 'Name the site: its domain, such as bakery.example.com, or its address.' };
  const host = hostOf(raw);
  if (host === null) return { ok: false, reason: 'This is not a web address or a domain name of a site.' };
  if (host.length > MAX_SITE_NAME) return { ok: false, reason: `A domain name is at most ${MAX_SITE_NAME} characters.` };
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return { ok: false, reason: 'An IP address is not a site the check can name; give its domain.' };
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return { ok: false, reason: 'This is not a valid domain name.' };
  const tld = labels[labels.length - 1] as string;
  if (tld === 'test' && options.localWeb) {
    // The local web: the last two labels name a sample site.
    const domain = labels.slice(-2).join('.');
    return { ok: true, domain, host };
  }
  if (RESERVED_TLDS.has(tld) || /^\d+$/.test(tld)) return { ok: false, reason: `.${tld} names are reserved and never on the public internet.` };
  const parsed = parse(host, { allowPrivateDomains: true });
  if (!parsed.isIcann && !parsed.isPrivate) return { ok: false, reason: `.${tld} is not a top-level domain of the public internet.` };
  if (!parsed.domain) return { ok: false, reason: `${host} is a public suffix, under which others register their names; check one of those.` };
  return { ok: true, domain: parsed.domain, host };
}
