/**
 * The customer's page of an item (docs/web.md "The customer's page"): its link, sent in every notice,
 * carries a page token, a keyed hash of the item id under the instance's pepper (only the item's
 * access token's hash is kept, so a mail cannot carry the access token itself). It opens that item's
 * page, and nothing else: the API takes only the access token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IdentityKeys } from '../identity/identity-keys.js';

export const PAGE_TOKEN_PREFIX = 'svc_pg_';
const LABEL = 'customer-page';

export function pageTokenOf(keys: IdentityKeys, itemId: string): string {
  return `${PAGE_TOKEN_PREFIX}${keys.hash(LABEL, itemId)}`;
}

export function pageTokenMatches(keys: IdentityKeys, itemId: string, token: string): boolean {
  const made = Buffer.from(pageTokenOf(keys, itemId));
  const given = Buffer.from(token);
  return made.length === given.length && timingSafeEqual(made, given);
}

/** The path of an item's page; the link in a mail adds the token as `access_token`. */
export function customerPagePath(itemId: string): string {
  return `/i/${itemId}`;
}

export function customerPageLink(publicBaseUrl: string, keys: IdentityKeys, itemId: string): string {
  return `${publicBaseUrl}${customerPagePath(itemId)}?access_token=${pageTokenOf(keys, itemId)}`;
}
