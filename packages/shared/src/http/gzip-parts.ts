/**
 * A gzip answer assembled from parts compressed once, with fresh text between them (docs/http.md
 * "Compression"). A kept page of the owner app is the same bytes on every serving but for its form
 * keys; compressing the whole page again for each browser cost several times the rest of the serving.
 * So each part between two keys is compressed once, as a raw DEFLATE stream of its own that ends
 * flushed to a byte, and a serving writes the parts back to back with each key as an uncompressed
 * (stored) DEFLATE block between them (RFC 1951 §3.2.4), inside a gzip header and trailer (RFC 1952)
 * whose CRC-32 is each part's, counted once, put together with the fills' (crc32.ts).
 *
 * A part may still refer back to the parts before it (a page repeats its forms): it is compressed
 * with what precedes it as the dictionary, each fill there as NUL bytes of the fill's fixed length.
 * A reference copies bytes equal to the part's own, and a part holds no NUL (one that does is
 * compressed without a dictionary), so no reference reaches into a fill, and every distance is
 * the same in the served stream. That makes it about as small as gzip of the whole page; gzip, not
 * brotli: brotli has no stored block to put fresh bytes in.
 */
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { crc32, crc32Combine, crc32Shift } from './crc32.js';

/** ID1 ID2, CM = deflate, no flags, no time, no extra flags, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** A stored block's header byte (BFINAL 0, BTYPE 00, padded to the byte), then LEN and NLEN. */
const STORED_HEADER_BYTES = 5;
/** The most a stored block holds (its LEN is 16 bits). */
const MAX_STORED_BYTES = 0xffff;
const TRAILER_BYTES = 8;
/** How far back a DEFLATE reference reaches (zlib's default window). */
const WINDOW_BYTES = 32 * 1024;
/** A character a byte cannot hold (fills are written as latin1). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

const deflateRawAsync = promisify(zlib.deflateRaw) as (data: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

export class GzipParts {
  readonly #deflated: readonly Buffer[];
  readonly #deflatedLength: number;
  readonly #parts: readonly Buffer[];
  readonly #partsLength: number;
  readonly #fillLength: number;
  /** Each part's CRC-32, and what moves a CRC past it. */
  readonly #partCrcs: readonly number[];
  readonly #partShifts: readonly number[];

  private constructor(parts: readonly Buffer[], fillLength: number, deflated: readonly Buffer[]) {
    this.#parts = parts;
    this.#fillLength = fillLength;
    this.#deflated = deflated;
    this.#partCrcs = parts.map((part) => crc32(part));
    this.#partShifts = parts.map((part) => crc32Shift(part.length));
    this.#deflatedLength = deflated.reduce((sum, part) => sum + part.length, 0);
    this.#partsLength = parts.reduce((sum, part) => sum + part.length, 0);
  }

  /**
   * Compresses each part once, off the event loop (libuv's thread pool, the parts side by side: an
   * owner's item page of 9 KB in eleven parts takes about 0.7 ms of CPU). Every fill given later
   * is `fillLength` bytes long.
   */
  static async prepare(parts: readonly Buffer[], fillLength: number, level = 6): Promise<GzipParts> {
    if (parts.length === 0) throw new Error('gzip parts: at least one part');
    if (!Number.isInteger(fillLength) || fillLength < 0 || fillLength > MAX_STORED_BYTES) throw new Error('gzip parts: a fill length of 0 to 65,535 bytes');
    const last = parts.length - 1;
    const filler = Buffer.alloc(fillLength);
    // What the reader holds when each part begins, fills as NUL bytes; never more than a window.
    let before = Buffer.alloc(0);
    const deflating = parts.map((part, i) => {
      const options: zlib.ZlibOptions = { level, finishFlush: i === last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH };
      if (before.length > 0 && !part.includes(0)) options.dictionary = before;
      if (i < last) before = Buffer.concat([before, part, filler]).subarray(-WINDOW_BYTES);
      return deflateRawAsync(part, options);
    });
    return new GzipParts(parts, fillLength, await Promise.all(deflating));
  }

  /**
   * The gzip stream of parts[0] fills[0] parts[1] … parts[n]: one fill fewer than parts, each fill
   * text of one byte a character (latin1), of the fill length given.
   */
  with(fills: readonly string[]): Buffer {
    if (fills.length !== this.#parts.length - 1) throw new Error(`gzip parts: ${this.#parts.length - 1} fills expected, ${fills.length} given`);
    let fillsLength = 0;
    for (const fill of fills) {
      if (fill.length !== this.#fillLength) throw new Error(`gzip parts: a fill of ${fill.length} characters where ${this.#fillLength} go`);
      if (BEYOND_LATIN1.test(fill)) throw new Error('gzip parts: a fill of more than one byte a character');
      fillsLength += fill.length;
    }
    const out = Buffer.allocUnsafe(GZIP_HEADER.length + this.#deflatedLength + fills.length * STORED_HEADER_BYTES + fillsLength + TRAILER_BYTES);
    let at = GZIP_HEADER.copy(out, 0);
    let crc = this.#partCrcs[0]!;
    at += this.#deflated[0]!.copy(out, at);
    for (let i = 0; i < fills.length; i++) {
      const fill = fills[i]!;
      out[at] = 0x00;
      out.writeUInt16LE(fill.length, at + 1);
      out.writeUInt16LE(~fill.length & 0xffff, at + 3);
      at += STORED_HEADER_BYTES;
      const written = out.write(fill, at, 'latin1');
      crc = crc32(out, crc, at, at + written);
      at += written;
      crc = crc32Combine(crc, this.#partCrcs[i + 1]!, this.#partShifts[i + 1]!);
      at += this.#deflated[i + 1]!.copy(out, at);
    }
    out.writeUInt32LE(crc >>> 0, at);
    out.writeUInt32LE((this.#partsLength + fillsLength) % 0x1_0000_0000, at + 4);
    return out;
  }
}
