/**
 * Who a customer is, beyond an item's access token (docs/identity.md): agents that signed their
 * requests (svc-agent/1) and the items they signed for, the signatures of changes already taken (a
 * copy is a retry only from the same agent with the same idempotency key), and one-time codes that
 * prove a customer's address (verify_customer), kept hashed.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('jkt', 'text', (c) => c.primaryKey())
    .addColumn('platform', 'text')
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('item_agents')
    .addColumn('item_id', 'text', (c) => c.primaryKey())
    .addColumn('jkt', 'text', (c) => c.notNull())
    .addColumn('platform', 'text')
    .addColumn('signed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('item_agents_jkt').on('item_agents').column('jkt').execute();
  await db.schema
    .createTable('signature_uses')
    .addColumn('signature_id', 'text', (c) => c.primaryKey())
    .addColumn('jkt', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('keep_until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signature_uses_keep_until').on('signature_uses').column('keep_until').execute();
  await db.schema
    .createTable('customer_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('address_hash', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('sent_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('customer_codes_item').on('customer_codes').columns(['item_id', 'created_at']).execute();
  await db.schema.createIndex('customer_codes_address').on('customer_codes').columns(['address_hash', 'created_at']).execute();
  await db.schema
    .createTable('item_proofs')
    .addColumn('item_id', 'text', (c) => c.primaryKey())
    .addColumn('address_hash', 'text', (c) => c.notNull())
    .addColumn('proven_at', 'bigint', (c) => c.notNull())
    .execute();
}
