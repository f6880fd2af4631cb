/** The mail tables (migration 0014) in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import type { MailStore, OutboundMailRecord } from '../mail-store.js';
import type { OutboundMailTable } from './mail-tables.js';
import type { Database } from './schema.js';

function fromRow(row: Selectable<OutboundMailTable>): OutboundMailRecord {
  return {
    id: row.id,
    kind: row.kind,
    itemId: row.item_id,
    to: row.to_address,
    subject: row.subject,
    sealedText: row.sealed_text,
    messageId: row.message_id,
    status: row.status === 'sent' ? 'sent' : 'queued',
    createdAt: Number(row.created_at),
    sentAt: row.sent_at === null ? null : Number(row.sent_at),
  };
}

export class KyselyMailStore implements MailStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async addOutbound(r: OutboundMailRecord): Promise<void> {
    await this.#db
      .insertInto('outbound_mail')
      .values({
        id: r.id,
        kind: r.kind,
        item_id: r.itemId,
        to_address: r.to,
        subject: r.subject,
        sealed_text: r.sealedText,
        message_id: r.messageId,
        status: r.status,
        created_at: r.createdAt,
        sent_at: r.sentAt,
      })
      .execute();
  }

  async getOutbound(id: string): Promise<OutboundMailRecord | null> {
    const row = await this.#db.selectFrom('outbound_mail').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  async markSent(id: string, nowMs: number): Promise<void> {
    await this.#db.updateTable('outbound_mail').set({ status: 'sent', sent_at: nowMs, sealed_text: null }).where('id', '=', id).execute();
  }

  async itemOfMessageId(messageId: string): Promise<string | null> {
    const row = await this.#db.selectFrom('outbound_mail').select('item_id').where('message_id', '=', messageId).executeTakeFirst();
    return row?.item_id ?? null;
  }

  async listForItem(itemId: string): Promise<OutboundMailRecord[]> {
    return (await this.#db.selectFrom('outbound_mail').selectAll().where('item_id', '=', itemId).orderBy('id').execute()).map(fromRow);
  }

  async rememberInbound(messageKey: string, itemId: string, nowMs: number): Promise<boolean> {
    if (await this.inboundItem(messageKey)) return false;
    await this.#db.insertInto('inbound_mail').values({ message_key: messageKey, item_id: itemId, received_at: nowMs }).execute();
    return true;
  }

  async inboundItem(messageKey: string): Promise<string | null> {
    const row = await this.#db.selectFrom('inbound_mail').select('item_id').where('message_key', '=', messageKey).executeTakeFirst();
    return row?.item_id ?? null;
  }
}
