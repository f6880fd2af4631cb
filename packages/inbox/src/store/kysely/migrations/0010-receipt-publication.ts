/**
 * Publishing receipts to networks (docs/receipts.md "Publication"): one row per network and receipt,
 * queued in the transaction that issued the receipt, kept for good with what became of it (waiting,
 * held, published, refused). And what each network's signed ping last answered: the owner's standing
 * there, what it holds of us, the rules it applies and what became of the ping's signature, with the
 * failure counts that space out pings and publication while a network is down.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('receipt_publications')
    .addColumn('position', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull().references('receipts.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('ack_wanted', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('ack_sent_at', 'bigint')
    .addColumn('network_state', 'text')
    .addColumn('counted', 'integer')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('refusal', 'text')
    .addColumn('refused_at', 'bigint')
    .addColumn('queued_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('receipt_publications_network_receipt', ['network', 'receipt_id'])
    .execute();
  await db.schema.createIndex('receipt_publications_due').on('receipt_publications').columns(['network', 'state', 'position']).execute();
  await db.schema.createIndex('receipt_publications_receipt').on('receipt_publications').column('receipt_id').execute();

  const columns: [string, 'text' | 'bigint' | 'integer'][] = [
    ['standing', 'text'],
    ['standing_at', 'bigint'],
    ['network_receipts', 'text'],
    ['rules_version', 'integer'],
    ['ping_signature', 'text'],
    ['ping_signature_reason', 'text'],
    ['ping_signature_at', 'bigint'],
    ['ping_failures', 'integer'],
    ['publish_failures', 'integer'],
    ['publish_retry_at', 'bigint'],
    ['publish_wait', 'text'],
  ];
  // SQLite adds one column per statement.
  for (const [name, type] of columns) await db.schema.alterTable('network_status').addColumn(name, type).execute();
}
