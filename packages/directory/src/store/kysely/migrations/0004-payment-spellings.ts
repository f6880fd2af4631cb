/**
 * One spelling for each payment (issue 20): listings stored before the payment vocabulary took the
 * demo's local payments carry `sepa_debit` and `mobilepay`, which GET /v1/attributes spells
 * `sepa_direct_debit` and `vipps_mobilepay`, and `giropay`, which closed in 2024 and is dropped.
 * Their pages are rendered again (a missing page is rendered at start, see listing-page.ts).
 * The array from the subquery is wrapped in json(): newer SQLite (3.54, better-sqlite3 13 on Node 22+)
 * drops the JSON subtype across a subquery, and json_set would store the array as a string.
 */
import { sql, type Kysely } from 'kysely';

const OLD = sql`('sepa_debit', 'mobilepay', 'giropay')`;
const carriesOld = sql`EXISTS (SELECT 1 FROM json_each(listings.document, '$.payments') WHERE value IN ${OLD})`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM listing_pages WHERE seq IN (SELECT seq FROM listings WHERE ${carriesOld})`.execute(db);
  await sql`
    UPDATE listings SET document = json_set(document, '$.payments', json((
      SELECT json_group_array(spelled) FROM (
        SELECT spelled, min(at) AS first FROM (
          SELECT CASE value WHEN 'sepa_debit' THEN 'sepa_direct_debit' WHEN 'mobilepay' THEN 'vipps_mobilepay' ELSE value END AS spelled, key AS at
          FROM json_each(listings.document, '$.payments') WHERE value <> 'giropay'
        ) GROUP BY spelled ORDER BY first
      )
    )))
    WHERE ${carriesOld}`.execute(db);
}
