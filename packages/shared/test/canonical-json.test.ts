/**
 * Request fingerprints (hashing.ts): canonical JSON must stay the same text for the same value
 * whatever the key order, and exactly the text JSON.stringify gives for each part, since stored
 * idempotency keys are compared against fingerprints made later (after an upgrade too).
 */
import fc from 'fast-check';
import { canonicalJson } from '@svc/shared';
import { describe, expect, it } from 'vitest';

/** The definition: JSON.stringify of every leaf and key, keys sorted. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => reference(v === undefined ? null : v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
  return `{${parts.join(',')}}`;
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u2028', '\ud800', '\udc00x', '😀', 'Doğan’s'));

describe('canonicalJson', () => {
  it('writes every key and string as JSON.stringify does, keys sorted', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(text, tie('node'), { maxKeys: 5 })),
    })).node;
    fc.assert(fc.property(value, (v) => void expect(canonicalJson(v)).toBe(reference(v))));
    for (const special of ['"quoted"', 'back\\slash', 'line\nbreak', '\u0000', 'lone \ud83d', 'pair 😀', 'sep \u2028']) {
      expect(canonicalJson({ [special]: special })).toBe(reference({ [special]: special }));
    }
  });

  it('is the same text whatever the order of keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe(canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 }));
  });
});
