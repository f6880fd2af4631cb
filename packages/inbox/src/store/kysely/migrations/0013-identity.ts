/**
 * Who a customer is, beyond an item's access token (docs/identity.md): agents that signed their
 * requests (svc-agent/1) and the items they signed for, the signatures of changes already taken (a
 * copy is a retry only from the same agent with the same idempotency key), and one-time codes that
 * prove a customer's address (verify_customer), kept hashed.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('agents')
    .addColumn('jkt', t.text, (c) => c.primaryKey())
    .addColumn('platform', t.text)
    .addColumn('public_jwk', t.text, (c) => c.notNull())
    .addColumn('first_seen', t.bigint, (c) => c.notNull())
    .addColumn('last_seen', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('item_agents')
    .addColumn('item_id', t.text, (c) => c.primaryKey())
    .addColumn('jkt', t.text, (c) => c.notNull())
    .addColumn('platform', t.text)
    .addColumn('signed_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('item_agents_jkt').on('item_agents').column('jkt').execute();
  await db.schema
    .createTable('signature_uses')
    .addColumn('signature_id', t.text, (c) => c.primaryKey())
    .addColumn('jkt', t.text, (c) => c.notNull())
    .addColumn('idempotency_key', t.text)
    .addColumn('keep_until', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signature_uses_keep_until').on('signature_uses').column('keep_until').execute();
  await db.schema
    .createTable('customer_codes')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('item_id', t.text, (c) => c.notNull())
    .addColumn('address_hash', t.text, (c) => c.notNull())
    .addColumn('code_hash', t.text, (c) => c.notNull())
    .addColumn('sent_to', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', t.bigint)
    .execute();
  await db.schema.createIndex('customer_codes_item').on('customer_codes').columns(['item_id', 'created_at']).execute();
  await db.schema.createIndex('customer_codes_address').on('customer_codes').columns(['address_hash', 'created_at']).execute();
  await db.schema
    .createTable('item_proofs')
    .addColumn('item_id', t.text, (c) => c.primaryKey())
    .addColumn('address_hash', t.text, (c) => c.notNull())
    .addColumn('proven_at', t.bigint, (c) => c.notNull())
    .execute();
}
