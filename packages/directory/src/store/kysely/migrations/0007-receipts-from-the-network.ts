/**
 * Receipts are what the network holds (issue 13): listings stored before carried receipt counts and
 * outcomes the demo generator made up, while GET /v1/stats said no receipt existed. No receipt had
 * reached the network before 0006 made a place for them, so every such count is cleared; the pages
 * of those listings are rendered again (a missing page is rendered at start). The demo's members get
 * signed receipts of their own at the next start (demo/demo-evidence.ts), through the intake.
 */
import { engineOf } from '@svc/shared';
import { sql, type Kysely } from 'kysely';

const madeUp = sql`(json_extract(document, '$.receipts.issued') > 0 OR json_extract(document, '$.receipts.acknowledged') > 0 OR json_extract(document, '$.receipts.customers') > 0 OR json_extract(document, '$.receipts.lastAt') IS NOT NULL OR json_extract(document, '$.outcomes') <> '{}')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'postgres') return clearInScript(db);
  await sql`DELETE FROM listing_pages WHERE seq IN (SELECT seq FROM listings WHERE ${madeUp} AND domain NOT IN (SELECT domain FROM receipt_tallies))`.execute(db);
  await sql`
    UPDATE listings
    SET document = json_set(document, '$.receipts', json('{"issued":0,"acknowledged":0,"customers":0,"lastAt":null}'), '$.outcomes', json('{}'))
    WHERE ${madeUp} AND domain NOT IN (SELECT domain FROM receipt_tallies)`.execute(db);
}

interface Counted {
  receipts?: { issued?: number; acknowledged?: number; customers?: number; lastAt?: unknown };
  outcomes?: unknown;
}

/** What `madeUp` says, read from the document. */
function carriesMadeUp(document: Counted): boolean {
  const r = document.receipts;
  const outcomes = document.outcomes;
  return (
    (r !== undefined && r !== null && ((r.issued ?? 0) > 0 || (r.acknowledged ?? 0) > 0 || (r.customers ?? 0) > 0 || (r.lastAt !== undefined && r.lastAt !== null))) ||
    (outcomes !== undefined && outcomes !== null && JSON.stringify(outcomes) !== '{}')
  );
}

/** PostgreSQL: the documents are text; those with made-up counts are rewritten here, a thousand listings at a time. */
async function clearInScript(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ seq: number; document: string }>`
      SELECT seq, document FROM listings WHERE seq > ${after} AND domain NOT IN (SELECT domain FROM receipt_tallies) ORDER BY seq LIMIT 1000`.execute(db);
    for (const row of rows) {
      const document = JSON.parse(row.document) as Counted;
      if (!carriesMadeUp(document)) continue;
      document.receipts = { issued: 0, acknowledged: 0, customers: 0, lastAt: null };
      document.outcomes = {};
      await sql`DELETE FROM listing_pages WHERE seq = ${row.seq}`.execute(db);
      await sql`UPDATE listings SET document = ${JSON.stringify(document)} WHERE seq = ${row.seq}`.execute(db);
    }
    if (rows.length < 1000) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}
