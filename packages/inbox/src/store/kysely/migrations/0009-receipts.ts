/**
 * Receipts the instance issued (docs/receipts.md): the compact JWS exactly as signed, what it is
 * about, and the customer's agent's acknowledgement once one came. Written in the transaction of the
 * move that made it due; never changed afterwards except to add the acknowledgement.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('receipts')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('item_id', t.text, (c) => c.notNull())
    .addColumn('item_type', t.text, (c) => c.notNull())
    .addColumn('seq', t.integer, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('outcome', t.text)
    .addColumn('event', t.text, (c) => c.notNull())
    .addColumn('kid', t.text, (c) => c.notNull())
    .addColumn('jws', t.text, (c) => c.notNull())
    .addColumn('sha256', t.text, (c) => c.notNull())
    .addColumn('sandbox', t.integer, (c) => c.notNull())
    .addColumn('issued_at', t.bigint, (c) => c.notNull())
    .addColumn('ack_jws', t.text)
    .addColumn('ack_jkt', t.text)
    .addColumn('ack_iat', t.bigint)
    .addColumn('ack_at', t.bigint)
    .addUniqueConstraint('receipts_item_seq', ['item_id', 'seq'])
    .execute();
}
