/** The directory's first schema: listings, registered instances, hourly orders, durable jobs. */
import { columnTypes, createJobsTable } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('listings')
    .addColumn('seq', t.integer, t.autoKey)
    .addColumn('id', t.text, (c) => c.notNull().unique())
    .addColumn('domain', t.text, (c) => c.notNull().unique())
    .addColumn('source', t.text, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('document', t.json, (c) => c.notNull())
    .addColumn('listed', t.integer, (c) => c.notNull())
    .addColumn('delisted_at', t.bigint)
    .addColumn('dormant_since', t.bigint)
    .addColumn('verified_at', t.bigint)
    .addColumn('last_ping_at', t.bigint)
    .addColumn('level', t.integer, (c) => c.notNull())
    .addColumn('agent_door', t.integer, (c) => c.notNull())
    .addColumn('content_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('listings_listed').on('listings').columns(['listed', 'seq']).execute();
  await db.schema
    .createTable('instances')
    .addColumn('domain', t.text, (c) => c.primaryKey())
    .addColumn('origin', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('manifest', t.json)
    .addColumn('manifest_url', t.text, (c) => c.notNull())
    .addColumn('listing_id', t.text)
    .addColumn('registered_at', t.bigint, (c) => c.notNull())
    .addColumn('verified_at', t.bigint)
    .addColumn('last_checked_at', t.bigint)
    .addColumn('last_ping_at', t.bigint)
    .addColumn('fail_count', t.integer, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('next_attempt_at', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('delisted_at', t.bigint)
    .addColumn('dormant_since', t.bigint)
    .addColumn('software', t.json)
    .addColumn('counts', t.json)
    .execute();
  await db.schema
    .createTable('rank_snapshots')
    .addColumn('hour_start', t.bigint, (c) => c.primaryKey())
    .addColumn('rules_version', t.integer, (c) => c.notNull())
    .addColumn('order_blob', t.blob, (c) => c.notNull())
    .addColumn('count', t.integer, (c) => c.notNull())
    .addColumn('computed_at', t.bigint, (c) => c.notNull())
    .execute();
  await createJobsTable(db);
}
