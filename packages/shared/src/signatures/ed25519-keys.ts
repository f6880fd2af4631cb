/**
 * Ed25519 keys as JWK (RFC 8037 `OKP`) and their RFC 7638 thumbprints, on node:crypto only.
 * The thumbprint is the `kid` of an instance key (receipts and signed instance requests).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The 32-byte public key, base64url without padding. */
  x: string;
  kid?: string;
  alg?: string;
  use?: string;
}

export interface Ed25519PrivateJwk extends Ed25519PublicJwk {
  /** The 32-byte private seed, base64url without padding. */
  d: string;
}

/** 32 bytes in base64url without padding is exactly 43 characters, the last one carrying 2 bits. */
const KEY_32_BYTES = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

export class Ed25519KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Ed25519KeyError';
  }
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Why a value is not a usable Ed25519 public JWK, or null when it is one. */
export function ed25519JwkProblem(value: unknown): string | null {
  const jwk = record(value);
  if (!jwk) return 'the key is not a JSON object';
  if (jwk.kty !== 'OKP') return 'the key type (kty) is not OKP';
  if (jwk.crv !== 'Ed25519') return 'the curve (crv) is not Ed25519';
  if (typeof jwk.x !== 'string' || !KEY_32_BYTES.test(jwk.x)) return 'x is not 32 bytes of base64url';
  if (jwk.alg !== undefined && jwk.alg !== 'EdDSA' && jwk.alg !== 'Ed25519') return 'alg is neither EdDSA nor Ed25519';
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'use is not sig';
  if (jwk.key_ops !== undefined) {
    if (!Array.isArray(jwk.key_ops) || !jwk.key_ops.every((op) => op === 'verify' || op === 'sign')) return 'key_ops allows more than sign and verify';
  }
  if (jwk.d !== undefined && (typeof jwk.d !== 'string' || !KEY_32_BYTES.test(jwk.d))) return 'd is not 32 bytes of base64url';
  return null;
}

export function isEd25519PublicJwk(value: unknown): value is Ed25519PublicJwk {
  return ed25519JwkProblem(value) === null;
}

export function isEd25519PrivateJwk(value: unknown): value is Ed25519PrivateJwk {
  return ed25519JwkProblem(value) === null && typeof (value as Record<string, unknown>).d === 'string';
}

/** Thumbprints already computed, by `x` (kty and crv are fixed once checked): a verifier checks the same few keys on every call. */
const thumbprints = new Map<string, string>();
const THUMBPRINTS_KEPT = 1_024;

/** RFC 7638: SHA-256 over `{"crv":…,"kty":…,"x":…}` (required members, sorted, no spaces), base64url. */
export function ed25519Thumbprint(jwk: Pick<Ed25519PublicJwk, 'crv' | 'kty' | 'x'>): string {
  const problem = ed25519JwkProblem({ kty: jwk.kty, crv: jwk.crv, x: jwk.x });
  if (problem) throw new Ed25519KeyError(problem);
  let thumbprint = thumbprints.get(jwk.x);
  if (thumbprint === undefined) {
    const canonical = `{"crv":${JSON.stringify(jwk.crv)},"kty":${JSON.stringify(jwk.kty)},"x":${JSON.stringify(jwk.x)}}`;
    thumbprint = createHash('sha256').update(canonical, 'utf8').digest('base64url');
    if (thumbprints.size >= THUMBPRINTS_KEPT) thumbprints.delete(thumbprints.keys().next().value as string);
    thumbprints.set(jwk.x, thumbprint);
  }
  return thumbprint;
}

/** The public half of a JWK, with only the members a verifier needs (and `kid` = thumbprint). */
export function ed25519PublicJwk(jwk: Ed25519PublicJwk): Ed25519PublicJwk {
  const problem = ed25519JwkProblem(jwk);
  if (problem) throw new Ed25519KeyError(problem);
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: ed25519Thumbprint(jwk), alg: 'EdDSA', use: 'sig' };
}

/** Public keys already imported, by `x`: importing one costs about a fifth of a verification, and a verifier sees the same few keys again and again. */
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEYS_KEPT = 1_024;

export function ed25519PublicKey(jwk: Ed25519PublicJwk): KeyObject {
  const problem = ed25519JwkProblem(jwk);
  if (problem) throw new Ed25519KeyError(problem);
  let key = publicKeys.get(jwk.x);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    if (publicKeys.size >= PUBLIC_KEYS_KEPT) publicKeys.delete(publicKeys.keys().next().value as string);
    publicKeys.set(jwk.x, key);
  }
  return key;
}

/** The private key, after checking that its `x` really is the public half of its `d`. */
export function ed25519PrivateKey(jwk: Ed25519PrivateJwk): KeyObject {
  const problem = ed25519JwkProblem(jwk);
  if (problem) throw new Ed25519KeyError(problem);
  if (typeof jwk.d !== 'string') throw new Ed25519KeyError('the key has no private part (d)');
  const key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
  const derived = createPublicKey(key).export({ format: 'jwk' });
  if (derived.x !== jwk.x) throw new Ed25519KeyError('x is not the public key of d');
  return key;
}

export interface Ed25519KeyPair {
  kid: string;
  privateJwk: Ed25519PrivateJwk;
  publicJwk: Ed25519PublicJwk;
}

/** A new random key; `kid` is the RFC 7638 thumbprint and is set on both JWKs. */
export function generateEd25519Key(): Ed25519KeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  const exported = privateKey.export({ format: 'jwk' });
  if (typeof exported.x !== 'string' || typeof exported.d !== 'string') throw new Ed25519KeyError('node:crypto exported no Ed25519 JWK');
  const publicJwk = ed25519PublicJwk({ kty: 'OKP', crv: 'Ed25519', x: exported.x });
  return { kid: publicJwk.kid as string, publicJwk, privateJwk: { ...publicJwk, d: exported.d } };
}
