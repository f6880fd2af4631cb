/**
 * Tiles as C2SP tlog-tiles lays them out: a tile holds 256 consecutive hashes of one level of the
 * tree (level L holds roots of subtrees of 256^L leaves), or, for `entries`, the 256 entries
 * themselves, each as a big-endian uint16 length and its bytes. A tile that is not full is named by
 * its width (`.p/<W>`), so every tile path always names the same bytes: all of them can be cached
 * forever. The index is written in groups of three digits, all but the last prefixed with `x`.
 */
import { HASH_BYTES, subtreeRoot, type HashSource } from './merkle.js';

export const TILE_WIDTH = 256;
export const TILE_HEIGHT = 8;

export interface TileName {
  /** A level of hashes, or the entries themselves. */
  level: number | 'entries';
  index: number;
  /** 1 to 256; below 256 for a partial tile. */
  width: number;
}

/** `1234067` → `x001/x234/067`. */
export function tileIndexPath(index: number): string {
  const digits = String(index);
  const padded = digits.padStart(Math.ceil(digits.length / 3) * 3, '0');
  const groups: string[] = [];
  for (let i = 0; i < padded.length; i += 3) groups.push(padded.slice(i, i + 3));
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

/** `tile/0/x001/234.p/7`, without a leading slash. */
export function tilePath(tile: TileName): string {
  const base = `tile/${tile.level}/${tileIndexPath(tile.index)}`;
  return tile.width === TILE_WIDTH ? base : `${base}.p/${tile.width}`;
}

/** The tile a path names (after `tile/`), or null when it names none. */
export function parseTilePath(rest: string): TileName | null {
  const parts = rest.split('/');
  const levelPart = parts.shift();
  if (levelPart === undefined) return null;
  let level: number | 'entries';
  if (levelPart === 'entries') level = 'entries';
  else if (/^(0|[1-9][0-9]?)$/.test(levelPart)) level = Number(levelPart);
  else return null;
  let width = TILE_WIDTH;
  const last = parts[parts.length - 1];
  if (parts.length >= 2 && parts[parts.length - 2]?.endsWith('.p') && last !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(last) || Number(last) >= TILE_WIDTH) return null;
    width = Number(last);
    parts.pop();
    parts[parts.length - 1] = (parts[parts.length - 1] as string).slice(0, -2);
  }
  if (parts.length === 0 || parts.length > 6) return null;
  let digits = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const pattern = i < parts.length - 1 ? /^x[0-9]{3}$/ : /^[0-9]{3}$/;
    if (!pattern.test(part)) return null;
    digits += i < parts.length - 1 ? part.slice(1) : part;
  }
  const index = Number(digits);
  // One spelling per index: no leading group of zeros.
  if (parts.length > 1 && digits.startsWith('000')) return null;
  if (!Number.isSafeInteger(index)) return null;
  return { level, index, width };
}

/** How many leaves one hash of a level-L tile covers. */
export function leavesPerHash(level: number): number {
  return TILE_WIDTH ** level;
}

/** The tile of `level` holding hash `hashIndex` of that level, and its width in a tree of `size` leaves. */
export function tileFor(level: number, tileIndex: number, size: number): TileName | null {
  const span = leavesPerHash(level);
  const hashesAtLevel = Math.floor(size / span);
  const first = tileIndex * TILE_WIDTH;
  if (first >= hashesAtLevel) return null;
  return { level, index: tileIndex, width: Math.min(TILE_WIDTH, hashesAtLevel - first) };
}

/** The bytes of a hash tile: the roots of its `width` subtrees, 32 bytes each. */
export function hashTile(src: HashSource, tile: TileName & { level: number }): Buffer {
  const span = leavesPerHash(tile.level);
  const out = Buffer.alloc(tile.width * HASH_BYTES);
  for (let i = 0; i < tile.width; i++) {
    const start = (tile.index * TILE_WIDTH + i) * span;
    subtreeRoot(src, start, start + span).copy(out, i * HASH_BYTES);
  }
  return out;
}

/** Entries as a data tile: each a big-endian uint16 length, then its bytes. */
export function encodeDataTile(entries: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.length > 0xffff) throw new RangeError('an entry of a data tile holds at most 65535 bytes');
    const head = Buffer.alloc(2);
    head.writeUInt16BE(entry.length);
    parts.push(head, Buffer.from(entry));
  }
  return Buffer.concat(parts);
}

export function decodeDataTile(bytes: Uint8Array): Buffer[] {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 2 > data.length) throw new Error('a data tile ends inside a length');
    const length = data.readUInt16BE(at);
    at += 2;
    if (at + length > data.length) throw new Error('a data tile ends inside an entry');
    entries.push(data.subarray(at, at + length));
    at += length;
  }
  return entries;
}
