/** Items, their events and their conversation (SQLite or PostgreSQL). No business rules here. */
import { conditionalWriteMissed, engineOf } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { ActorKind, Channel, ItemEventRecord, ItemRecord, ItemType, MessageRecord } from '../../domain/types.js';
import type { BusyBooking, ItemFilter, ItemStore, PageRequest } from '../store.js';
import { escapeLike } from './catalogue-store.js';
import { eventFromRow } from './event-stream-store.js';
import type { Database, ItemsTable, MessagesTable } from './schema.js';

export class KyselyItemStore implements ItemStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(item: ItemRecord): Promise<void> {
    await this.#db.insertInto('items').values(toRow(item)).execute();
  }

  async get(id: string): Promise<ItemRecord | null> {
    const row = await this.#db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  async update(item: ItemRecord, expectedVersion: number): Promise<boolean> {
    const { id, created_at: _created, ...changes } = toRow(item);
    const result = await this.#db
      .updateTable('items')
      .set(changes)
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) return true;
    conditionalWriteMissed(this.#db, `item ${id} moved on from version ${expectedVersion} meanwhile`);
    return false;
  }

  async list(filter: ItemFilter, page: PageRequest): Promise<ItemRecord[]> {
    let query = this.#db.selectFrom('items').selectAll().orderBy('id', 'desc').limit(page.limit);
    if (filter.openOnly) query = query.where('is_open', '=', 1);
    if (filter.type) query = query.where('type', '=', filter.type);
    if (filter.state) query = query.where('state', '=', filter.state);
    if (filter.needsHuman !== undefined) query = query.where('needs_human', '=', filter.needsHuman ? 1 : 0);
    if (filter.sandbox !== undefined) query = query.where('sandbox', '=', filter.sandbox ? 1 : 0);
    for (const word of filter.words ?? []) query = query.where('search_text', 'like', `%${escapeLike(word)}%`);
    if (page.after) query = query.where('id', '<', page.after);
    return (await query.execute()).map(fromRow);
  }

  async appendEvent(e: ItemEventRecord): Promise<void> {
    await this.#db
      .insertInto('item_events')
      .values({
        id: e.id,
        item_id: e.itemId,
        seq: e.seq,
        type: e.type,
        event: e.event,
        from_state: e.fromState,
        to_state: e.toState,
        version: e.version,
        actor_kind: e.actor.kind,
        actor_id: e.actor.id,
        actor_name: e.actor.name,
        channel: e.channel,
        sandbox: e.sandbox ? 1 : 0,
        reason: e.reason,
        data: e.data ? JSON.stringify(e.data) : null,
        created_at: e.createdAt,
      })
      .execute();
  }

  async listEvents(itemId: string): Promise<ItemEventRecord[]> {
    const rows = await this.#db.selectFrom('item_events').selectAll().where('item_id', '=', itemId).orderBy('id').execute();
    return rows.map(eventFromRow);
  }

  async addMessage(m: MessageRecord): Promise<void> {
    await this.#db
      .insertInto('messages')
      .values({
        id: m.id,
        item_id: m.itemId,
        author_kind: m.authorKind,
        author_id: m.authorId,
        author_name: m.authorName,
        body: m.body,
        internal: m.internal ? 1 : 0,
        channel: m.channel,
        created_at: m.createdAt,
      })
      .execute();
  }

  async listMessages(itemId: string, includeInternal: boolean): Promise<MessageRecord[]> {
    let query = this.#db.selectFrom('messages').selectAll().where('item_id', '=', itemId).orderBy('id');
    if (!includeInternal) query = query.where('internal', '=', 0);
    return (await query.execute()).map(fromMessageRow);
  }

  async confirmedBookings(serviceId: string, fromMs: number, toMs: number): Promise<BusyBooking[]> {
    // A transaction that counts a service's bookings (to claim a place) holds the service's row until
    // it commits, so two claims on one service are decided one after the other, the second seeing
    // the first's booking: capacity over overlapping times is no unique key. SQLite's one writer
    // does the same for every write.
    if (this.#db.isTransaction && engineOf(this.#db) === 'postgres') {
      await this.#db.selectFrom('services').select('id').where('id', '=', serviceId).forUpdate().execute();
    }
    const rows = await this.#db
      .selectFrom('items')
      .select(['id', 'start_at', 'end_at', 'party_size'])
      .where('type', '=', 'booking')
      .where('state', '=', 'confirmed')
      .where('sandbox', '=', 0)
      .where('service_id', '=', serviceId)
      .where('start_at', '<', toMs)
      .where('end_at', '>', fromMs)
      .execute();
    return rows.map((r) => ({ itemId: r.id, startAt: Number(r.start_at), endAt: Number(r.end_at), partySize: r.party_size ?? 1 }));
  }

  countCreatedSince(sinceMs: number): Promise<Partial<Record<ItemType, number>>> {
    return countCreatedSince(this.#db, sinceMs);
  }

  async historyByEmail(email: string, excludeItemId: string): Promise<{ type: ItemType; state: string; sandbox: boolean }[]> {
    const rows = await this.#db
      .selectFrom('items')
      .select(['type', 'state', 'sandbox'])
      .where('contact_email', '=', email.toLowerCase())
      .where('id', '!=', excludeItemId)
      .orderBy('id', 'desc')
      .limit(500)
      .execute();
    return rows.map((r) => ({ type: r.type as ItemType, state: r.state, sandbox: r.sandbox === 1 }));
  }
}

