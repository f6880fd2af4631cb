/**
 * Calls made outside a principal's scopes (inbox spec §2 "API key", §5), and what the inbox learnt
 * from each directory network it reports to (get_networks, §2 "Network entry").
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // One row per principal, operation and missing scope; counts instead of a row per call, so a
  // misbehaving integration cannot grow the table without bound.
  await db.schema
    .createTable('scope_misses')
    .addColumn('principal_id', t.text, (c) => c.notNull())
    .addColumn('principal_kind', t.text, (c) => c.notNull())
    .addColumn('operation', t.text, (c) => c.notNull())
    .addColumn('scope', t.text, (c) => c.notNull())
    .addColumn('calls', t.integer, (c) => c.notNull())
    .addColumn('refused', t.integer, (c) => c.notNull())
    .addColumn('first_at', t.bigint, (c) => c.notNull())
    .addColumn('last_at', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('scope_misses_pk', ['principal_id', 'operation', 'scope'])
    .execute();
  await db.schema
    .createTable('network_status')
    .addColumn('origin', t.text, (c) => c.primaryKey())
    .addColumn('registered_at', t.bigint)
    .addColumn('last_ping_at', t.bigint)
    .addColumn('verification', t.text)
    .addColumn('verified_at', t.bigint)
    .addColumn('listed', t.integer)
    .addColumn('status_checked_at', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('last_error_at', t.bigint)
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
}
