/** The inbox's first schema: catalogue, items with their events and conversation, keys, jobs. */
import { createJobsTable } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('business')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('duration_min', 'integer', (c) => c.notNull())
    .addColumn('price_model', 'text', (c) => c.notNull())
    .addColumn('price_minor', 'bigint')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('capacity', 'integer', (c) => c.notNull())
    .addColumn('max_party_size', 'integer', (c) => c.notNull())
    .addColumn('slot_step_min', 'integer', (c) => c.notNull())
    .addColumn('min_notice_min', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sku', 'text', (c) => c.unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('price_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('image_url', 'text')
    .addColumn('url', 'text')
    .addColumn('in_stock', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_by_name').on('products').columns(['active', 'name', 'id']).execute();
  await db.schema
    .createTable('opening_hours')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('day_of_week', 'integer', (c) => c.notNull())
    .addColumn('opens', 'text', (c) => c.notNull())
    .addColumn('closes', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('closures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .execute();
  await db.schema
    .createTable('items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('contact', 'text')
    .addColumn('contact_email', 'text')
    .addColumn('needs_human', 'integer', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull())
    .addColumn('access_token_hash', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('service_id', 'text')
    .addColumn('start_at', 'bigint')
    .addColumn('end_at', 'bigint')
    .addColumn('party_size', 'integer')
    .addColumn('linked_item_id', 'text')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('is_open', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('closed_at', 'bigint')
    .execute();
  await db.schema.createIndex('items_newest').on('items').columns(['is_open', 'id']).execute();
  await db.schema.createIndex('items_by_type_state').on('items').columns(['type', 'state', 'id']).execute();
  await db.schema.createIndex('items_by_contact_email').on('items').columns(['contact_email', 'id']).execute();
  await db.schema.createIndex('items_slots').on('items').columns(['service_id', 'state', 'start_at']).execute();
  await db.schema
    .createTable('item_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('item_id', 'text', (c) => c.notNull().references('items.id'))
    .addColumn('seq', 'integer')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('from_state', 'text')
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('data', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The database, not the code, decides a race between two transitions of one item.
  await db.schema.createIndex('item_events_seq').on('item_events').columns(['item_id', 'seq']).unique().execute();
  await db.schema.createIndex('item_events_by_item').on('item_events').columns(['item_id', 'id']).execute();
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('item_id', 'text', (c) => c.notNull().references('items.id'))
    .addColumn('author_kind', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('author_name', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('internal', 'integer', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_by_item').on('messages').columns(['item_id', 'id']).execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope_key', 'text', (c) => c.primaryKey())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('preset', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('created_by_kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await createJobsTable(db);
}
