/** Per-item access tokens: a capability for one item, given once; only its hash is kept. */
import { randomToken, safeEqualHex, sha256Hex } from '@svc/shared';

export const ACCESS_TOKEN_PREFIX = 'svc_tok_';

export function newAccessToken(): { token: string; hash: string } {
  const token = `${ACCESS_TOKEN_PREFIX}${randomToken(24)}`;
  return { token, hash: sha256Hex(token) };
}

export function accessTokenMatches(token: string, hash: string): boolean {
  return safeEqualHex(sha256Hex(token), hash);
}
