/** The networks' logs as this inbox checks them, on SQLite or PostgreSQL. */
import type { Kysely } from 'kysely';
import type { NetworkLogRecord, NetworkLogStore, ReceiptToFind } from '../network-log-store.js';
import type { Database } from './schema.js';

export class KyselyNetworkLogStore implements NetworkLogStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async get(origin: string): Promise<NetworkLogRecord | null> {
    const r = await this.#db.selectFrom('network_logs').selectAll().where('origin', '=', origin).executeTakeFirst();
    if (!r) return null;
    const n = (v: number | null) => (v === null ? null : Number(v));
    return { origin: r.origin, vkey: r.vkey, checkpoint: r.checkpoint, size: n(r.size), checkedAt: n(r.checked_at), problem: r.problem, problemAt: n(r.problem_at) };
  }

  async put(r: NetworkLogRecord, nowMs: number): Promise<void> {
    const row = { vkey: r.vkey, checkpoint: r.checkpoint, size: r.size, checked_at: r.checkedAt, problem: r.problem, problem_at: r.problemAt, updated_at: nowMs };
    await this.#db
      .insertInto('network_logs')
      .values({ origin: r.origin, ...row })
      .onConflict((oc) => oc.column('origin').doUpdateSet(row))
      .execute();
  }

  async toFind(network: string, acceptedBefore: number, limit: number): Promise<ReceiptToFind[]> {
    const rows = await this.#db
      .selectFrom('receipt_publications as p')
      .innerJoin('receipts as r', 'r.id', 'p.receipt_id')
      .select(['p.receipt_id', 'r.jws', 'r.item_id', 'p.accepted_at', 'p.log_missing_since'])
      .where('p.network', '=', network)
      .where('p.accepted_at', 'is not', null)
      .where('p.accepted_at', '<', acceptedBefore)
      .where('p.log_index', 'is', null)
      .orderBy('p.accepted_at')
      .orderBy('p.position')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ receiptId: r.receipt_id, jws: r.jws, itemId: r.item_id, acceptedAt: Number(r.accepted_at), missingSince: r.log_missing_since === null ? null : Number(r.log_missing_since) }));
  }

  async found(network: string, receiptId: string, index: number, atMs: number): Promise<void> {
    await this.#db
      .updateTable('receipt_publications')
      .set({ log_index: index, logged_at: atMs, log_missing_since: null })
      .where('network', '=', network)
      .where('receipt_id', '=', receiptId)
      .execute();
  }

  async missing(network: string, receiptId: string, sinceMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('receipt_publications')
      .set({ log_missing_since: sinceMs })
      .where('network', '=', network)
      .where('receipt_id', '=', receiptId)
      .where('log_missing_since', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows ?? 0) === 1;
  }

  async counts(): Promise<Map<string, { logged: number; missing: number; firstMissing: { receiptId: string; since: number } | null }>> {
    const rows = await this.#db
      .selectFrom('receipt_publications')
      .select((eb) => ['network', eb.fn.count<number>('log_index').as('logged'), eb.fn.count<number>('log_missing_since').as('missing'), eb.fn.min('log_missing_since').as('first')])
      .groupBy('network')
      .execute();
    const out = new Map<string, { logged: number; missing: number; firstMissing: { receiptId: string; since: number } | null }>();
    for (const r of rows) {
      let firstMissing: { receiptId: string; since: number } | null = null;
      if (r.first !== null && r.first !== undefined) {
        const row = await this.#db
          .selectFrom('receipt_publications')
          .select(['receipt_id', 'log_missing_since'])
          .where('network', '=', r.network)
          .where('log_missing_since', 'is not', null)
          .orderBy('log_missing_since')
          .orderBy('position')
          .limit(1)
          .executeTakeFirst();
        if (row) firstMissing = { receiptId: row.receipt_id, since: Number(row.log_missing_since) };
      }
      out.set(r.network, { logged: Number(r.logged ?? 0), missing: Number(r.missing ?? 0), firstMissing });
    }
    return out;
  }
}
