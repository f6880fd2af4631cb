/**
 * Pre-rendered search-result pages of listings (domain/listings/listing-page.ts), one per listing,
 * in their own table so a page of results reads only what it shows.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('listing_pages')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('inputs', 'text', (c) => c.notNull())
    .addColumn('fixed', 'text', (c) => c.notNull())
    .execute();
}
