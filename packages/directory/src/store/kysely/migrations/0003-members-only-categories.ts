/**
 * Regulated categories list only members (domain/listings/regulated.ts): listings stored before the
 * rule kept `listed` = 1 while a business that is not a member sat in such a category. This sets them
 * aside once; every later write computes `listed` with the same rule. On SQLite only rows whose
 * category fields name a regulated group or place category are read (its JSON functions pick them
 * out); on PostgreSQL, every listed non-member is read and the rule decides (the documents are text).
 */
import { engineOf } from '@svc/shared';
import { sql, type Kysely } from 'kysely';
import type { ListingRecord } from '../../../domain/listings/listing.js';
import { isListed, membersOnlyKeys } from '../../../domain/listings/regulated.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const { groups, places } = membersOnlyKeys();
  const anyOf = (values: string[]) => (values.length > 0 ? sql.join(values.map((v) => sql.lit(v))) : sql.lit(''));
  const rows = engineOf(db) === 'postgres' ? await sql<{ seq: number; document: string }>`SELECT seq, document FROM listings WHERE listed = 1 AND source <> 'member'`.execute(db) : await sql<{ seq: number; document: string }>`
    SELECT seq, document FROM listings
    WHERE listed = 1 AND source != 'member' AND (
      EXISTS (SELECT 1 FROM json_each(listings.document, '$.categories') WHERE value IN (${anyOf(groups)}))
      OR json_extract(listings.document, '$.placeCategory.id') IN (${anyOf(places)})
      OR EXISTS (SELECT 1 FROM json_each(listings.document, '$.placeAlternates') WHERE json_extract(value, '$.id') IN (${anyOf(places)}))
    )`.execute(db);
  const aside = rows.rows.filter((row) => !isListed(JSON.parse(row.document) as ListingRecord)).map((row) => row.seq);
  for (let i = 0; i < aside.length; i += 500) {
    const seqs = aside.slice(i, i + 500);
    await sql`UPDATE listings SET listed = 0 WHERE seq IN (${sql.join(seqs)})`.execute(db);
  }
}
