/**
 * Every write of a listing is numbered (`revision`, rising across the table), and a write that
 * changes what search reads also records its number as `content_revision` (a ping does not), so a
 * running directory can follow what changed since its search index was built (store.ts
 * `changesSince`) and a listing's update reaches search at once instead of at the next hour.
 */
import { engineOf } from '@svc/shared';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await sql`ALTER TABLE listings ADD COLUMN IF NOT EXISTS revision integer NOT NULL DEFAULT 0`.execute(db);
    await sql`ALTER TABLE listings ADD COLUMN IF NOT EXISTS content_revision integer NOT NULL DEFAULT 0`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS listings_revision ON listings (revision)`.execute(db);
    return;
  }
  // Safe to run again (a test that replays earlier migrations replays this one too).
  const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info('listings')`.execute(db);
  const has = new Set(columns.rows.map((c) => c.name));
  if (!has.has('revision')) await sql`ALTER TABLE listings ADD COLUMN revision INTEGER NOT NULL DEFAULT 0`.execute(db);
  if (!has.has('content_revision')) await sql`ALTER TABLE listings ADD COLUMN content_revision INTEGER NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS listings_revision ON listings (revision)`.execute(db);
}
