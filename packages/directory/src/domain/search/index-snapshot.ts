/**
 * A search node's index as bytes (issue 40, docs/directory.md "A node ready in seconds"): a node
 * that built its index (or laid it out in a new hour's order) writes it where every node reads it
 * (PostgreSQL: the database; SQLite: files beside its file), and a node starting later reads the newest instead of building its own from every listing, then follows the
 * change feed from the revision the snapshot was built at.
 *
 * Bytes: `DIRINDEX`, the format (u32 LE), the header's length (u32 LE), the header (JSON: what the
 * snapshot is, the typed arrays' names, types and lengths, and the values that are not typed
 * arrays), the arrays' bytes one after another, then the SHA-256 of everything before it. A snapshot
 * of another format, or whose digest or sizes disagree (cut short, damaged), is refused and the node
 * builds its index from the database as before.
 *
 * What is in it is listed once, in search-index.ts (`Index.partsOf` / `Index.fromParts`) and here
 * for the stats' counts: a change of either is a change of SNAPSHOT_FORMAT.
 */
import { createHash } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import { backgroundTurn, pauseAfterQuery } from '../stepwise.js';
import type { IndexSnapshotStore } from '../../store/store.js';
import { indexFromParts, indexParts, type IndexParts, type SearchIndex } from './search-index.js';

/** Raise with any change of what a snapshot holds or of how the index is made from listings (a snapshot of another format is never read). */
export const SNAPSHOT_FORMAT = 3;
/** Snapshots kept in the database: the newest, and the one before while a node may still be reading it. */
export const SNAPSHOTS_KEPT = 2;
const MAGIC = Buffer.from('DIRINDEX', 'latin1');
const HEAD = 16;
const DIGEST = 32;
/**
 * Bytes per stored chunk. On PostgreSQL each is one statement, handed to the socket in one write on
 * the node's thread: at 1 MB those writes held the searches behind them for milliseconds each
 * (a tenth of the thread's time while a snapshot was written at 1 M listings), at 64 KB under one.
 */
const CHUNK = 1 << 16;
/** Bytes copied and hashed between turns of the event loop (under a millisecond: a search waits no longer). */
const SLICE = 1 << 18;

type Typed = Int32Array | Float64Array | Uint32Array | Uint8Array | Uint16Array;
const TYPES = { i32: Int32Array, f64: Float64Array, u32: Uint32Array, u8: Uint8Array, u16: Uint16Array } as const;
type TypeName = keyof typeof TYPES;

function typeOf(array: Typed): TypeName {
  if (array instanceof Int32Array) return 'i32';
  if (array instanceof Float64Array) return 'f64';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Uint16Array) return 'u16';
  return 'u8';
}

/** What a snapshot is: the node reading it decides from this whether it may serve it. */
export interface SnapshotInfo {
  format: number;
  /** Every listing write up to this revision is in the index; a node follows the change feed from here. */
  builtRevision: number;
  /** The hour whose order the index is laid out in, and the SHA-256 of that order's bytes. */
  hourStart: number;
  orderHash: string;
  /** The vocabulary release the index was made with (category words): another release makes another index. */
  vocabulary: string;
  listings: number;
}

/** Why a snapshot was not used (the node then builds from the database). */
export class SnapshotRefused extends Error {
  constructor(reason: string) {
    super(`index snapshot not used: ${reason}`);
    this.name = 'SnapshotRefused';
  }
}

/**
 * SHA-256 of an hour's order as stored (its Int32 values, little-endian), a turn of the event loop
 * after every SLICE hashed: 20 MB at 5 M listings is ~15 ms of hashing.
 */
async function orderHashInSlices(order: Int32Array): Promise<string> {
  const bytes = new Uint8Array(order.buffer, order.byteOffset, order.byteLength);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += SLICE) {
    hash.update(bytes.subarray(at, at + SLICE));
    await backgroundTurn();
  }
  return hash.digest('hex');
}

function bytesOf(array: Typed): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * The snapshot's bytes in chunks of CHUNK, a turn of the event loop after every SLICE copied and
 * hashed (searches go on while it is written: hashing a whole chunk at once held them ~20 ms).
 * `paced`: the chunks are written into a database server (PostgreSQL), and after each the next
 * waits as long as that write took (stepwise.ts pacedQuery).
 */
export async function* encodeSnapshot(info: SnapshotInfo, arrays: Record<string, Typed>, values: Record<string, unknown>, paced = false): AsyncGenerator<Buffer> {
  const names = Object.keys(arrays);
  const header = Buffer.from(JSON.stringify({ info, arrays: names.map((name) => [name, typeOf(arrays[name]!), arrays[name]!.length]), values }), 'utf8');
  const head = Buffer.alloc(HEAD);
  MAGIC.copy(head, 0);
  head.writeUInt32LE(info.format, 8);
  head.writeUInt32LE(header.length, 12);
  const parts = [head, header, ...names.map((name) => bytesOf(arrays[name]!))];
  const hash = createHash('sha256');
  let chunk = Buffer.allocUnsafe(CHUNK);
  let filled = 0;
  let sinceTurn = 0;
  for (const part of parts) {
    for (let at = 0; at < part.length; ) {
      const n = Math.min(part.length - at, CHUNK - filled, SLICE);
      part.copy(chunk, filled, at, at + n);
      hash.update(chunk.subarray(filled, filled + n));
      filled += n;
      at += n;
      sinceTurn += n;
      if (sinceTurn >= SLICE) {
        sinceTurn = 0;
        await backgroundTurn();
      }
      if (filled === CHUNK) {
        const handed = performance.now();
        yield chunk;
        if (paced) await pauseAfterQuery(performance.now() - handed);
        chunk = Buffer.allocUnsafe(CHUNK);
        filled = 0;
      }
    }
  }
  yield Buffer.concat([chunk.subarray(0, filled), hash.digest()]);
}

