/** The inbox's first schema: catalogue, items with their events and conversation, keys, jobs. */
import { columnTypes, createJobsTable } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('business')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('document', t.json, (c) => c.notNull())
    .addColumn('version', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('settings')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('document', t.json, (c) => c.notNull())
    .addColumn('version', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('services')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('duration_min', t.integer, (c) => c.notNull())
    .addColumn('price_model', t.text, (c) => c.notNull())
    .addColumn('price_minor', t.bigint)
    .addColumn('currency', t.text, (c) => c.notNull())
    .addColumn('capacity', t.integer, (c) => c.notNull())
    .addColumn('max_party_size', t.integer, (c) => c.notNull())
    .addColumn('slot_step_min', t.integer, (c) => c.notNull())
    .addColumn('min_notice_min', t.integer, (c) => c.notNull())
    .addColumn('active', t.integer, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('products')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('sku', t.text, (c) => c.unique())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('price_minor', t.bigint, (c) => c.notNull())
    .addColumn('currency', t.text, (c) => c.notNull())
    .addColumn('category', t.text)
    .addColumn('image_url', t.text)
    .addColumn('url', t.text)
    .addColumn('in_stock', t.integer, (c) => c.notNull())
    .addColumn('active', t.integer, (c) => c.notNull())
    .addColumn('search_text', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_by_name').on('products').columns(['active', 'name', 'id']).execute();
  await db.schema
    .createTable('opening_hours')
    .addColumn('id', t.integer, t.autoKey)
    .addColumn('day_of_week', t.integer, (c) => c.notNull())
    .addColumn('opens', t.text, (c) => c.notNull())
    .addColumn('closes', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('closures')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('start_date', t.text, (c) => c.notNull())
    .addColumn('end_date', t.text, (c) => c.notNull())
    .addColumn('reason', t.text)
    .execute();
  await db.schema
    .createTable('items')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('version', t.integer, (c) => c.notNull())
    .addColumn('payload', t.json, (c) => c.notNull())
    .addColumn('contact', t.json)
    .addColumn('contact_email', t.text)
    .addColumn('needs_human', t.integer, (c) => c.notNull())
    .addColumn('priority', t.integer, (c) => c.notNull())
    .addColumn('sandbox', t.integer, (c) => c.notNull())
    .addColumn('access_token_hash', t.text, (c) => c.notNull())
    .addColumn('channel', t.text, (c) => c.notNull())
    .addColumn('service_id', t.text)
    .addColumn('start_at', t.bigint)
    .addColumn('end_at', t.bigint)
    .addColumn('party_size', t.integer)
    .addColumn('linked_item_id', t.text)
    .addColumn('search_text', t.text, (c) => c.notNull())
    .addColumn('is_open', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .addColumn('closed_at', t.bigint)
    .execute();
  await db.schema.createIndex('items_newest').on('items').columns(['is_open', 'id']).execute();
  await db.schema.createIndex('items_by_type_state').on('items').columns(['type', 'state', 'id']).execute();
  await db.schema.createIndex('items_by_contact_email').on('items').columns(['contact_email', 'id']).execute();
  await db.schema.createIndex('items_slots').on('items').columns(['service_id', 'state', 'start_at']).execute();
  await db.schema
    .createTable('item_events')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('item_id', t.text, (c) => c.notNull().references('items.id'))
    .addColumn('seq', t.integer)
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('event', t.text, (c) => c.notNull())
    .addColumn('from_state', t.text)
    .addColumn('to_state', t.text, (c) => c.notNull())
    .addColumn('version', t.integer, (c) => c.notNull())
    .addColumn('actor_kind', t.text, (c) => c.notNull())
    .addColumn('actor_id', t.text)
    .addColumn('actor_name', t.text)
    .addColumn('channel', t.text, (c) => c.notNull())
    .addColumn('sandbox', t.integer, (c) => c.notNull())
    .addColumn('reason', t.text)
    .addColumn('data', t.json)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  // The database, not the code, decides a race between two transitions of one item.
  await db.schema.createIndex('item_events_seq').on('item_events').columns(['item_id', 'seq']).unique().execute();
  await db.schema.createIndex('item_events_by_item').on('item_events').columns(['item_id', 'id']).execute();
  await db.schema
    .createTable('messages')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('item_id', t.text, (c) => c.notNull().references('items.id'))
    .addColumn('author_kind', t.text, (c) => c.notNull())
    .addColumn('author_id', t.text)
    .addColumn('author_name', t.text)
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('internal', t.integer, (c) => c.notNull())
    .addColumn('channel', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_by_item').on('messages').columns(['item_id', 'id']).execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope_key', t.text, (c) => c.primaryKey())
    .addColumn('request_hash', t.text, (c) => c.notNull())
    .addColumn('status', t.integer, (c) => c.notNull())
    .addColumn('response', t.json, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('preset', t.text)
    .addColumn('scopes', t.json, (c) => c.notNull())
    .addColumn('key_hash', t.text, (c) => c.notNull().unique())
    .addColumn('key_hint', t.text, (c) => c.notNull())
    .addColumn('created_by_kind', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('expires_at', t.bigint)
    .addColumn('revoked_at', t.bigint)
    .addColumn('last_used_at', t.bigint)
    .execute();
  await createJobsTable(db);
}
