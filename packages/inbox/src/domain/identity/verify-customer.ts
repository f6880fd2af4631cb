/**
 * verify_customer (inbox spec §4, docs/identity.md): a customer proves the address an item carries
 * with six digits sent there. First call: a code goes out (202 {sent_to}, the address masked); second
 * call with the code: 200 {recognised: strong}. Codes are kept as keyed hashes, expire after ten
 * minutes and allow five attempts; sends are limited per item and per address. Answers are the same
 * whether or not the business has seen the address before.
 */
import { randomInt } from 'node:crypto';
import { Problem, newId } from '@svc/shared';
import type { DomainContext } from '../context.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Caller } from '../types.js';
import { loadProfile } from '../context.js';
import { loadOwnedItem } from '../items/customer-items.js';
import { queueSealedMail } from '../mail/queued-mail.js';
import { CommittedRefusal } from './committed-refusal.js';
import { ADDRESS_LABEL, normaliseAddress, type IdentityKeys } from './identity-keys.js';

export const CODE_RULES = {
  digits: 6,
  ttlMs: 10 * 60_000,
  attempts: 5,
  /** Codes per item per hour, per item per day, and per address per day. */
  perItemHour: 3,
  perItemDay: 6,
  perAddressDay: 10,
} as const;

const CODE_LABEL = 'customer-code';

export interface VerifyServices {
  keys: IdentityKeys;
  secrets: SecretBox;
  /** The sender's domain, for Message-IDs. */
  mailHost: string;
}

/** `a***@e***.com`: enough for the customer to see where it went, not to learn an address. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const name = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local.slice(0, 1)}***@${name.slice(0, 1)}***${tld}`;
}

export function addressKey(keys: IdentityKeys, address: string): string {
  return keys.hash(ADDRESS_LABEL, normaliseAddress(address));
}

export type VerifyAnswer = { status: 202; body: { sent_to: string; expires_in: number } } | { status: 200; body: { recognised: 'strong'; email_proven: true } };

export async function verifyCustomer(
  ctx: DomainContext,
  services: VerifyServices,
  caller: Caller,
  request: { itemId: string; token: string | undefined; code: string | undefined },
): Promise<VerifyAnswer> {
  const item = await loadOwnedItem(ctx, request.itemId, request.token, caller);
  const address = item.contact?.email;
  if (!address) throw new Problem('nothing_to_verify', 'This item carries no e-mail address to prove; a code goes only to an address the item was made with.');
  if (await ctx.store.identity.itemProof(item.id)) throw new Problem('already_verified', 'The address of this item is already proven.');
  const nowMs = ctx.clock.now();
  const addressHash = addressKey(services.keys, address);

  if (request.code === undefined) {
    const [hour, day, toAddress] = await Promise.all([
      ctx.store.identity.countCodes({ itemId: item.id, sinceMs: nowMs - 3_600_000 }),
      ctx.store.identity.countCodes({ itemId: item.id, sinceMs: nowMs - 86_400_000 }),
      ctx.store.identity.countCodes({ addressHash, sinceMs: nowMs - 86_400_000 }),
    ]);
    if (hour >= CODE_RULES.perItemHour || day >= CODE_RULES.perItemDay || toAddress >= CODE_RULES.perAddressDay) {
      throw new Problem('too_many_attempts', 'Too many codes were sent for this item or address; wait before asking for another.', {
        headers: { 'retry-after': String(hour >= CODE_RULES.perItemHour ? 3600 : 86_400) },
      });
    }
    const code = String(randomInt(0, 10 ** CODE_RULES.digits)).padStart(CODE_RULES.digits, '0');
    const id = newId(nowMs);
    const sentTo = maskAddress(address);
    await ctx.store.identity.addCode({
      id,
      itemId: item.id,
      addressHash,
      codeHash: services.keys.hash(CODE_LABEL, `${id}:${code}`),
      sentTo,
      createdAt: nowMs,
      expiresAt: nowMs + CODE_RULES.ttlMs,
      attempts: 0,
      usedAt: null,
    });
    const { profile } = await loadProfile(ctx.store);
    await queueSealedMail(ctx, services.secrets, {
      kind: 'code',
      itemId: item.id,
      to: address,
      subject: `${profile.name}: your code ${code}`,
      text: `Your code is ${code}.\n\nGive it to the assistant that is talking to ${profile.name} for you, to show this address is yours. It works for ten minutes. If you did not ask for it, ignore this mail.\n`,
      host: services.mailHost,
    });
    return { status: 202, body: { sent_to: sentTo, expires_in: CODE_RULES.ttlMs / 1000 } };
  }

  const held = await ctx.store.identity.latestCode(item.id);
  if (!held || held.usedAt !== null) throw new Problem('nothing_to_verify', 'No code was sent for this item; call verify_customer without a code first.');
  if (held.attempts >= CODE_RULES.attempts) {
    throw new Problem('too_many_attempts', 'This code took too many wrong attempts; ask for a new one.', { headers: { 'retry-after': '60' } });
  }
  if (nowMs > held.expiresAt) throw new Problem('code_expired', 'The code expired; ask for a new one.');
  if (!services.keys.matches(CODE_LABEL, `${held.id}:${request.code}`, held.codeHash)) {
    await ctx.store.identity.countAttempt(held.id);
    const left = CODE_RULES.attempts - held.attempts - 1;
    throw new CommittedRefusal('bad_code', left > 0 ? `That is not the code; ${left} attempts left.` : 'That is not the code, and it was the last attempt; ask for a new one.', {
      extensions: { attempts_left: left },
    });
  }
  await ctx.store.identity.useCode(held.id, nowMs);
  await ctx.store.identity.proveItem(item.id, held.addressHash, nowMs);
  return { status: 200, body: { recognised: 'strong', email_proven: true } };
}
