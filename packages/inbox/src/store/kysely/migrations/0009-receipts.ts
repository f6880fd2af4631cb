/**
 * Receipts the instance issued (docs/receipts.md): the compact JWS exactly as signed, what it is
 * about, and the customer's agent's acknowledgement once one came. Written in the transaction of the
 * move that made it due; never changed afterwards except to add the acknowledgement.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('jws', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('ack_jws', 'text')
    .addColumn('ack_jkt', 'text')
    .addColumn('ack_iat', 'bigint')
    .addColumn('ack_at', 'bigint')
    .addUniqueConstraint('receipts_item_seq', ['item_id', 'seq'])
    .execute();
}
