/**
 * Snapshots of a search node's index (issue 40, docs/directory.md "A node ready in seconds"): a node
 * that built its index writes it here, in chunks of a few MB, and a node starting later reads the
 * newest instead of building its own from every listing. A snapshot is its chunks and, written
 * last, its row in `index_snapshots`: a reader sees only whole ones.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('index_snapshots')
    .ifNotExists()
    .addColumn('id', t.bigint, (c) => c.primaryKey())
    .addColumn('built_revision', t.bigint, (c) => c.notNull())
    .addColumn('hour_start', t.bigint, (c) => c.notNull())
    .addColumn('chunks', t.integer, (c) => c.notNull())
    .addColumn('bytes', t.bigint, (c) => c.notNull())
    .addColumn('written_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('index_snapshot_chunks')
    .ifNotExists()
    .addColumn('snapshot_id', t.bigint, (c) => c.notNull())
    .addColumn('part', t.integer, (c) => c.notNull())
    .addColumn('bytes', t.blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('index_snapshot_chunks_pk', ['snapshot_id', 'part'])
    .execute();
}
