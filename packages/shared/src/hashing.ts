/** Hashes and canonical JSON used for secrets at rest and request fingerprints. */
import * as crypto from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';

/**
 * Node's one-call hash (20.12+, 21.7+): no Hash object to make, about a third of the cost of one.
 * Read from the namespace, as a named import of it would not link on an older Node 20.
 */
const oneCallHash: typeof crypto.hash | undefined = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** SHA-256 of a text's UTF-8 bytes, in the encoding asked for. */
export function sha256Text(value: string, encoding: 'hex' | 'base64' | 'base64url'): string {
  return oneCallHash ? oneCallHash('sha256', value, encoding) : crypto.createHash('sha256').update(value, 'utf8').digest(encoding);
}

export function sha256Hex(value: string): string {
  return sha256Text(value, 'hex');
}

/** Characters JSON writes escaped (quotes, backslashes, controls, and lone surrogates). */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON: most hold nothing JSON escapes, and are quoted as they are (JSON.stringify checks each character in turn). */
function jsonString(text: string): string {
  return ESCAPED_IN_JSON.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return jsonString(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${canonicalJson(value[i] === undefined ? null : value[i])}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  // Keys compared by UTF-16 code units, as before (sort's default order).
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const inner = record[key];
    if (inner === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${jsonString(key)}:${canonicalJson(inner)}`;
  }
  return `${text}}`;
}

export function randomToken(bytes = 32): string {
  return pooledRandomBytes(bytes).toString('base64url');
}

export function safeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
