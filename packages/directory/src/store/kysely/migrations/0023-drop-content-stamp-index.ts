/**
 * The content stamp's index goes (issue 40, docs/directory.md "Loading listings"): nothing has read
 * the stamp since the hour's change stopped counting the directory, and the index took keys in no
 * order (each listing's last content change), so every bulk transaction rewrote leaves all over it,
 * as it does the domain and id indexes.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('listings_listed_content').ifExists().execute();
}
