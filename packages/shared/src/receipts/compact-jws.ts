/**
 * Compact JWS (RFC 7515 §7.1) with Ed25519 (RFC 8037), on node:crypto only: what receipts and their
 * acknowledgements are made of. Parsing is strict and bounded; verifying takes the algorithm from our
 * own allow-list, never from the header alone. Nothing here knows what a receipt says.
 */
import { sign as signBytes, verify as verifyBytes, type KeyObject } from 'node:crypto';

/** The JWS algorithm names an Ed25519 signature may carry: RFC 8037's EdDSA and RFC 9864's fully specified Ed25519. */
export const ED25519_JWS_ALGS = ['EdDSA', 'Ed25519'] as const;

/** Why a compact JWS could not be read. */
export type JwsFailure =
  /** Not three base64url parts, a part that is not JSON (header, payload), a signature not 64 bytes, or `crit`. */
  | 'malformed'
  /** Longer than the caller allows. */
  | 'too_large'
  /** The header names an algorithm outside the allow-list. */
  | 'bad_alg'
  /** The signature does not verify with the key. */
  | 'bad_signature';

export class JwsError extends Error {
  readonly reason: JwsFailure;
  constructor(reason: JwsFailure, message: string) {
    super(message);
    this.name = 'JwsError';
    this.reason = reason;
  }
}

export interface ParsedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` as ASCII: what the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** An Ed25519 signature is 64 bytes: 86 base64url characters. */
const SIGNATURE_CHARS = 86;

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeJsonObject(part: string, what: string): Record<string, unknown> {
  if (part.length === 0 || !BASE64URL.test(part)) throw new JwsError('malformed', `The ${what} is not base64url.`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new JwsError('malformed', `The ${what} is not JSON.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new JwsError('malformed', `The ${what} is not a JSON object.`);
  return value as Record<string, unknown>;
}

/** Signs `payload` under `header` (which must name an Ed25519 algorithm) and returns the compact form. */
export function signCompactJws(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  if (!ED25519_JWS_ALGS.includes(header.alg as (typeof ED25519_JWS_ALGS)[number])) throw new TypeError('header.alg must be EdDSA or Ed25519');
  const signingInput = `${encodeJson(header)}.${encodeJson(payload)}`;
  const signature = signBytes(null, Buffer.from(signingInput, 'ascii'), privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** Reads a compact JWS without trusting it: the signature is checked by verifyCompactJws. */
export function parseCompactJws(text: string, maxChars: number): ParsedJws {
  if (text.length > maxChars) throw new JwsError('too_large', `The JWS has ${text.length} characters; at most ${maxChars} are read.`);
  const parts = text.split('.');
  if (parts.length !== 3) throw new JwsError('malformed', 'A compact JWS has three parts separated by dots.');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJsonObject(headerPart, 'protected header');
  const payload = decodeJsonObject(payloadPart, 'payload');
  if (header.crit !== undefined) throw new JwsError('malformed', 'The header names critical extensions (crit), which are not understood here.');
  if (!ED25519_JWS_ALGS.includes(header.alg as (typeof ED25519_JWS_ALGS)[number])) {
    throw new JwsError('bad_alg', `The header's alg is ${JSON.stringify(header.alg ?? null)}; only EdDSA (Ed25519) is accepted.`);
  }
  if (signaturePart.length !== SIGNATURE_CHARS || !BASE64URL.test(signaturePart)) throw new JwsError('malformed', 'The signature is not 64 bytes of base64url.');
  return { header, payload, signingInput: `${headerPart}.${payloadPart}`, signature: Buffer.from(signaturePart, 'base64url') };
}

/** The same check on libuv's thread pool (a network verifies many receipts at once). */
export async function verifyCompactJwsAsync(parsed: ParsedJws, publicKey: KeyObject): Promise<void> {
  const ok = await new Promise<boolean>((resolve) => {
    try {
      verifyBytes(null, Buffer.from(parsed.signingInput, 'ascii'), publicKey, parsed.signature, (error, valid) => resolve(!error && valid));
    } catch {
      resolve(false);
    }
  });
  if (!ok) throw new JwsError('bad_signature', 'The signature does not verify with the key.');
}

/** Throws `bad_signature` unless the Ed25519 signature verifies under `publicKey`. */
export function verifyCompactJws(parsed: ParsedJws, publicKey: KeyObject): void {
  if (!verifyBytes(null, Buffer.from(parsed.signingInput, 'ascii'), publicKey, parsed.signature)) {
    throw new JwsError('bad_signature', 'The signature does not verify with the key.');
  }
}
