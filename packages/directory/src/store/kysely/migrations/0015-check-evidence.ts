/**
 * Check results in the evidence log (issue 39, docs/verifiable-order.md): each hour's statement keeps
 * the log's size before and after its order read the listings (`checks_from`, `checks_to`; null for
 * statements made before), and every found listing listed now is written into the log as a `check`
 * entry (its id and doors), after every entry already there, in the order it was last checked, so
 * the orders to come can be recomputed from the log from the first hour after this migration.
 */
import { columnTypes } from '@svc/shared';
import { encodeEntry, leafHash, siteOf, type CheckedDoor } from '@svc/verify';
import type { Kysely } from 'kysely';

/** The columns the backfill reads and writes, as this migration knows them. */
interface BackfillTables {
  listings: { seq: number; id: string; domain: string; source: string; listed: number; document: string; updated_at: number };
  evidence_log: { idx: number; at: number; kind: string; ref: string; entry: string; leaf_hash: Buffer };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // Run again on a data folder that ran it (a test re-running later migrations): what is there stays.
  const table = (await db.introspection.getTables()).find((x) => x.name === 'order_statements');
  const has = new Set(table?.columns.map((c) => c.name) ?? []);
  for (const name of ['checks_from', 'checks_to']) if (!has.has(name)) await db.schema.alterTable('order_statements').addColumn(name, t.bigint).execute();
  await backfill(db);
}

async function backfill(db: Kysely<unknown>): Promise<void> {
  const any = db as unknown as Kysely<BackfillTables>;
  const written = await any.selectFrom('evidence_log').select('idx').where('kind', '=', 'check').limit(1).executeTakeFirst();
  if (written) return;
  const last = await any.selectFrom('evidence_log').select(['idx', 'at']).orderBy('idx', 'desc').limit(1).executeTakeFirst();
  let index = last ? Number(last.idx) + 1 : 0;
  let floor = last ? Number(last.at) : 0;
  const BATCH = 500;
  let after = { at: -1, seq: 0 };
  for (;;) {
    // By when each was last written (its check), then seq: the order it reached the network.
    const rows = await any
      .selectFrom('listings')
      .select(['seq', 'id', 'domain', 'document', 'updated_at'])
      .where('source', '=', 'found')
      .where('listed', '=', 1)
      .where((eb) => eb.or([eb('updated_at', '>', after.at), eb.and([eb('updated_at', '=', after.at), eb('seq', '>', after.seq)])]))
      .orderBy('updated_at')
      .orderBy('seq')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const doors = ((JSON.parse(r.document) as { doors?: CheckedDoor[] }).doors ?? []).map((d) => ({ type: d.type, level: d.level, status: d.status }));
      floor = Math.max(floor, Number(r.updated_at));
      const site = siteOf(r.domain);
      const text = encodeEntry({ v: 1, kind: 'check', at: floor, site, listing: r.id, doors });
      const row = { idx: index, at: floor, kind: 'check', ref: `c ${site} ${index}`, entry: text, leaf_hash: leafHash(text) };
      index += 1;
      return row;
    });
    await any.insertInto('evidence_log').values(values).execute();
    const tail = rows[rows.length - 1] as { seq: number; updated_at: number };
    after = { at: Number(tail.updated_at), seq: tail.seq };
    if (rows.length < BATCH) return;
  }
}
