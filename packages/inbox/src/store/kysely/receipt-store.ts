/** Receipts in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import { compileOnce, type OutcomeCode, type ReceiptKind } from '@svc/shared';
import type { ItemType } from '../../domain/types.js';
import type { ReceiptAcknowledgement, ReceiptRecord, ReceiptStore } from '../receipt-store.js';
import type { ReceiptsTable } from './receipt-tables.js';
import type { Database } from './schema.js';

/** Every status view shows the item's receipts: compiled once. */
const receiptsOfItem = compileOnce((db: Kysely<Database>, p: { itemId: string }) => db.selectFrom('receipts').selectAll().where('item_id', '=', p.itemId).orderBy('seq'));

export class KyselyReceiptStore implements ReceiptStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(r: ReceiptRecord): Promise<void> {
    await this.#db
      .insertInto('receipts')
      .values({
        id: r.id,
        item_id: r.itemId,
        item_type: r.itemType,
        seq: r.seq,
        kind: r.kind,
        outcome: r.outcome,
        event: r.event,
        kid: r.kid,
        jws: r.jws,
        sha256: r.sha256,
        sandbox: r.sandbox ? 1 : 0,
        issued_at: r.issuedAt,
        ack_jws: r.ack?.jws ?? null,
        ack_jkt: r.ack?.jkt ?? null,
        ack_iat: r.ack?.iat ?? null,
        ack_at: r.ack?.at ?? null,
      })
      .execute();
  }

  async get(id: string): Promise<ReceiptRecord | null> {
    const row = await this.#db.selectFrom('receipts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async listForItem(itemId: string): Promise<ReceiptRecord[]> {
    return (await receiptsOfItem.all(this.#db, { itemId })).map(toRecord);
  }

  async acknowledge(id: string, ack: ReceiptAcknowledgement): Promise<boolean> {
    const result = await this.#db
      .updateTable('receipts')
      .set({ ack_jws: ack.jws, ack_jkt: ack.jkt, ack_iat: ack.iat, ack_at: ack.at })
      .where('id', '=', id)
      .where('ack_jws', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

function toRecord(r: Selectable<ReceiptsTable>): ReceiptRecord {
  return {
    id: r.id,
    itemId: r.item_id,
    itemType: r.item_type as ItemType,
    seq: r.seq,
    kind: r.kind as ReceiptKind,
    outcome: r.outcome as OutcomeCode | null,
    event: r.event,
    kid: r.kid,
    jws: r.jws,
    sha256: r.sha256,
    sandbox: r.sandbox === 1,
    issuedAt: Number(r.issued_at),
    ack:
      r.ack_jws === null
        ? null
        : { jws: r.ack_jws, jkt: String(r.ack_jkt), iat: Number(r.ack_iat), at: Number(r.ack_at) },
  };
}
