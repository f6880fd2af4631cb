/**
 * The strings a person holds (docs/identity.md), read by the inbox and made by a network: a key
 * `svckey1_<network host>_<id>_<secret>` (mailed once; proves the person and makes passes), a pass
 * `svcpass1_<host>_<id>_<secret>` (what an agent presents; revocable on its own) and a pass reference
 * `svcpass1_<host>_<id>` (names a pass; honoured only in a request signed by the key the pass is
 * delegated to). `id` is 16 and `secret` 32 lowercase base32 characters; nothing over 200 characters
 * is one. A network keeps SHA-256 of secrets only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseList, serializeList, Token } from 'structured-headers';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const ID = '[a-z2-7]{16}';
const SECRET = '[a-z2-7]{32}';
const HOST = '[a-z0-9.:\\-\\[\\]]{1,120}';
const KEY_FORM = new RegExp(`^svckey1_(${HOST})_(${ID})_(${SECRET})$`);
const PASS_FORM = new RegExp(`^svcpass1_(${HOST})_(${ID})_(${SECRET})$`);
const REF_FORM = new RegExp(`^svcpass1_(${HOST})_(${ID})$`);

export type PersonToken =
  | { kind: 'key'; host: string; id: string; secret: string }
  | { kind: 'pass'; host: string; id: string; secret: string }
  | { kind: 'pass_ref'; host: string; id: string };

export function randomBase32(length: number): string {
  let out = '';
  for (const b of randomBytes(length)) out += BASE32[b & 31];
  return out;
}

export function parsePersonToken(value: string): PersonToken | null {
  if (value.length > 200) return null;
  let m = KEY_FORM.exec(value);
  if (m) return { kind: 'key', host: m[1] as string, id: m[2] as string, secret: m[3] as string };
  m = PASS_FORM.exec(value);
  if (m) return { kind: 'pass', host: m[1] as string, id: m[2] as string, secret: m[3] as string };
  m = REF_FORM.exec(value);
  if (m) return { kind: 'pass_ref', host: m[1] as string, id: m[2] as string };
  return null;
}

export const keyString = (host: string, id: string, secret: string): string => `svckey1_${host}_${id}_${secret}`;
export const passString = (host: string, id: string, secret: string): string => `svcpass1_${host}_${id}_${secret}`;
export const passRefString = (host: string, id: string): string => `svcpass1_${host}_${id}`;

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

export function secretMatches(secret: string, stored: string | null): boolean {
  if (stored === null) return false;
  const a = Buffer.from(secretHash(secret));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Most passes one call may carry (inbox spec §8). */
export const MAX_PASSES_PER_CALL = 8;

/**
 * The passes of a `Svc-Pass` header: an RFC 8941 list of strings or tokens; null when it does not
 * parse (the caller refuses it). Bounded: a value over 2,000 characters is not read.
 */
export function readSvcPass(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return [];
  if (value.length > 2000) return null;
  try {
    const out: string[] = [];
    for (const [item] of parseList(value)) {
      if (typeof item === 'string') out.push(item);
      else if (item instanceof Token) out.push(item.toString());
      else return null;
    }
    return out;
  } catch {
    return null;
  }
}

/** A Svc-Pass header value for these passes (an RFC 8941 list of strings). */
export function svcPassHeader(passes: readonly string[]): string {
  return serializeList(passes.map((pass) => [pass, new Map()]));
}
