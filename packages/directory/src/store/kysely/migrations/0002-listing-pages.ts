/**
 * Pre-rendered search-result pages of listings (domain/listings/listing-page.ts), one per listing,
 * in their own table so a page of results reads only what it shows.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('listing_pages')
    .addColumn('seq', t.integer, (c) => c.primaryKey())
    .addColumn('version', t.text, (c) => c.notNull())
    .addColumn('inputs', t.json, (c) => c.notNull())
    .addColumn('fixed', t.text, (c) => c.notNull())
    .execute();
}
