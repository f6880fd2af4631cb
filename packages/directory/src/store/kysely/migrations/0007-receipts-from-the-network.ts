/**
 * Receipts are what the network holds (issue 13): listings stored before carried receipt counts and
 * outcomes the demo generator made up, while GET /v1/stats said no receipt existed. No receipt had
 * reached the network before 0006 made a place for them, so every such count is cleared; the pages
 * of those listings are rendered again (a missing page is rendered at start). The demo's members get
 * signed receipts of their own at the next start (demo/demo-evidence.ts), through the intake.
 */
import { sql, type Kysely } from 'kysely';

const madeUp = sql`(json_extract(document, '$.receipts.issued') > 0 OR json_extract(document, '$.receipts.acknowledged') > 0 OR json_extract(document, '$.receipts.customers') > 0 OR json_extract(document, '$.receipts.lastAt') IS NOT NULL OR json_extract(document, '$.outcomes') <> '{}')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM listing_pages WHERE seq IN (SELECT seq FROM listings WHERE ${madeUp} AND domain NOT IN (SELECT domain FROM receipt_tallies))`.execute(db);
  await sql`
    UPDATE listings
    SET document = json_set(document, '$.receipts', json('{"issued":0,"acknowledged":0,"customers":0,"lastAt":null}'), '$.outcomes', json('{}'))
    WHERE ${madeUp} AND domain NOT IN (SELECT domain FROM receipt_tallies)`.execute(db);
}
