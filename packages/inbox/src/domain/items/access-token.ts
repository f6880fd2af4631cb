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

/**
 * The item token in an `Authorization: Bearer` header (RFC 6750 §2.1), when the credential is one:
 * other bearer credentials (an MCP client's own authorization) are not the item's and are ignored.
 */
export function bearerAccessToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  const credential = match?.[1];
  return credential !== undefined && credential.startsWith(ACCESS_TOKEN_PREFIX) ? credential : undefined;
}
