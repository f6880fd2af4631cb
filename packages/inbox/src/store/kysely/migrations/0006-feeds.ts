/** Product feeds: the feeds, their import runs, and which product came from which feed (docs/feeds.md). */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('feeds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url_sealed', 'text', (c) => c.notNull())
    .addColumn('url_display', 'text', (c) => c.notNull())
    .addColumn('url_hash', 'text', (c) => c.notNull().unique())
    .addColumn('every_hours', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('next_import_at', 'bigint', (c) => c.notNull())
    .addColumn('import_requests', 'integer', (c) => c.notNull())
    .addColumn('last_success_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .execute();
  await db.schema
    .createTable('feed_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('feed_id', 'text', (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text')
    .addColumn('requests_seen', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('skipped_entries', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('feed_runs_by_feed').on('feed_runs').columns(['feed_id', 'id']).execute();
  // A side table rather than a column on products: the catalogue stays as it was, and removing a
  // feed detaches its products by deleting its links.
  await db.schema
    .createTable('feed_products')
    .addColumn('product_id', 'text', (c) => c.primaryKey())
    .addColumn('feed_id', 'text', (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('feed_products_by_feed').on('feed_products').columns(['feed_id']).execute();
}
