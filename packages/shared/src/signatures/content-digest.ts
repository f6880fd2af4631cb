/**
 * RFC 9530 `Content-Digest`: a structured dictionary of algorithm → digest of the body bytes
 * exactly as sent (`sha-256=:<base64>:`). We make sha-256 and accept sha-256 and sha-512.
 */
import { createHash } from 'node:crypto';
import { parseDictionary, serializeDictionary } from 'structured-headers';

export type DigestAlgorithm = 'sha-256' | 'sha-512';

const HASHES: Record<DigestAlgorithm, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

/** Longest Content-Digest field we read; two digests with room to spare. */
export const MAX_CONTENT_DIGEST_LENGTH = 1024;

export function bodyBytes(body: Uint8Array | string | null | undefined): Uint8Array {
  if (body === null || body === undefined) return new Uint8Array(0);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

export function digestBody(body: Uint8Array | string | null | undefined, algorithm: DigestAlgorithm = 'sha-256'): Buffer {
  return createHash(HASHES[algorithm]).update(bodyBytes(body)).digest();
}

/** The Content-Digest field value for a body: `sha-256=:…:`. */
export function contentDigestHeader(body: Uint8Array | string | null | undefined, algorithm: DigestAlgorithm = 'sha-256'): string {
  return serializeDictionary(new Map([[algorithm, [digestBody(body, algorithm), new Map()]]]));
}

export type ContentDigestCheck =
  | { ok: true; algorithms: DigestAlgorithm[] }
  | { ok: false; problem: 'malformed' | 'unsupported' | 'mismatch'; detail: string };

/**
 * Checks a Content-Digest field against the body. Every sha-256 or sha-512 member must match;
 * other algorithms are ignored, and at least one of the two must be there.
 */
export function checkContentDigest(field: string, body: Uint8Array | string | null | undefined): ContentDigestCheck {
  if (field.length > MAX_CONTENT_DIGEST_LENGTH) {
    return { ok: false, problem: 'malformed', detail: `Content-Digest is longer than ${MAX_CONTENT_DIGEST_LENGTH} characters.` };
  }
  let members;
  try {
    members = parseDictionary(field);
  } catch {
    return { ok: false, problem: 'malformed', detail: 'Content-Digest is not a structured dictionary.' };
  }
  const checked: DigestAlgorithm[] = [];
  for (const [name, member] of members) {
    if (name !== 'sha-256' && name !== 'sha-512') continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) {
      return { ok: false, problem: 'malformed', detail: `Content-Digest ${name} is not a byte sequence.` };
    }
    const expected = digestBody(body, name);
    if (!expected.equals(Buffer.from(value))) {
      return { ok: false, problem: 'mismatch', detail: `The body does not match its Content-Digest (${name}).` };
    }
    checked.push(name);
  }
  if (checked.length === 0) {
    return { ok: false, problem: 'unsupported', detail: 'Content-Digest has no sha-256 or sha-512 digest.' };
  }
  return { ok: true, algorithms: checked };
}
