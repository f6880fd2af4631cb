/**
 * The evidence log and the hours' statements (issue 39, docs/verifiable-order.md): an append-only
 * Merkle log of what reputation is computed from, refused any update or delete by triggers on both
 * engines; the roots of its whole tiles; its signed heads; each hour's signed statement and what its
 * leaves say. What the network held before the log existed is written into it here, in the order it
 * arrived: verified members, counted receipts, acknowledgements.
 */
import { createHash } from 'node:crypto';
import { columnTypes } from '@svc/shared';
import { encodeEntry, leafHash, type EvidenceEntry } from '@svc/verify';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('evidence_log')
    .ifNotExists()
    .addColumn('idx', t.bigint, (c) => c.primaryKey())
    .addColumn('at', t.bigint, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('ref', t.text, (c) => c.notNull())
    .addColumn('entry', t.text, (c) => c.notNull())
    .addColumn('leaf_hash', t.blob, (c) => c.notNull())
    .execute();
  // An entry is written once per thing it records (a receipt, its acknowledgement, a member, a night).
  await db.schema.createIndex('evidence_log_ref').ifNotExists().unique().on('evidence_log').column('ref').execute();
  await db.schema.createTable('evidence_blocks').ifNotExists().addColumn('idx', t.bigint, (c) => c.primaryKey()).addColumn('hash', t.blob, (c) => c.notNull()).$call(t.keyedOnly).execute();
  await db.schema
    .createTable('evidence_checkpoints')
    .ifNotExists()
    .addColumn('size', t.bigint, (c) => c.primaryKey())
    .addColumn('root', t.blob, (c) => c.notNull())
    .addColumn('note', t.text, (c) => c.notNull())
    .addColumn('signed_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('order_statements')
    .ifNotExists()
    .addColumn('hour_start', t.bigint, (c) => c.primaryKey())
    .addColumn('rules_version', t.integer, (c) => c.notNull())
    .addColumn('shuffle_day', t.text, (c) => c.notNull())
    .addColumn('night', t.bigint)
    .addColumn('log_size', t.bigint, (c) => c.notNull())
    .addColumn('log_root', t.blob, (c) => c.notNull())
    .addColumn('order_size', t.integer, (c) => c.notNull())
    .addColumn('order_root', t.blob, (c) => c.notNull())
    .addColumn('note', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('order_leaf_facts')
    .ifNotExists()
    .addColumn('hour_start', t.bigint, (c) => c.primaryKey())
    .addColumn('facts', t.blob, (c) => c.notNull())
    .addColumn('tile_roots', t.blob, (c) => c.notNull())
    .execute();

  // Append-only by construction: the database itself refuses to change or remove an entry.
  if (t.engine === 'postgres') {
    await sql`CREATE OR REPLACE FUNCTION evidence_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the evidence log is append-only'; END $$`.execute(db);
    await sql`DROP TRIGGER IF EXISTS evidence_log_no_change ON evidence_log`.execute(db);
    await sql`CREATE TRIGGER evidence_log_no_change BEFORE UPDATE OR DELETE ON evidence_log FOR EACH ROW EXECUTE FUNCTION evidence_log_append_only()`.execute(db);
    await sql`DROP TRIGGER IF EXISTS evidence_log_no_truncate ON evidence_log`.execute(db);
    await sql`CREATE TRIGGER evidence_log_no_truncate BEFORE TRUNCATE ON evidence_log FOR EACH STATEMENT EXECUTE FUNCTION evidence_log_append_only()`.execute(db);
  } else {
    await sql`CREATE TRIGGER IF NOT EXISTS evidence_log_no_update BEFORE UPDATE ON evidence_log BEGIN SELECT RAISE(ABORT, 'the evidence log is append-only'); END`.execute(db);
    await sql`CREATE TRIGGER IF NOT EXISTS evidence_log_no_delete BEFORE DELETE ON evidence_log BEGIN SELECT RAISE(ABORT, 'the evidence log is append-only'); END`.execute(db);
  }
  await backfill(db);
}

/** The columns the backfill reads and writes, as this migration knows them. */
interface BackfillTables {
  instances: { domain: string; origin: string; verified_at: number | null };
  receipts: { domain: string; iss: string; receipt_id: string; jws: string; arrived_at: number; ack_jws: string | null; ack_at: number | null; counted: number };
  evidence_log: { idx: number; at: number; kind: string; ref: string; entry: string; leaf_hash: Buffer };
}

interface Pending {
  entry: EvidenceEntry;
  ref: string;
  /** Members, then receipts, then acknowledgements at one instant. */
  rank: number;
}

/** What was held before the log: written into it in the order it arrived. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const any = db as unknown as Kysely<BackfillTables>;
  const existing = await any.selectFrom('evidence_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) return;
  const pending: Pending[] = [];
  const members = await any.selectFrom('instances').select(['domain', 'origin', 'verified_at']).where('verified_at', 'is not', null).execute();
  for (const m of members) pending.push({ entry: { v: 1, kind: 'member', at: Number(m.verified_at), domain: m.domain, origin: m.origin }, ref: `m ${m.domain}`, rank: 0 });
  const receipts = await any.selectFrom('receipts').select(['domain', 'iss', 'receipt_id', 'jws', 'arrived_at', 'ack_jws', 'ack_at']).where('counted', '=', 1).execute();
  for (const r of receipts) {
    pending.push({ entry: { v: 1, kind: 'receipt', at: Number(r.arrived_at), jws: r.jws }, ref: `r ${r.domain} ${r.receipt_id}`, rank: 1 });
    if (r.ack_jws !== null) {
      const ackSha = createHash('sha256').update(r.ack_jws, 'utf8').digest('base64url');
      const at = Math.max(Number(r.ack_at ?? r.arrived_at), Number(r.arrived_at));
      pending.push({ entry: { v: 1, kind: 'ack', at, iss: r.iss, receipt_id: r.receipt_id, ack_sha256: ackSha }, ref: `a ${r.domain} ${r.receipt_id}`, rank: 2 });
    }
  }
  pending.sort((a, b) => a.entry.at - b.entry.at || a.rank - b.rank || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  const BATCH = 200;
  for (let i = 0; i < pending.length; i += BATCH) {
    const rows = pending.slice(i, i + BATCH).map((p, j) => {
      const text = encodeEntry(p.entry);
      return { idx: i + j, at: p.entry.at, kind: p.entry.kind, ref: p.ref, entry: text, leaf_hash: leafHash(text) };
    });
    await any.insertInto('evidence_log').values(rows).execute();
  }
}
