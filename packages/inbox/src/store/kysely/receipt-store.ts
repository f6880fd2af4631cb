/** Receipts in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import { compileOnce, type OutcomeCode, type ReceiptKind } from '@svc/shared';
import type { ItemType } from '../../domain/types.js';
import type { ReceiptAcknowledgement, ReceiptRecord, ReceiptStore, SignedRequestEvidence } from '../receipt-store.js';
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
        ...acknowledgementColumns(r.ack),
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
      .set(acknowledgementColumns(ack))
      .where('id', '=', id)
      .where('ack_jkt', 'is', null)
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
    ack: acknowledgementOf(r),
  };
}

function acknowledgementColumns(ack: ReceiptAcknowledgement | null) {
  return {
    ack_jws: ack?.form === 'jws' ? ack.jws : null,
    ack_request: ack?.form === 'signed_request' ? JSON.stringify(ack.request) : null,
    ack_jkt: ack?.jkt ?? null,
    ack_iat: ack?.iat ?? null,
    ack_at: ack?.at ?? null,
  };
}

function acknowledgementOf(r: Selectable<ReceiptsTable>): ReceiptAcknowledgement | null {
  const common = { jkt: String(r.ack_jkt), iat: Number(r.ack_iat), at: Number(r.ack_at) };
  if (r.ack_jws !== null) return { form: 'jws', jws: r.ack_jws, ...common };
  if (r.ack_request !== null) return { form: 'signed_request', request: JSON.parse(r.ack_request) as SignedRequestEvidence, ...common };
  return null;
}
