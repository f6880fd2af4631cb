/**
 * Publishing receipts to networks (docs/receipts.md "Publication"): one row per network and receipt,
 * queued in the transaction that issued the receipt, kept for good with what became of it (waiting,
 * held, published, refused). And what each network's signed ping last answered: the owner's standing
 * there, what it holds of us, the rules it applies and what became of the ping's signature, with the
 * failure counts that space out pings and publication while a network is down.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('receipt_publications')
    .addColumn('position', t.integer, t.autoKey)
    .addColumn('network', t.text, (c) => c.notNull())
    .addColumn('receipt_id', t.text, (c) => c.notNull().references('receipts.id'))
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('ack_wanted', t.integer, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('accepted_at', t.bigint)
    .addColumn('ack_sent_at', t.bigint)
    .addColumn('network_state', t.text)
    .addColumn('counted', t.integer)
    .addColumn('last_attempt_at', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('refusal', t.text)
    .addColumn('refused_at', t.bigint)
    .addColumn('queued_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
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
  for (const [name, type] of columns) await db.schema.alterTable('network_status').addColumn(name, t[type]).execute();
}
