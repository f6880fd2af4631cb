/**
 * Passes presented at this inbox (docs/identity.md "Passes and networks"): for each item, the networks
 * a customer's pass was presented to, the pairwise person id and standing each answered, and what each
 * network's status is for the item (issued, presented, pending, unreachable…).
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('item_persons')
    .addColumn('item_id', t.text, (c) => c.notNull())
    .addColumn('network', t.text, (c) => c.notNull())
    .addColumn('ppid', t.text, (c) => c.notNull())
    .addColumn('presentation_id', t.text, (c) => c.notNull())
    .addColumn('standing', t.text, (c) => c.notNull())
    .addColumn('address_hash', t.text)
    .addColumn('presented_at', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('item_persons_pk', ['item_id', 'network'])
    .execute();
  await db.schema.createIndex('item_persons_address').on('item_persons').column('address_hash').execute();
  await db.schema
    .createTable('item_networks')
    .addColumn('item_id', t.text, (c) => c.notNull())
    .addColumn('network', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('item_networks_pk', ['item_id', 'network'])
    .execute();
}
