/**
 * The strings a person holds (docs/identity.md): a key `svckey1_<network host>_<id>_<secret>` (mailed
 * once; proves the person and makes passes), a pass `svcpass1_<host>_<id>_<secret>` (what an agent
 * presents; revocable on its own) and a pass reference `svcpass1_<host>_<id>` (names a pass; honoured
 * only in a request signed by the key the pass is delegated to). `id` is 16 and `secret` 32 lowercase
 * base32 characters; nothing over 200 characters is one. The network keeps SHA-256 of secrets only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const ID = '[a-z2-7]{16}';
const SECRET = '[a-z2-7]{32}';
const HOST = '[a-z0-9.:\\-\\[\\]]{1,120}';

export type PersonToken =
  | { kind: 'key'; host: string; id: string; secret: string }
  | { kind: 'pass'; host: string; id: string; secret: string }
  | { kind: 'pass_ref'; host: string; id: string };

export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += BASE32[b & 31];
  return out;
}

export function parsePersonToken(value: string): PersonToken | null {
  if (value.length > 200) return null;
  let m = new RegExp(`^svckey1_(${HOST})_(${ID})_(${SECRET})$`).exec(value);
  if (m) return { kind: 'key', host: m[1] as string, id: m[2] as string, secret: m[3] as string };
  m = new RegExp(`^svcpass1_(${HOST})_(${ID})_(${SECRET})$`).exec(value);
  if (m) return { kind: 'pass', host: m[1] as string, id: m[2] as string, secret: m[3] as string };
  m = new RegExp(`^svcpass1_(${HOST})_(${ID})$`).exec(value);
  if (m) return { kind: 'pass_ref', host: m[1] as string, id: m[2] as string };
  return null;
}

export const keyString = (host: string, id: string, secret: string) => `svckey1_${host}_${id}_${secret}`;
export const passString = (host: string, id: string, secret: string) => `svcpass1_${host}_${id}_${secret}`;
export const passRefString = (host: string, id: string) => `svcpass1_${host}_${id}`;

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

export function secretMatches(secret: string, stored: string | null): boolean {
  if (stored === null) return false;
  const a = Buffer.from(secretHash(secret));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
