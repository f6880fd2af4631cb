/** The owner's rules (docs/rules.md): what the owner lets happen without a person. */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('rules')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('enabled', t.integer, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('trigger_event', t.text, (c) => c.notNull())
    .addColumn('after_hours', t.integer)
    .addColumn('conditions', t.json, (c) => c.notNull())
    .addColumn('action', t.json, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rules_in_order').on('rules').columns(['enabled', 'position', 'id']).execute();
}
