/**
 * Search nodes' index snapshots. On PostgreSQL in the database (migration 0016): chunks first, each its own short
 * statement (on SQLite no write waits long behind one), then the snapshot's row, so a reader only
 * ever finds whole snapshots; older ones are dropped beyond the newest few.
 */
import { randomInt } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { bulkBytes, copyBytesInto } from '@svc/shared';
import type { Kysely } from 'kysely';
import { heapCollector } from '../../heap-pages.js';
import type { IndexSnapshotStore, StoredIndexSnapshot } from '../store.js';
import type { DirectoryDatabase } from './schema.js';

/**
 * Chunks read per query (64 KB each, index-snapshot.ts): 8 MB. On PostgreSQL a round's chunks
 * arrive as base64 texts in the V8 heap all at once (node-postgres keeps a query's rows until it
 * ends), so a round is kept small. 1 M listings' snapshot (239 MB) reads in 2.0 s in rounds of
 * 8 MB, 2.1 s in rounds of 4 MB, and took 1.6 s in rounds of 32 MB joined from parts.
 */
const READ_ROUND = 128;

export class KyselyIndexSnapshotStore implements IndexSnapshotStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async put(info: { builtRevision: number; hourStart: number; writtenAt: number }, chunks: AsyncIterable<Buffer>, keep: number): Promise<void> {
    // Random, so two nodes writing at once never write into one snapshot.
    const id = randomInt(1, 2 ** 47);
    let part = 0;
    let bytes = 0;
    try {
      for await (const chunk of chunks) {
        await this.#db.insertInto('index_snapshot_chunks').values({ snapshot_id: id, part, bytes: chunk }).execute();
        part += 1;
        bytes += chunk.length;
      }
      await this.#db.insertInto('index_snapshots').values({ id, built_revision: info.builtRevision, hour_start: info.hourStart, chunks: part, bytes, written_at: info.writtenAt }).execute();
    } catch (error) {
      await this.#db.deleteFrom('index_snapshot_chunks').where('snapshot_id', '=', id).execute().catch(() => undefined);
      throw error;
    }
    const old = await this.#db.selectFrom('index_snapshots').select('id').orderBy('written_at', 'desc').orderBy('id', 'desc').offset(Math.max(1, keep)).limit(1_000).execute();
    for (const row of old) {
      await this.#db.deleteFrom('index_snapshots').where('id', '=', row.id).execute();
      await this.#db.deleteFrom('index_snapshot_chunks').where('snapshot_id', '=', row.id).execute();
    }
  }

  async removeAll(): Promise<void> {
    await this.#db.deleteFrom('index_snapshot_chunks').execute();
    await this.#db.deleteFrom('index_snapshots').execute();
  }

  async latest(): Promise<StoredIndexSnapshot | null> {
    const row = await this.#db.selectFrom('index_snapshots').selectAll().orderBy('written_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    if (!row) return null;
    const id = Number(row.id);
    const size = Number(row.bytes);
    // Each chunk is decoded straight into the snapshot's one buffer (of its own mapping: it is
    // hundreds of MB). Joining 64 KB parts left them in the C allocator's heap, which keeps what was
    // freed below its mmap threshold: ~280 MB of a node's memory at 1 M listings.
    const bytes = Buffer.allocUnsafeSlow(size);
    let filled = 0;
    let part = 0;
    for (let from = 0; from < row.chunks; from += READ_ROUND) {
      const rows = await this.#db
        .selectFrom('index_snapshot_chunks')
        .select(['part', bulkBytes(this.#db, 'bytes').as('bytes')])
        .where('snapshot_id', '=', id)
        .where('part', '>=', from)
        .where('part', '<', from + READ_ROUND)
        .orderBy('part')
        .execute();
      for (const chunk of rows) {
        // A part missing (dropped while read by a newer snapshot's writer): not whole, so none.
        if (chunk.part !== part) return null;
        const written = copyBytesInto(bytes, filled, chunk.bytes);
        if (written === null) return null;
        filled += written;
        part += 1;
      }
      // A round's buffers (its 64 KB socket reads and the driver's joins, below glibc's mmap
      // threshold) are freed only when V8 collects. Left to it, they piled up across rounds to
      // 40–50 MB of the C allocator's main heap at 1 M listings, freed later but kept resident for
      // the node's life. A young collection after each round frees them before the next is read
      // (~1 ms each; docs/directory.md, "Memory handed back when searches pause").
      heapCollector()({ type: 'minor', execution: 'sync' });
    }
    if (part !== row.chunks || filled !== size) return null;
    return { id, writtenAt: Number(row.written_at), bytes };
  }
}

/**
 * On SQLite, files beside the database file (`<file>.index-<written at>-<id>`): one machine holds the
 * database, so every process that opens it reads them; a file reads at the disk's speed where a
 * blob in the database is a chain of 4 KB pages (3.9 s for 484 MB at 1 M listings against ~0.3 s),
 * and the database neither grows by two snapshots nor writes them twice through its WAL. Written
 * under a temporary name and renamed when whole.
 */
export class FileIndexSnapshotStore implements IndexSnapshotStore {
  readonly #file: string;
  constructor(databaseFile: string) {
    this.#file = databaseFile;
  }

  async #kept(): Promise<{ name: string; writtenAt: number; id: number }[]> {
    const folder = dirname(this.#file);
    const prefix = `${basename(this.#file)}.index-`;
    const names = await readdir(folder).catch(() => [] as string[]);
    const kept: { name: string; writtenAt: number; id: number }[] = [];
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const match = /^(\d+)-(\d+)$/.exec(name.slice(prefix.length));
      if (match) kept.push({ name: join(folder, name), writtenAt: Number(match[1]), id: Number(match[2]) });
    }
    // Newest first.
    return kept.sort((a, b) => b.writtenAt - a.writtenAt || b.id - a.id);
  }

  async put(info: { builtRevision: number; hourStart: number; writtenAt: number }, chunks: AsyncIterable<Buffer>, keep: number): Promise<void> {
    const id = randomInt(1, 2 ** 47);
    const name = `${this.#file}.index-${String(info.writtenAt).padStart(15, '0')}-${id}`;
    const partial = `${name}.partial`;
    const out = await open(partial, 'w', 0o600);
    try {
      for await (const chunk of chunks) await out.write(chunk);
      await out.sync();
    } catch (error) {
      await out.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw error;
    }
    await out.close();
    await rename(partial, name);
    for (const old of (await this.#kept()).slice(Math.max(1, keep))) await rm(old.name, { force: true });
  }

  async latest(): Promise<StoredIndexSnapshot | null> {
    for (const kept of await this.#kept()) {
      // Removed by a newer snapshot's writer meanwhile: the next one.
      const bytes = await readWhole(kept.name).catch(() => null);
      if (bytes) return { id: kept.id, writtenAt: kept.writtenAt, bytes };
    }
    return null;
  }

  async removeAll(): Promise<void> {
    for (const kept of await this.#kept()) await rm(kept.name, { force: true });
  }
}

/** A file's bytes, read in pieces (readFile stops at 2 GB; a Buffer holds up to buffer.constants.MAX_LENGTH). */
async function readWhole(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const bytes = Buffer.allocUnsafe(size);
    for (let at = 0; at < size; ) {
      const { bytesRead } = await file.read(bytes, at, Math.min(size - at, 64 << 20), at);
      if (bytesRead === 0) throw new Error(`${path} ended early`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}
