/** PKCE with S256 only (RFC 7636; OAuth 2.1 and the MCP authorization spec refuse `plain`). */
import { createHash, timingSafeEqual } from 'node:crypto';

/** S256 of a 43–128 character verifier is 32 bytes: 43 base64url characters. */
export const CODE_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(s256(verifier));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
