/**
 * Which page version each listing has, from an index rather than from the pages' rows (issue 40,
 * docs/directory.md "A node ready in seconds"): a node's start looks for listings whose page is
 * missing or of another version (`refreshPages`), and in SQLite a page's row is one or more 4 KB
 * pages of its own, so that look read the whole table (~70 s at 5 M listings) where this index holds
 * a few bytes a listing (the look asks for the range's current pages from it: `seq NOT IN (…)`).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('listing_pages_versions').ifNotExists().on('listing_pages').columns(['seq', 'version']).execute();
}
