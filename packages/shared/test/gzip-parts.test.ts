/**
 * Gzip answers assembled from parts compressed once (http/gzip-parts.ts), read back by zlib's own
 * gunzip: it checks every DEFLATE block, the CRC-32 and the length in the trailer, so a stream that
 * decodes here is one any browser decodes.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipParts } from '../src/http/gzip-parts.js';

const interleave = (parts: readonly string[], fills: readonly string[]): string => parts.map((part, i) => part + (fills[i] ?? '')).join('');

async function roundTrip(parts: readonly string[], fills: readonly string[]): Promise<Buffer> {
  const assembled = (await GzipParts.prepare(parts.map((part) => Buffer.from(part)), fills[0]?.length ?? 0)).with(fills);
  expect(gunzipSync(assembled).toString('utf8')).toBe(interleave(parts, fills));
  return assembled;
}

/** A deterministic pseudo-random text, so a failure can be replayed. */
function textOf(seed: number, length: number): string {
  const alphabet = 'abcdefghij <>/="\n çãõ€';
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

describe('gzip parts', async () => {
  it('puts the fills between the parts, in a stream gunzip reads with its checksum and length', async () => {
    await roundTrip(['<form><input value="', '"></form><form><input value="', '"></form>'], ['app-AAAA', 'app-BBBB']);
  });

  it('takes one part alone, empty parts at the ends and in the middle, and empty fills', async () => {
    await roundTrip(['only this'], []);
    await roundTrip([''], []);
    await roundTrip(['', 'a', '', '', 'b', ''], ['X', 'Y', 'Z', 'W', 'V']);
    await roundTrip(['a', 'b', ''], ['', '']);
  });

  it('takes text in any language, parts of many DEFLATE blocks and a fill of the largest stored block', async () => {
    await roundTrip([textOf(1, 200_000), textOf(2, 3), textOf(3, 70_000)], ['k'.repeat(65_535), 'j'.repeat(65_535)]);
    for (let seed = 10; seed < 40; seed++) {
      const count = 1 + (seed % 7);
      const fillLength = seed % 5 === 0 ? 0 : 4 + (seed % 17);
      const parts = Array.from({ length: count }, (_, i) => textOf(seed * 31 + i, (seed * 97 + i * 13) % 3_000));
      const fills = Array.from({ length: count - 1 }, (_, i) => textOf(seed + i, fillLength).replace(/[^a-j]/g, 'x'));
      await roundTrip(parts, fills);
    }
  });

  it('never lets a part refer into a fill, even when the parts repeat the fills\' text or hold NUL bytes', async () => {
    // Were a fill in a later part's dictionary as itself, the part would copy it from there.
    const fills = ['app-0000000000000001', 'app-0000000000000002', 'app-0000000000000003'];
    const parts = ['<p>app-0000000000000001 app-0000000000000002 app-0000000000000003</p>', '<i>app-0000000000000001</i>', 'app-0000000000000002\u0000app-0000000000000001', '<b>app-0000000000000003app-0000000000000002</b>'];
    await roundTrip(parts, fills);
    await roundTrip(parts, ['app-zzzzzzzzzzzzzzzz', 'app-yyyyyyyyyyyyyyyy', 'app-xxxxxxxxxxxxxxxx']);
    await roundTrip(parts, ['\u0000'.repeat(20), '\u0000'.repeat(20), '\u0000'.repeat(20)]);
  });

  it('is fresh bytes for fresh fills from the same compressed parts, about as small as gzip of the whole page', async () => {
    // Shaped as an item page: markup that repeats from form to form, with text of its own between.
    const form = (i: number) => `<form method="post" action="/app/items/itm_01HX/move"><input type="hidden" name="csrf" value="Zk3xQ"><input type="hidden" name="event" value="e${i}"><input type="hidden" name="idempotency_key" value="`;
    const parts = Array.from({ length: 13 }, (_, i) => `${i === 0 ? '<!doctype html><html><body>' : `"><button type="submit" class="primary">Move ${i}</button></form>`}<section><h2>${textOf(i, 12)}</h2><p>${textOf(100 + i, 400)}</p></section>${i < 12 ? form(i) : '</body></html>'}`);
    const gzip = await GzipParts.prepare(
      parts.map((part) => Buffer.from(part)),
      20,
    );
    const fillsA = parts.slice(1).map((_, i) => `app-a${String(i).padStart(15, '0')}`);
    const fillsB = parts.slice(1).map((_, i) => `app-b${String(i).padStart(15, '0')}`);
    const [a, b] = [gzip.with(fillsA), gzip.with(fillsB)];
    expect(gunzipSync(a).toString()).toBe(interleave(parts, fillsA));
    expect(gunzipSync(b).toString()).toBe(interleave(parts, fillsB));
    expect(a.equals(b)).toBe(false);
    const whole = gzipSync(interleave(parts, fillsA), { level: 6 });
    expect(a.length).toBeLessThan(whole.length * 1.3);
    expect(a.length).toBeLessThan(Buffer.byteLength(interleave(parts, fillsA)) / 2);
  });

  it('refuses fills that do not fit the parts', async () => {
    const gzip = await GzipParts.prepare([Buffer.from('a'), Buffer.from('b')], 3);
    expect(() => gzip.with([])).toThrow(/1 fills expected, 0 given/);
    expect(() => gzip.with(['xyz', 'xyz'])).toThrow(/1 fills expected, 2 given/);
    expect(() => gzip.with(['xy'])).toThrow(/a fill of 2 characters where 3 go/);
    expect(() => gzip.with(['x€y'])).toThrow(/more than one byte a character/);
    await expect(GzipParts.prepare([], 3)).rejects.toThrow(/at least one part/);
    await expect(GzipParts.prepare([Buffer.from('a')], 65_536)).rejects.toThrow(/fill length/);
  });
});
