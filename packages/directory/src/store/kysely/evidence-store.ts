/** The evidence log and the hours' statements over Kysely, on SQLite or PostgreSQL. No business rules here; only inserts and reads of the log. */
import { inList, lockUntilCommit, tableThroughIndex } from '@svc/shared/storage';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { EvidenceRow, EvidenceStore, StatementStore, StoredCheckpoint, StoredStatement } from '../store.js';
import type { EvidenceLogTable } from './evidence-tables.js';
import type { DirectoryDatabase } from './schema.js';

/** The name of the lock appends take on PostgreSQL (SQLite has one writer). */
const LOG_LOCK = 'evidence_log';

const toBuffer = (value: Buffer | Uint8Array) => (Buffer.isBuffer(value) ? value : Buffer.from(value));

function fromRow(r: Selectable<EvidenceLogTable>): EvidenceRow {
  return { index: Number(r.idx), at: Number(r.at), kind: r.kind, ref: r.ref, entry: r.entry, leafHash: toBuffer(r.leaf_hash) };
}

export class KyselyEvidenceStore implements EvidenceStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async next(): Promise<{ index: number; minAt: number }> {
    if (!this.#db.isTransaction) throw new Error('the evidence log is appended to inside a transaction');
    await lockUntilCommit(this.#db, LOG_LOCK);
    const last = await this.#db.selectFrom('evidence_log').select(['idx', 'at']).orderBy('idx', 'desc').limit(1).executeTakeFirst();
    return last ? { index: Number(last.idx) + 1, minAt: Number(last.at) } : { index: 0, minAt: 0 };
  }

  async append(row: EvidenceRow): Promise<boolean> {
    const result = await this.#db
      .insertInto('evidence_log')
      .values({ idx: row.index, at: row.at, kind: row.kind, ref: row.ref, entry: row.entry, leaf_hash: row.leafHash })
      .onConflict((oc) => oc.column('ref').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async byRef(ref: string): Promise<EvidenceRow | null> {
    const row = await this.#db.selectFrom('evidence_log').selectAll().where('ref', '=', ref).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  async size(): Promise<number> {
    const last = await this.#db.selectFrom('evidence_log').select('idx').orderBy('idx', 'desc').limit(1).executeTakeFirst();
    return last ? Number(last.idx) + 1 : 0;
  }

  async sizeBefore(atMs: number): Promise<number> {
    // Times never fall along the log, so the prefix is found by halving on the index (no index on the
    // time: one B-tree fewer written per append); about 20 point reads at a million entries.
    let low = 0;
    let high = await this.size();
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const row = await this.#db.selectFrom('evidence_log').select('at').where('idx', '=', mid).executeTakeFirstOrThrow();
      if (Number(row.at) < atMs) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  async entries(start: number, end: number): Promise<EvidenceRow[]> {
    if (end <= start) return [];
    const rows = await this.#db.selectFrom('evidence_log').selectAll().where('idx', '>=', start).where('idx', '<', end).orderBy('idx').execute();
    return rows.map(fromRow);
  }

  async leafHashes(start: number, end: number): Promise<Buffer[]> {
    if (end <= start) return [];
    const rows = await this.#db.selectFrom('evidence_log').select('leaf_hash').where('idx', '>=', start).where('idx', '<', end).orderBy('idx').execute();
    return rows.map((r) => toBuffer(r.leaf_hash));
  }

  async blocks(from: number): Promise<Buffer[]> {
    const rows = await this.#db.selectFrom('evidence_blocks').select(['idx', 'hash']).where('idx', '>=', from).orderBy('idx').execute();
    const out: Buffer[] = [];
    // Only the run without a gap counts (a block is written once all before it are).
    for (const r of rows) {
      if (Number(r.idx) !== from + out.length) break;
      out.push(toBuffer(r.hash));
    }
    return out;
  }

  async putBlocks(blocks: readonly { index: number; hash: Buffer }[]): Promise<void> {
    for (let i = 0; i < blocks.length; i += 200) {
      await this.#db
        .insertInto('evidence_blocks')
        .values(blocks.slice(i, i + 200).map((b) => ({ idx: b.index, hash: b.hash })))
        .onConflict((oc) => oc.column('idx').doNothing())
        .execute();
    }
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | null> {
    const row = await this.#db.selectFrom('evidence_checkpoints').selectAll().orderBy('size', 'desc').limit(1).executeTakeFirst();
    return row ? { size: Number(row.size), root: toBuffer(row.root), note: row.note, signedAt: Number(row.signed_at) } : null;
  }

  async putCheckpoint(c: StoredCheckpoint): Promise<void> {
    await this.#db
      .insertInto('evidence_checkpoints')
      .values({ size: c.size, root: c.root, note: c.note, signed_at: c.signedAt })
      .onConflict((oc) => oc.column('size').doNothing())
      .execute();
  }
}

function fromStatementRow(r: Selectable<DirectoryDatabase['order_statements']>): StoredStatement {
  return {
    hourStart: Number(r.hour_start),
    rulesVersion: r.rules_version,
    shuffleDay: r.shuffle_day,
    night: r.night === null ? null : Number(r.night),
    logSize: Number(r.log_size),
    logRoot: toBuffer(r.log_root),
    checks: r.checks_from === null || r.checks_to === null ? null : { from: Number(r.checks_from), to: Number(r.checks_to) },
    orderSize: r.order_size,
    orderRoot: toBuffer(r.order_root),
    note: r.note,
    createdAt: Number(r.created_at),
  };
}

export class KyselyStatementStore implements StatementStore {
  readonly #db: Kysely<DirectoryDatabase>;
  constructor(db: Kysely<DirectoryDatabase>) {
    this.#db = db;
  }

  async get(hourStart: number): Promise<StoredStatement | null> {
    const row = await this.#db.selectFrom('order_statements').selectAll().where('hour_start', '=', hourStart).executeTakeFirst();
    return row ? fromStatementRow(row) : null;
  }

  async put(s: StoredStatement, leaves: { facts: Buffer; tileRoots: Buffer }): Promise<boolean> {
    const write = async (db: Kysely<DirectoryDatabase>) => {
      const result = await db
        .insertInto('order_statements')
        .values({
          hour_start: s.hourStart,
          rules_version: s.rulesVersion,
          shuffle_day: s.shuffleDay,
          night: s.night,
          log_size: s.logSize,
          log_root: s.logRoot,
          checks_from: s.checks?.from ?? null,
          checks_to: s.checks?.to ?? null,
          order_size: s.orderSize,
          order_root: s.orderRoot,
          note: s.note,
          created_at: s.createdAt,
        })
        .onConflict((oc) => oc.column('hour_start').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      await db.insertInto('order_leaf_facts').values({ hour_start: s.hourStart, facts: leaves.facts, tile_roots: leaves.tileRoots }).execute();
      return true;
    };
    return this.#db.isTransaction ? write(this.#db) : this.#db.transaction().execute(write);
  }

  async leafFacts(hourStart: number): Promise<{ facts: Buffer; tileRoots: Buffer } | null> {
    const row = await this.#db.selectFrom('order_leaf_facts').select(['facts', 'tile_roots']).where('hour_start', '=', hourStart).executeTakeFirst();
    return row ? { facts: toBuffer(row.facts), tileRoots: toBuffer(row.tile_roots) } : null;
  }

  async pruneLeafFacts(beforeHour: number): Promise<void> {
    await this.#db.deleteFrom('order_leaf_facts').where('hour_start', '<', beforeHour).execute();
  }

  async listingKeys(seqs: readonly number[]): Promise<Map<number, { id: string; domain: string }>> {
    const out = new Map<number, { id: string; domain: string }>();
    for (let i = 0; i < seqs.length; i += 5_000) {
      // From the index of the keys (migration 0021): the listings' rows are kilobytes each, read at random.
      const { rows } = await sql<{ seq: number; id: string; domain: string }>`
        SELECT seq, id, domain FROM ${tableThroughIndex(this.#db, 'listings', 'listings_statement_keys')}
        WHERE ${inList(this.#db, 'seq', seqs.slice(i, i + 5_000), 'integer')}`.execute(this.#db);
      for (const r of rows) out.set(Number(r.seq), { id: r.id, domain: r.domain });
    }
    return out;
  }

  async listingKeysAfter(after: number, limit: number): Promise<{ seq: number; id: string; domain: string }[]> {
    // A range of the keys' index in its own order: a lookup of each seq at random (listingKeys)
    // cost the database server 13 times the CPU at 1 M listings.
    const { rows } = await sql<{ seq: number; id: string; domain: string }>`
      SELECT seq, id, domain FROM ${tableThroughIndex(this.#db, 'listings', 'listings_statement_keys')}
      WHERE seq > ${after} ORDER BY seq LIMIT ${limit}`.execute(this.#db);
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, domain: r.domain }));
  }
}
