/**
 * Which coding an Accept-Encoding gets (http/compression.ts, docs/http.md "Compression"): the
 * preferred one for answers the hook compresses, and whether gzip is taken at all for the owner
 * app's kept pages, which go in gzip whenever it is.
 */
import { describe, expect, it } from 'vitest';
import { acceptsCoding, negotiateCoding } from '../src/http/compression.js';

describe('content coding', () => {
  it('prefers the higher q, brotli on a tie, and counts * for a coding not named', () => {
    expect(negotiateCoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateCoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
    expect(negotiateCoding('GZIP;Q=0.5')).toBe('gzip');
    expect(negotiateCoding('x-gzip')).toBe('gzip');
    expect(negotiateCoding('*')).toBe('br');
    expect(negotiateCoding('*;q=0, gzip')).toBe('gzip');
    expect(negotiateCoding('br;q=0, *')).toBe('gzip');
    expect(negotiateCoding(['gzip', 'br;q=0.1'])).toBe('gzip');
  });

  it('gives no coding when none is taken', () => {
    expect(negotiateCoding(undefined)).toBeUndefined();
    expect(negotiateCoding('')).toBeUndefined();
    expect(negotiateCoding('identity')).toBeUndefined();
    expect(negotiateCoding('deflate, zstd')).toBeUndefined();
    expect(negotiateCoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(negotiateCoding('gzip;q=abc')).toBeUndefined();
  });

  it('says whether a coding is taken at all, preferred or not', () => {
    expect(acceptsCoding('gzip, deflate, br, zstd', 'gzip')).toBe(true);
    expect(acceptsCoding('br;q=1, gzip;q=0.1', 'gzip')).toBe(true);
    expect(acceptsCoding('*', 'gzip')).toBe(true);
    expect(acceptsCoding('br', 'gzip')).toBe(false);
    expect(acceptsCoding('gzip;q=0, *', 'gzip')).toBe(false);
    expect(acceptsCoding('*;q=0', 'gzip')).toBe(false);
    expect(acceptsCoding(undefined, 'gzip')).toBe(false);
    expect(acceptsCoding('identity', 'br')).toBe(false);
  });
});
