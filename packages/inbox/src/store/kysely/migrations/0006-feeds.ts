/** Product feeds: the feeds, their import runs, and which product came from which feed (docs/feeds.md). */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('feeds')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('url_sealed', t.text, (c) => c.notNull())
    .addColumn('url_display', t.text, (c) => c.notNull())
    .addColumn('url_hash', t.text, (c) => c.notNull().unique())
    .addColumn('every_hours', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .addColumn('next_import_at', t.bigint, (c) => c.notNull())
    .addColumn('import_requests', t.integer, (c) => c.notNull())
    .addColumn('last_success_at', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('last_error_at', t.bigint)
    .execute();
  await db.schema
    .createTable('feed_runs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('feed_id', t.text, (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .addColumn('trigger', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('format', t.text)
    .addColumn('requests_seen', t.integer, (c) => c.notNull())
    .addColumn('started_at', t.bigint, (c) => c.notNull())
    .addColumn('finished_at', t.bigint)
    .addColumn('counts', t.json, (c) => c.notNull())
    .addColumn('skipped_entries', t.json, (c) => c.notNull())
    .addColumn('error', t.text)
    .execute();
  await db.schema.createIndex('feed_runs_by_feed').on('feed_runs').columns(['feed_id', 'id']).execute();
  // A side table rather than a column on products: the catalogue stays as it was, and removing a
  // feed detaches its products by deleting its links.
  await db.schema
    .createTable('feed_products')
    .addColumn('product_id', t.text, (c) => c.primaryKey())
    .addColumn('feed_id', t.text, (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('feed_products_by_feed').on('feed_products').columns(['feed_id']).execute();
}
