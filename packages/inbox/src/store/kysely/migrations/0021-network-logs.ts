/**
 * The networks' evidence logs as this inbox checks them (issue 39, docs/receipts.md "The networks'
 * logs"): per network the key its heads are signed with (kept from the first check), the last head
 * checked and what went wrong; per published receipt where the network's log holds it, or since when
 * it is missing there.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('network_logs')
    .ifNotExists()
    .addColumn('origin', t.text, (c) => c.primaryKey())
    .addColumn('vkey', t.text)
    .addColumn('checkpoint', t.text)
    .addColumn('size', t.bigint)
    .addColumn('checked_at', t.bigint)
    .addColumn('problem', t.text)
    .addColumn('problem_at', t.bigint)
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.alterTable('receipt_publications').addColumn('log_index', t.bigint).execute();
  await db.schema.alterTable('receipt_publications').addColumn('logged_at', t.bigint).execute();
  await db.schema.alterTable('receipt_publications').addColumn('log_missing_since', t.bigint).execute();
}
