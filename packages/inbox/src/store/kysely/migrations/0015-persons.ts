/**
 * Passes presented at this inbox (docs/identity.md "Passes and networks"): for each item, the networks
 * a customer's pass was presented to, the pairwise person id and standing each answered, and what each
 * network's status is for the item (issued, presented, pending, unreachable…).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('item_persons')
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('ppid', 'text', (c) => c.notNull())
    .addColumn('presentation_id', 'text', (c) => c.notNull())
    .addColumn('standing', 'text', (c) => c.notNull())
    .addColumn('address_hash', 'text')
    .addColumn('presented_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('item_persons_pk', ['item_id', 'network'])
    .execute();
  await db.schema.createIndex('item_persons_address').on('item_persons').column('address_hash').execute();
  await db.schema
    .createTable('item_networks')
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('item_networks_pk', ['item_id', 'network'])
    .execute();
}
