/**
 * The evidence log as a Merkle tree (RFC 9162 hashing, @svc/verify): roots, inclusion and
 * consistency proofs, hash and data tiles (C2SP tlog-tiles), and signed heads (C2SP
 * tlog-checkpoint). A whole tile's root (256 entries) is computed once and kept (evidence_blocks);
 * roots of larger aligned subtrees are kept in memory; so a root or a proof over a million entries
 * reads at most two tiles of leaf hashes and hashes a few thousand nodes the first time, a few dozen
 * after. Entries never change, so nothing kept here ever goes stale.
 */
import {
  TILE_WIDTH,
  checkpointText,
  consistencyProof,
  encodeDataTile,
  hashTile,
  inclusionProof,
  leavesPerHash,
  subtreeRoot,
  treeRoot,
  type HashSource,
  type TileName,
} from '@svc/verify';
import type { DirectoryStore, StoredCheckpoint } from '../../store/store.js';
import type { NetworkKey } from './network-key.js';

export class EvidenceTree {
  readonly #store: DirectoryStore;
  /** Roots of whole tiles, in order (tile i covers entries [256i, 256i + 256)). */
  readonly #blocks: Buffer[] = [];
  /** Roots of aligned subtrees larger than a tile, by "start:size". */
  readonly #roots = new Map<string, Buffer>();
  /** Roots of aligned subtrees of 16 to 128 entries, computed lately (a proof reads a few of each tile it passes). */
  readonly #small = new Kept<Buffer>(50_000);
  #loading: Promise<void> | null = null;
  /** Leaf hashes of whole tiles read lately (they never change), and the bytes of whole tiles served lately. */
  readonly #tileLeaves = new Kept<Buffer[]>(1_024);
  readonly #tileBytes = new Kept<Buffer>(64);

  constructor(store: DirectoryStore) {
    this.#store = store;
  }

