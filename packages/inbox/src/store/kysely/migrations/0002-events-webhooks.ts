/**
 * The event stream and webhooks (inbox spec §6): a commit-ordered position for every item event,
 * webhook endpoints with sealed secrets, and the delivery outbox.
 */
import { columnTypes } from '@svc/shared';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // AUTOINCREMENT: a position is never reused, even after the newest row is gone.
  await db.schema
    .createTable('event_stream')
    .addColumn('position', t.integer, t.autoKey)
    .addColumn('event_id', t.text, (c) => c.notNull().unique().references('item_events.id'))
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  // Events recorded before this migration join the stream in id order.
  await sql`INSERT INTO event_stream (event_id, type, created_at) SELECT id, type, created_at FROM item_events ORDER BY id`.execute(db);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('events', t.json, (c) => c.notNull())
    .addColumn('payload_style', t.text, (c) => c.notNull())
    .addColumn('header_names', t.json, (c) => c.notNull())
    .addColumn('sealed_headers', t.json, (c) => c.notNull())
    .addColumn('sealed_secret', t.text, (c) => c.notNull())
    .addColumn('sealed_previous_secret', t.text)
    .addColumn('previous_secret_until', t.bigint)
    .addColumn('active', t.integer, (c) => c.notNull())
    .addColumn('disabled_at', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('last_error_at', t.bigint)
    .addColumn('failing_since', t.bigint)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('endpoint_id', t.text, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', t.text, (c) => c.notNull())
    .addColumn('event_type', t.text, (c) => c.notNull())
    .addColumn('item_id', t.text)
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('max_attempts', t.integer, (c) => c.notNull())
    .addColumn('next_attempt_at', t.bigint)
    .addColumn('lease_until', t.bigint)
    .addColumn('response_code', t.integer)
    .addColumn('duration_ms', t.integer)
    .addColumn('last_error', t.text)
    .addColumn('last_attempt_at', t.bigint)
    .addColumn('body', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  // One delivery per endpoint and event: a replay reuses the row, so the webhook-id never changes.
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['endpoint_id', 'event_id']).unique().execute();
  await db.schema.createIndex('webhook_deliveries_by_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();
}
