/**
 * Reply addresses (docs/mail.md): the notices an item's customer gets say Reply-To
 * `<local>+r-<item id>-<token>@<domain>` of the sender address, the token a keyed hash of the item id,
 * so a reply finds its item and nobody can write to an item by guessing its id.
 */
import type { IdentityKeys } from '../identity/identity-keys.js';

const LABEL = 'reply-address';
const TOKEN_LENGTH = 16;

function tokenOf(keys: IdentityKeys, itemId: string): string {
  return keys.hash(LABEL, itemId).replace(/[^A-Za-z0-9]/g, '').slice(0, TOKEN_LENGTH).toLowerCase();
}

export function replyAddress(keys: IdentityKeys, fromAddress: string, itemId: string): string {
  const at = fromAddress.lastIndexOf('@');
  const local = fromAddress.slice(0, at).split('+')[0] as string;
  return `${local}+r-${itemId.toLowerCase()}-${tokenOf(keys, itemId)}@${fromAddress.slice(at + 1)}`;
}

const REPLY = /\+r-([0-9a-hjkmnp-tv-z]{26})-([a-z0-9]{8,32})@/i;

/** The item a recipient address is the reply address of, when its token holds. */
export function itemOfReplyAddress(keys: IdentityKeys, address: string): string | null {
  const match = REPLY.exec(address);
  if (!match) return null;
  const itemId = (match[1] as string).toUpperCase();
  return tokenOf(keys, itemId) === (match[2] as string).toLowerCase() ? itemId : null;
}
