/**
 * sha256Hex makes API key hashes, item token hashes and request fingerprints that are stored and
 * compared later: it must give exactly the digest of the text's UTF-8 bytes, as a Hash object does,
 * for any text (lone surrogates included, which UTF-8 writes as U+FFFD).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex, sha256Text } from '@svc/shared';
import { describe, expect, it } from 'vitest';

const byHashObject = (text: string, encoding: 'hex' | 'base64' | 'base64url' = 'hex'): string => createHash('sha256').update(text, 'utf8').digest(encoding);

describe('sha256Hex and sha256Text', () => {
  it('is the SHA-256 of the text as UTF-8, for any text', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary', maxLength: 300 }));
    fc.assert(fc.property(text, (value) => void expect(sha256Hex(value)).toBe(byHashObject(value))));
  });

  it('gives the same digest in each encoding asked for', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 300 }));
    const encoding = fc.constantFrom('hex' as const, 'base64' as const, 'base64url' as const);
    fc.assert(fc.property(text, encoding, (value, as) => void expect(sha256Text(value, as)).toBe(byHashObject(value, as))));
  });

  it('matches the published digests', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const special of ['lone \ud83d', '\udc00 first', 'Doğan’s', '😀', '\u0000']) expect(sha256Hex(special)).toBe(byHashObject(special));
  });
});
