/**
 * Calls made outside a principal's scopes (inbox spec §2 "API key", §5), and what the inbox learnt
 * from each directory network it reports to (get_networks, §2 "Network entry").
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per principal, operation and missing scope; counts instead of a row per call, so a
  // misbehaving integration cannot grow the table without bound.
  await db.schema
    .createTable('scope_misses')
    .addColumn('principal_id', 'text', (c) => c.notNull())
    .addColumn('principal_kind', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addColumn('refused', 'integer', (c) => c.notNull())
    .addColumn('first_at', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scope_misses_pk', ['principal_id', 'operation', 'scope'])
    .execute();
  await db.schema
    .createTable('network_status')
    .addColumn('origin', 'text', (c) => c.primaryKey())
    .addColumn('registered_at', 'bigint')
    .addColumn('last_ping_at', 'bigint')
    .addColumn('verification', 'text')
    .addColumn('verified_at', 'bigint')
    .addColumn('listed', 'integer')
    .addColumn('status_checked_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