/** The snapshot's info, arrays and values; throws SnapshotRefused when the bytes are not a whole snapshot of this format. */
export async function decodeSnapshot(bytes: Buffer): Promise<{ info: SnapshotInfo; arrays: Record<string, Typed>; values: Record<string, unknown> }> {
  if (bytes.length < HEAD + DIGEST || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new SnapshotRefused('not a snapshot');
  const format = bytes.readUInt32LE(8);
  if (format !== SNAPSHOT_FORMAT) throw new SnapshotRefused(`format ${format}, this node reads ${SNAPSHOT_FORMAT}`);
  const body = bytes.length - DIGEST;
  const hash = createHash('sha256');
  for (let at = 0; at < body; at += CHUNK) {
    hash.update(bytes.subarray(at, Math.min(body, at + CHUNK)));
    await turn();
  }
  if (!hash.digest().equals(bytes.subarray(body))) throw new SnapshotRefused('its digest disagrees (damaged or cut short)');
  const headerEnd = HEAD + bytes.readUInt32LE(12);
  if (headerEnd > body) throw new SnapshotRefused('its header runs past its end');
  const header = JSON.parse(bytes.toString('utf8', HEAD, headerEnd)) as { info: SnapshotInfo; arrays: [string, TypeName, number][]; values: Record<string, unknown> };
  const arrays: Record<string, Typed> = {};
  let at = headerEnd;
  for (const [name, type, length] of header.arrays) {
    const Type = TYPES[type];
    if (!Type || !Number.isInteger(length) || length < 0) throw new SnapshotRefused(`array ${name} of an unknown kind`);
    const size = length * Type.BYTES_PER_ELEMENT;
    if (at + size > body) throw new SnapshotRefused(`array ${name} runs past its end`);
    // Copied out (the arrays outlive the snapshot's bytes, and an index re-laid for the next hour lets most of them go).
    const array = new Type(length);
    new Uint8Array(array.buffer).set(bytes.subarray(at, at + size));
    arrays[name] = array;
    at += size;
  }
  if (at !== body) throw new SnapshotRefused('its sizes disagree');
  return { info: header.info, arrays, values: header.values };
}

/** What a node starts from: the index as written, laid out in the hour's order. */
export interface SnapshotStart {
  main: SearchIndex;
  builtRevision: number;
  /** The snapshot was laid out in another order than the hour's stored one and was given that order (withOrder). */
  relaid: boolean;
  info: SnapshotInfo;
}

/** Reads and writes a node's snapshots where every node of the directory reads them (store/kysely/index-snapshot-store.ts). */
export class IndexSnapshots {
  readonly #store: IndexSnapshotStore;
  readonly #vocabulary: string;

  readonly #paced: boolean;

  /** `onServer`: the store writes into a database server, whose time the writes share with searches (paced). */
  constructor(store: IndexSnapshotStore, vocabulary: string, onServer = false) {
    this.#store = store;
    this.#vocabulary = vocabulary;
    this.#paced = onServer;
  }

  /** Writes the snapshot of an index built at `builtRevision` and laid out in the order of `hourStart`. */
  async write(main: SearchIndex, order: Int32Array, builtRevision: number, hourStart: number, writtenAt: number): Promise<void> {
    const parts = indexParts(main);
    const info: SnapshotInfo = { format: SNAPSHOT_FORMAT, builtRevision, hourStart, orderHash: await orderHashInSlices(order), vocabulary: this.#vocabulary, listings: main.size };
    await this.#store.put({ builtRevision, hourStart, writtenAt }, encodeSnapshot(info, parts.arrays, { index: parts.values }, this.#paced), SNAPSHOTS_KEPT);
  }

  /**
   * The newest snapshot as an index in the hour's stored `order` (re-laid when it was laid out in
   * another), or why it cannot be used: none kept, another format or vocabulary, damaged, built
   * past `revision` (a database restored from before it).
   */
  async read(order: Int32Array, revision: number): Promise<SnapshotStart | SnapshotRefused> {
    try {
      const stored = await this.#store.latest();
      if (!stored) return new SnapshotRefused('none kept');
      const { info, arrays, values } = await decodeSnapshot(stored.bytes);
      if (info.vocabulary !== this.#vocabulary) return new SnapshotRefused(`vocabulary ${info.vocabulary}, this node has ${this.#vocabulary}`);
      if (!(info.builtRevision <= revision)) return new SnapshotRefused(`built at revision ${info.builtRevision}, past the listings' ${revision}`);
      const indexArrays = arrays;
      const v = values as { index: Record<string, unknown> };
      const parts: IndexParts = { arrays: indexArrays, values: v.index };
      const laid = indexFromParts(parts);
      if (laid.size !== info.listings) return new SnapshotRefused('its size disagrees');
      // Never served in another order than the hour's stored one.
      const laidIn = indexArrays.order;
      const relaid = !(laidIn instanceof Int32Array) || !bytesOf(laidIn).equals(bytesOf(order));
      return { main: relaid ? laid.withOrder(order) : laid, builtRevision: info.builtRevision, relaid, info };
    } catch (error) {
      return error instanceof SnapshotRefused ? error : new SnapshotRefused(error instanceof Error ? error.message : String(error));
    }
  }
}