  /** Makes sure every whole tile below `size` has its root, reading the kept ones and computing (and keeping) the rest. */
  async #ensureBlocks(size: number): Promise<void> {
    const whole = Math.floor(size / TILE_WIDTH);
    while (this.#blocks.length < whole) {
      if (this.#loading) {
        await this.#loading;
        continue;
      }
      this.#loading = this.#loadBlocks(whole).finally(() => {
        this.#loading = null;
      });
      await this.#loading;
    }
  }

  async #loadBlocks(whole: number): Promise<void> {
    for (const hash of await this.#store.evidence.blocks(this.#blocks.length)) {
      if (this.#blocks.length >= whole) break;
      this.#blocks.push(hash);
    }
    const computed: { index: number; hash: Buffer }[] = [];
    while (this.#blocks.length < whole) {
      const index = this.#blocks.length;
      const leaves = await this.#store.evidence.leafHashes(index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
      if (leaves.length !== TILE_WIDTH) throw new Error(`the evidence log lacks entries of tile ${index}`);
      const hash = subtreeRoot({ leaf: (i) => leaves[i - index * TILE_WIDTH] as Buffer }, index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
      this.#blocks.push(hash);
      computed.push({ index, hash });
    }
    if (computed.length > 0) await this.#store.evidence.putBlocks(computed);
  }

  /** A source for a tree of `size` entries with the leaf hashes of the tiles holding `indexes` (and the last, partial one) read. */
  async #source(size: number, indexes: readonly number[] = []): Promise<HashSource> {
    await this.#ensureBlocks(size);
    const leaves = new Map<number, Buffer>();
    const tiles = new Set<number>();
    for (const i of indexes) if (i >= 0 && i < size) tiles.add(Math.floor(i / TILE_WIDTH));
    if (size % TILE_WIDTH !== 0) tiles.add(Math.floor(size / TILE_WIDTH));
    for (const tile of tiles) {
      const start = tile * TILE_WIDTH;
      // A tile's leaves as of a width never change: the partial last tile is kept by its width too.
      const key = `${tile}:${Math.min(size, start + TILE_WIDTH) - start}`;
      const hashes = this.#tileLeaves.get(key) ?? (await this.#store.evidence.leafHashes(start, Math.min(size, start + TILE_WIDTH)));
      this.#tileLeaves.set(key, hashes);
      hashes.forEach((h, k) => leaves.set(start + k, h));
    }
    // An aligned subtree wholly inside the tree never changes (entries never do): kept whatever the size asked.
    const whole = size;
    return {
      leaf: (i) => {
        const h = leaves.get(i);
        if (!h) throw new Error(`leaf ${i} was not read`);
        return h;
      },
      known: (start, n) => (n === TILE_WIDTH ? this.#blocks[start / TILE_WIDTH] : n > TILE_WIDTH ? this.#roots.get(`${start}:${n}`) : n >= 16 && start + n <= whole ? this.#small.get(`${start}:${n}`) : undefined),
      remember: (start, n, root) => {
        if (start + n > whole) return;
        if (n > TILE_WIDTH) this.#roots.set(`${start}:${n}`, root);
        else if (n >= 16 && n < TILE_WIDTH) this.#small.set(`${start}:${n}`, root);
      },
    };
  }

  async root(size: number): Promise<Buffer> {
    return treeRoot(await this.#source(size), size);
  }

  async inclusion(index: number, size: number): Promise<Buffer[]> {
    return inclusionProof(await this.#source(size, [index]), index, size);
  }

  async consistency(first: number, second: number): Promise<Buffer[]> {
    return consistencyProof(await this.#source(second, [first - 1, first]), first, second);
  }

  /** A hash tile's bytes, or a data tile's (entries as kept); whole tiles served lately are kept (a tile never changes). */
  async tile(tile: TileName): Promise<Buffer> {
    const key = `${tile.level}/${tile.index}/${tile.width}`;
    const kept = this.#tileBytes.get(key);
    if (kept) return kept;
    const bytes = await this.#tileOf(tile);
    if (tile.width === TILE_WIDTH) this.#tileBytes.set(key, bytes);
    return bytes;
  }

  async #tileOf(tile: TileName): Promise<Buffer> {
    if (tile.level === 'entries') {
      const start = tile.index * TILE_WIDTH;
      const rows = await this.#store.evidence.entries(start, start + tile.width);
      return encodeDataTile(rows.map((r) => Buffer.from(r.entry, 'utf8')));
    }
    if (tile.level === 0) return Buffer.concat(await this.#store.evidence.leafHashes(tile.index * TILE_WIDTH, tile.index * TILE_WIDTH + tile.width));
    const span = leavesPerHash(tile.level);
    const size = (tile.index * TILE_WIDTH + tile.width) * span;
    return hashTile(await this.#source(size), { ...tile, level: tile.level });
  }
}

/** A small map that forgets the entry used least lately. */
export class Kept<T> {
  readonly #max: number;
  readonly #map = new Map<string, T>();
  constructor(max: number) {
    this.#max = max;
  }
  get(key: string): T | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }
  delete(key: string): void {
    this.#map.delete(key);
  }
  set(key: string, value: T): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as string);
  }
}

/** The log's origin line (C2SP tlog-checkpoint) and its key's name: `<host>/v1/log`. */
export const logOrigin = (key: NetworkKey) => key.name;

/**
 * Signs the log's head as it is now, unless the last signed head has that size already; kept, so
 * every head ever signed stays verifiable against the log (and against each other).
 */
export async function signHead(store: DirectoryStore, tree: EvidenceTree, key: NetworkKey, nowMs: number): Promise<StoredCheckpoint> {
  const size = await store.evidence.size();
  const latest = await store.evidence.latestCheckpoint();
  if (latest && latest.size >= size) return latest;
  const root = await tree.root(size);
  const note = key.sign(checkpointText({ origin: logOrigin(key), size, root, extensions: [] }));
  const checkpoint = { size, root, note, signedAt: nowMs };
  await store.evidence.putCheckpoint(checkpoint);
  return (await store.evidence.latestCheckpoint()) ?? checkpoint;
}
