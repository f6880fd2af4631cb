/**
 * Search nodes' index snapshots in the database (migration 0016): chunks first, each its own short
 * statement (on SQLite no write waits long behind one), then the snapshot's row, so a reader only
 * ever finds whole snapshots; older ones are dropped beyond the newest few.
 */
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { IndexSnapshotStore, StoredIndexSnapshot } from '../store.js';
import type { DirectoryDatabase } from './schema.js';

/** Chunks read per query (a few MB each): a node's memory holds these and the snapshot being joined. */
const READ_ROUND = 8;

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

  async latest(): Promise<StoredIndexSnapshot | null> {
    const row = await this.#db.selectFrom('index_snapshots').selectAll().orderBy('written_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    if (!row) return null;
    const id = Number(row.id);
    const parts: Buffer[] = [];
    for (let from = 0; from < row.chunks; from += READ_ROUND) {
      const rows = await this.#db
        .selectFrom('index_snapshot_chunks')
        .select(['part', 'bytes'])
        .where('snapshot_id', '=', id)
        .where('part', '>=', from)
        .where('part', '<', from + READ_ROUND)
        .orderBy('part')
        .execute();
      for (const chunk of rows) {
        // A part missing (dropped while read by a newer snapshot's writer): not whole, so none.
        if (chunk.part !== parts.length) return null;
        parts.push(Buffer.from(chunk.bytes));
      }
    }
    if (parts.length !== row.chunks) return null;
    return { id, builtRevision: Number(row.built_revision), hourStart: Number(row.hour_start), writtenAt: Number(row.written_at), bytes: Buffer.concat(parts) };
  }
}
