/**
 * The keys each leaf of an hour's signed statement names (its listing's id and domain, by seq),
 * from an index rather than from the listings' rows (issue 40, docs/verifiable-order.md): the rows
 * hold each listing's document (8 KB a listing in SQLite), so reading the keys of 5 M listings in the
 * order's sequence read a row at random for each, from a file larger than the machine's page cache
 * (over 15 minutes at 5 M, each read of 1,024 holding a search for tens of milliseconds), where
 * this index holds some 70 bytes a listing.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('listings_statement_keys').ifNotExists().on('listings').columns(['seq', 'id', 'domain']).execute();
}