export async function countCreatedSince(db: Kysely<Database>, sinceMs: number): Promise<Partial<Record<ItemType, number>>> {
  const rows = await db
    .selectFrom('items')
    .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
    .where('created_at', '>=', sinceMs)
    .where('sandbox', '=', 0)
    .groupBy('type')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

function toRow(item: ItemRecord): ItemsTable {
  return {
    id: item.id,
    type: item.type,
    state: item.state,
    version: item.version,
    payload: JSON.stringify(item.payload),
    contact: item.contact ? JSON.stringify(item.contact) : null,
    contact_email: item.contact?.email?.toLowerCase() ?? null,
    needs_human: item.needsHuman ? 1 : 0,
    priority: item.priority,
    sandbox: item.sandbox ? 1 : 0,
    access_token_hash: item.accessTokenHash,
    channel: item.channel,
    service_id: item.serviceId,
    start_at: item.startAt,
    end_at: item.endAt,
    party_size: item.partySize,
    linked_item_id: item.linkedItemId,
    search_text: item.searchText,
    is_open: item.isOpen ? 1 : 0,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    closed_at: item.closedAt,
  };
}

function fromRow(r: Selectable<ItemsTable>): ItemRecord {
  return {
    id: r.id,
    type: r.type as ItemType,
    state: r.state,
    version: r.version,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    contact: r.contact ? (JSON.parse(r.contact) as ItemRecord['contact']) : null,
    needsHuman: r.needs_human === 1,
    priority: r.priority,
    sandbox: r.sandbox === 1,
    accessTokenHash: r.access_token_hash,
    channel: r.channel as Channel,
    serviceId: r.service_id,
    startAt: r.start_at === null ? null : Number(r.start_at),
    endAt: r.end_at === null ? null : Number(r.end_at),
    partySize: r.party_size,
    linkedItemId: r.linked_item_id,
    searchText: r.search_text,
    isOpen: r.is_open === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    closedAt: r.closed_at === null ? null : Number(r.closed_at),
  };
}

function fromMessageRow(r: Selectable<MessagesTable>): MessageRecord {
  return {
    id: r.id,
    itemId: r.item_id,
    authorKind: r.author_kind as ActorKind,
    authorId: r.author_id,
    authorName: r.author_name,
    body: r.body,
    internal: r.internal === 1,
    channel: r.channel as Channel,
    createdAt: Number(r.created_at),
  };
}
