/**
 * Ed25519 keys as JWK (RFC 8037 `OKP`) and their RFC 7638 thumbprints, on node:crypto only.
 * The thumbprint is the `kid` of an instance key (receipts and signed instance requests).
 *
 * Every refusal is ours (Ed25519KeyError, with our words), never node:crypto's: a key is checked here
 * before node:crypto sees it, and is handed over as raw bytes (PKCS #8 / SPKI around the 32 bytes),
 * not as a JWK, whose checks and wording change between Node releases (Node 24.22 refuses a JWK whose
 * `x` is not the public half of its `d` with "Invalid JWK OKP key" before our own check could run).
 * Anything node:crypto still refuses becomes an Ed25519KeyError too.
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
/** DER of a PKCS #8 Ed25519 private key (RFC 8410) up to its 32-byte seed. */
const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** DER of an SPKI Ed25519 public key (RFC 8410) up to its 32 bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class Ed25519KeyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
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
    key = imported('x is not a usable Ed25519 public key', () =>
      createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(jwk.x, 'base64url')]), format: 'der', type: 'spki' }),
    );
    if (publicKeys.size >= PUBLIC_KEYS_KEPT) publicKeys.delete(publicKeys.keys().next().value as string);
    publicKeys.set(jwk.x, key);
  }
  return key;
}

/**
 * The private key, after checking that its `x` really is the public half of its `d`: the key is made
 * from `d` alone, its public half derived and compared with `x` here.
 */
export function ed25519PrivateKey(jwk: Ed25519PrivateJwk): KeyObject {
  const problem = ed25519JwkProblem(jwk);
  if (problem) throw new Ed25519KeyError(problem);
  if (typeof jwk.d !== 'string') throw new Ed25519KeyError('the key has no private part (d)');
  const d = jwk.d;
  const key = imported('d is not a usable Ed25519 private key', () =>
    createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, Buffer.from(d, 'base64url')]), format: 'der', type: 'pkcs8' }),
  );
  const derived = imported('d is not a usable Ed25519 private key', () => createPublicKey(key).export({ format: 'der', type: 'spki' }));
  const x = derived.subarray(SPKI_PREFIX.length).toString('base64url');
  if (derived.length !== SPKI_PREFIX.length + 32 || x !== jwk.x) throw new Ed25519KeyError('x is not the public key of d');
  return key;
}

/** Runs a node:crypto key import; whatever it refuses becomes our own error (node's words kept as the cause). */
function imported<T>(refusal: string, importKey: () => T): T {
  try {
    return importKey();
  } catch (error) {
    throw new Ed25519KeyError(refusal, { cause: error });
  }
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
