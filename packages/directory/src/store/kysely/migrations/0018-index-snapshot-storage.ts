/**
 * Index snapshots' chunks kept uncompressed on PostgreSQL (issue 40, docs/directory.md "A node ready
 * in seconds"): a snapshot's typed arrays compress little, and pglz, tried on every chunk written and
 * undone at every read, made writing and reading one a start's largest cost. SQLite: nothing changes.
 */
import { storeUncompressed } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await storeUncompressed(db, 'index_snapshot_chunks', 'bytes');
}
