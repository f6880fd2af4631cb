/**
 * Which feed URLs may be added (docs/feeds.md): the webhook rule of inbox spec §4, applied by the
 * same check (domain/webhooks/endpoint-url.ts): https on a public host name; an IP address,
 * localhost or an internal name is refused. The fetch checks again what the name resolves to
 * (shared publicFetch), so a public name pointing inward is refused there too. With the
 * development setting allowLocalFeeds, loopback hosts over http are admitted.
 */
import { invalidField, sha256Hex } from '@svc/shared';
import { endpointUrlProblem } from '../webhooks/endpoint-url.js';

export interface CheckedFeedUrl {
  /** The normalised URL that is fetched (kept sealed). */
  href: string;
  /** The same with every query value redacted: query strings of feed URLs often carry access tokens. */
  display: string;
  /** Identifies the URL without revealing it: one URL is added once. */
  hash: string;
}

export function checkFeedUrl(raw: string, options: { allowLocalFeeds: boolean }): CheckedFeedUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidField('url', 'url is not a URL.');
  }
  // A fragment never reaches the server, so it cannot tell two feeds apart.
  url.hash = '';
  const problem = endpointUrlProblem(url.href, { allowLocal: options.allowLocalFeeds });
  if (problem) throw invalidField('url', `url ${problem}.`);
  return { href: url.href, display: redactedUrl(url), hash: sha256Hex(url.href) };
}

function redactedUrl(url: URL): string {
  if (url.search === '') return url.href;
  const shown = new URL(url.href);
  const names = [...new Set(url.searchParams.keys())];
  shown.search = names.map((name) => `${encodeURIComponent(name)}=redacted`).join('&');
  return shown.href;
}
