/**
 * Where a bulk load on PostgreSQL copies its rows before it inserts them (issue 40, docs/directory.md
 * "Loading listings"): a table of the service's own, not a temporary one, since a role may be refused
 * temporary tables (TEMP privilege) where it owns its schema. Each load's transaction copies into it,
 * inserts from it and empties it (TRUNCATE) before it commits: another transaction never sees them.
 * UNLOGGED: nothing in it outlives a transaction, so nothing of it needs the WAL. SQLite: nothing.
 */
import { engineOf } from '@svc/shared';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await db.schema
    .createTable('listings_load')
    .modifyFront(sql`unlogged`)
    .ifNotExists()
    .addColumn('id', 'text')
    .addColumn('domain', 'text')
    .addColumn('source', 'text')
    .addColumn('kind', 'text')
    .addColumn('document', 'text')
    .addColumn('listed', 'integer')
    .addColumn('delisted_at', 'bigint')
    .addColumn('dormant_since', 'bigint')
    .addColumn('verified_at', 'bigint')
    .addColumn('last_ping_at', 'bigint')
    .addColumn('level', 'integer')
    .addColumn('agent_door', 'integer')
    .addColumn('content_at', 'bigint')
    .addColumn('updated_at', 'bigint')
    .addColumn('revision', 'integer')
    .addColumn('content_revision', 'integer')
    .addColumn('page_version', 'text')
    .addColumn('page_inputs', 'text')
    .addColumn('page_fixed', 'text')
    .execute();
}
