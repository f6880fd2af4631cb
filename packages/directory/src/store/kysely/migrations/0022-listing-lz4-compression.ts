/**
 * Listings' documents and pages compressed with LZ4 rather than pglz on PostgreSQL, when the server
 * was built with it (issue 40, docs/directory.md "Loading listings"). pglz was the bulk load's
 * largest cost on the server: each listing's document and page (~6 KB) compressed as they were
 * copied into the load's table, and a value already compressed keeps its method when it is
 * inserted from there, so the load's table decides for the loaded rows. LZ4 compresses several
 * times faster and decompresses faster (every page a search answers is read back), for some 5% more
 * disk. Values stored before keep their method; both are read alike. SQLite: nothing.
 */
import { engineOf } from '@svc/shared';
import { sql, type Kysely } from 'kysely';

const COLUMNS: [table: string, columns: string[]][] = [
  ['listings_load', ['document', 'page_inputs', 'page_fixed']],
  ['listings', ['document']],
  ['listing_pages', ['inputs', 'fixed']],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  // A server built without LZ4 (--without-lz4) refuses the method: it keeps pglz.
  const { rows } = await sql<{ lz4: boolean }>`SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`.execute(db);
  if (rows[0]?.lz4 !== true) return;
  for (const [table, columns] of COLUMNS) {
    const changes = sql.join(columns.map((column) => sql`ALTER COLUMN ${sql.id(column)} SET COMPRESSION lz4`));
    await sql`ALTER TABLE ${sql.id(table)} ${changes}`.execute(db);
  }
}
