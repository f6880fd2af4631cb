/** The directory's first schema: listings, registered instances, hourly orders, durable jobs. */
import { createJobsTable } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('listings')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('delisted_at', 'bigint')
    .addColumn('dormant_since', 'bigint')
    .addColumn('verified_at', 'bigint')
    .addColumn('last_ping_at', 'bigint')
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('agent_door', 'integer', (c) => c.notNull())
    .addColumn('content_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('listings_listed').on('listings').columns(['listed', 'seq']).execute();
  await db.schema
    .createTable('instances')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('manifest', 'text')
    .addColumn('manifest_url', 'text', (c) => c.notNull())
    .addColumn('listing_id', 'text')
    .addColumn('registered_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('last_checked_at', 'bigint')
    .addColumn('last_ping_at', 'bigint')
    .addColumn('fail_count', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('delisted_at', 'bigint')
    .addColumn('dormant_since', 'bigint')
    .addColumn('software', 'text')
    .addColumn('counts', 'text')
    .execute();
  await db.schema
    .createTable('rank_snapshots')
    .addColumn('hour_start', 'bigint', (c) => c.primaryKey())
    .addColumn('rules_version', 'integer', (c) => c.notNull())
    .addColumn('order_blob', 'blob', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('computed_at', 'bigint', (c) => c.notNull())
    .execute();
  await createJobsTable(db);
}
