/**
 * Listings' documents and pages compressed with LZ4 rather than pglz on PostgreSQL, when the server
 * has it (issue 40, docs/directory.md "Loading listings"). pglz was the bulk load's largest cost on
 * the server: each listing's document and page (~6 KB) compressed as they were copied into the
 * load's table, and a value already compressed keeps its method when it is inserted from there, so
 * the load's table decides for the loaded rows. Every page a search answers is decompressed as it is
 * read, faster too. SQLite: nothing.
 */
import { compressFast } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await compressFast(db, 'listings_load', ['document', 'page_inputs', 'page_fixed']);
  await compressFast(db, 'listings', ['document']);
  await compressFast(db, 'listing_pages', ['inputs', 'fixed']);
}
