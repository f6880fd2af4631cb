/** Items, their events and their conversation (SQLite or PostgreSQL). No business rules here. */
import { compileOnce, conditionalWriteMissed, engineOf, slotsOf, type CompiledOnce } from '@svc/shared';
import type { Kysely, Selectable } from 'kysely';
import type { ActorKind, Channel, ItemEventRecord, ItemRecord, ItemType, MessageRecord } from '../../domain/types.js';
import type { BusyBooking, ItemFilter, ItemStore, PageRequest } from '../store.js';
import type { AwaitingStates } from '../notification-store.js';
import { escapeLike } from './catalogue-store.js';
import { eventFromRow } from './event-stream-store.js';
import type { Database, ItemEventsTable, ItemsTable, MessagesTable } from './schema.js';

const ITEM_COLUMNS = [
  'id', 'type', 'state', 'version', 'payload', 'contact', 'contact_email', 'needs_human', 'priority', 'sandbox', 'access_token_hash',
  'channel', 'service_id', 'start_at', 'end_at', 'party_size', 'linked_item_id', 'search_text', 'is_open', 'created_at', 'updated_at', 'closed_at',
] as const satisfies readonly (keyof ItemsTable)[];
const EVENT_COLUMNS = [
  'id', 'item_id', 'seq', 'type', 'event', 'from_state', 'to_state', 'version', 'actor_kind', 'actor_id', 'actor_name', 'channel', 'sandbox',
  'reason', 'data', 'created_at',
] as const satisfies readonly (keyof ItemEventsTable)[];
const MESSAGE_COLUMNS = ['id', 'item_id', 'author_kind', 'author_id', 'author_name', 'body', 'internal', 'channel', 'created_at'] as const satisfies readonly (keyof MessagesTable)[];

// The statements every create and move runs, compiled once (shared compiled-query.ts).
const insertItem = compileOnce((db: Kysely<Database>, row: ItemsTable) => db.insertInto('items').values(slotsOf(row, ITEM_COLUMNS)));
const getItem = compileOnce((db: Kysely<Database>, p: { id: string }) => db.selectFrom('items').selectAll().where('id', '=', p.id));
/** What a write of an item may change: all but its id and creation time. */
const ITEM_CHANGES = ITEM_COLUMNS.filter((column): column is Exclude<(typeof ITEM_COLUMNS)[number], 'id' | 'created_at'> => column !== 'id' && column !== 'created_at');
const updateItem = compileOnce((db: Kysely<Database>, p: ItemsTable & { expectedVersion: number }) =>
  db.updateTable('items').set(slotsOf(p, ITEM_CHANGES)).where('id', '=', p.id).where('version', '=', p.expectedVersion),
);
const insertEvent = compileOnce((db: Kysely<Database>, row: ItemEventsTable) => db.insertInto('item_events').values(slotsOf(row, EVENT_COLUMNS)));
const insertMessage = compileOnce((db: Kysely<Database>, row: MessagesTable) => db.insertInto('messages').values(slotsOf(row, MESSAGE_COLUMNS)));
const listEvents = compileOnce((db: Kysely<Database>, p: { itemId: string }) => db.selectFrom('item_events').selectAll().where('item_id', '=', p.itemId).orderBy('id'));
const listMessages = compileOnce((db: Kysely<Database>, p: { itemId: string }) =>
  db.selectFrom('messages').selectAll().where('item_id', '=', p.itemId).orderBy('id'),
);
const listPublicMessages = compileOnce((db: Kysely<Database>, p: { itemId: string }) =>
  db.selectFrom('messages').selectAll().where('item_id', '=', p.itemId).where('internal', '=', 0).orderBy('id'),
);
const confirmedBookings = compileOnce((db: Kysely<Database>, p: { serviceId: string; fromMs: number; toMs: number }) =>
  db
    .selectFrom('items')
    .select(['id', 'start_at', 'end_at', 'party_size'])
    .where('type', '=', 'booking')
    .where('state', '=', 'confirmed')
    .where('sandbox', '=', 0)
    .where('service_id', '=', p.serviceId)
    .where('start_at', '<', p.toMs)
    .where('end_at', '>', p.fromMs),
);
const bookingsBetween = compileOnce((db: Kysely<Database>, p: { earliestStart: number; fromMs: number; toMs: number; limit: number }) =>
  db
    .selectFrom('items')
    .selectAll()
    .where('type', '=', 'booking')
    .where('start_at', '>=', p.earliestStart)
    .where('start_at', '<', p.toMs)
    .where('end_at', '>', p.fromMs)
    .where('sandbox', '=', 0)
    .orderBy('start_at')
    .orderBy('id')
    .limit(p.limit),
);
const historyByEmail = compileOnce((db: Kysely<Database>, p: { email: string; excludeItemId: string }) =>
  db
    .selectFrom('items')
    .select(['type', 'state', 'sandbox'])
    .where('contact_email', '=', p.email)
    .where('id', '!=', p.excludeItemId)
    .orderBy('id', 'desc')
    .limit(500),
);
const anyOtherWithEmail = compileOnce((db: Kysely<Database>, p: { email: string; excludeItemId: string }) =>
  db.selectFrom('items').select('id').where('contact_email', '=', p.email).where('id', '!=', p.excludeItemId).limit(1),
);

/** One compiled list query per shape of filter (which filters are set, how many words). */
const listShapes = new Map<string, CompiledOnce<Database, ListValues, Selectable<ItemsTable>>>();
/** Beyond this many words a list query is built each time (a search that long is rare). */
const MAX_COMPILED_WORDS = 8;

interface ListValues {
  limit: number;
  type: string;
  state: string;
  needsHuman: number;
  sandbox: number;
  after: string;
}

export class KyselyItemStore implements ItemStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(item: ItemRecord): Promise<void> {
    await insertItem.run(this.#db, toRow(item));
  }

  async get(id: string): Promise<ItemRecord | null> {
    const row = await getItem.first(this.#db, { id });
    return row ? fromRow(row) : null;
  }

  async update(item: ItemRecord, expectedVersion: number): Promise<boolean> {
    if ((await updateItem.run(this.#db, { ...toRow(item), expectedVersion })) === 1) return true;
    conditionalWriteMissed(this.#db, `item ${item.id} moved on from version ${expectedVersion} meanwhile`);
    return false;
  }

  async list(filter: ItemFilter, page: PageRequest): Promise<ItemRecord[]> {
    const words = (filter.words ?? []).map((word) => `%${escapeLike(word)}%`);
    const values: ListValues = {
      limit: page.limit,
      type: filter.type ?? '',
      state: filter.state ?? '',
      needsHuman: filter.needsHuman ? 1 : 0,
      sandbox: filter.sandbox ? 1 : 0,
      after: page.after ?? '',
    };
    const shape = {
      openOnly: filter.openOnly === true,
      type: Boolean(filter.type),
      state: Boolean(filter.state),
      needsHuman: filter.needsHuman !== undefined,
      sandbox: filter.sandbox !== undefined,
      after: Boolean(page.after),
      words: words.length,
    };
    if (words.length > MAX_COMPILED_WORDS) return (await listQuery(this.#db, shape, values, words).execute()).map(fromRow);
    const key = JSON.stringify(shape);
    let compiled = listShapes.get(key);
    if (!compiled) {
      compiled = compileOnce((db: Kysely<Database>, p: ListValues) => listQuery(db, shape, p, wordSlots(p, shape.words)));
      listShapes.set(key, compiled);
    }
    return (await compiled.all(this.#db, { ...values, ...wordValues(words) })).map(fromRow);
  }

  async appendEvent(e: ItemEventRecord): Promise<void> {
    await insertEvent.run(this.#db, {
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
      });
  }

  async listEvents(itemId: string): Promise<ItemEventRecord[]> {
    return (await listEvents.all(this.#db, { itemId })).map(eventFromRow);
  }

  async addMessage(m: MessageRecord): Promise<void> {
    await insertMessage.run(this.#db, {
        id: m.id,
        item_id: m.itemId,
        author_kind: m.authorKind,
        author_id: m.authorId,
        author_name: m.authorName,
        body: m.body,
        internal: m.internal ? 1 : 0,
        channel: m.channel,
        created_at: m.createdAt,
      });
  }

  async listMessages(itemId: string, includeInternal: boolean): Promise<MessageRecord[]> {
    return (await (includeInternal ? listMessages : listPublicMessages).all(this.#db, { itemId })).map(fromMessageRow);
  }

  async confirmedBookings(serviceId: string, fromMs: number, toMs: number): Promise<BusyBooking[]> {
    // A transaction that counts a service's bookings (to claim a place) holds the service's row until
    // it commits, so two claims on one service are decided one after the other, the second seeing
    // the first's booking: capacity over overlapping times is no unique key. SQLite's one writer
    // does the same for every write.
    if (this.#db.isTransaction && engineOf(this.#db) === 'postgres') {
      await this.#db.selectFrom('services').select('id').where('id', '=', serviceId).forUpdate().execute();
    }
    const rows = await confirmedBookings.all(this.#db, { serviceId, fromMs, toMs });
    return rows.map((r) => ({ itemId: r.id, startAt: Number(r.start_at), endAt: Number(r.end_at), partySize: r.party_size ?? 1 }));
  }

  countCreatedSince(sinceMs: number): Promise<Partial<Record<ItemType, number>>> {
    return countCreatedSince(this.#db, sinceMs);
  }

  async historyByEmail(email: string, excludeItemId: string): Promise<{ type: ItemType; state: string; sandbox: boolean }[]> {
    const rows = await historyByEmail.all(this.#db, { email: email.toLowerCase(), excludeItemId });
    return rows.map((r) => ({ type: r.type as ItemType, state: r.state, sandbox: r.sandbox === 1 }));
  }

  async hasOtherWithEmail(email: string, excludeItemId: string): Promise<boolean> {
    return (await anyOtherWithEmail.first(this.#db, { email: email.toLowerCase(), excludeItemId })) !== undefined;
  }

  async countAwaiting(states: AwaitingStates): Promise<number> {
    const pairs = Object.entries(states).filter((entry): entry is [string, readonly string[]] => (entry[1]?.length ?? 0) > 0);
    if (pairs.length === 0) return 0;
    const row = await this.#db
      .selectFrom('items')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('is_open', '=', 1)
      .where('sandbox', '=', 0)
      .where((eb) => eb.or(pairs.map(([type, list]) => eb.and([eb('type', '=', type), eb('state', 'in', [...list])]))))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async bookingsBetween(fromMs: number, toMs: number, limit: number): Promise<ItemRecord[]> {
    // A booking lasts at most the availability window (14 days), so its start lies within that much before fromMs.
    const rows = await bookingsBetween.all(this.#db, { earliestStart: fromMs - LONGEST_BOOKING_MS, fromMs, toMs, limit });
    return rows.map(fromRow);
  }

  async lastMessagesBy(itemIds: readonly string[], authorKinds: readonly string[]): Promise<Map<string, string>> {
    const last = new Map<string, string>();
    if (itemIds.length === 0 || authorKinds.length === 0) return last;
    const rows = await this.#db
      .selectFrom('messages')
      .select(['item_id', 'body'])
      .where('item_id', 'in', [...itemIds])
      .where('internal', '=', 0)
      .where('author_kind', 'in', [...authorKinds])
      .orderBy('id')
      .execute();
    for (const row of rows) last.set(row.item_id, row.body);
    return last;
  }

  async listAwaiting(states: AwaitingStates, limit: number): Promise<ItemRecord[]> {
    const pairs = Object.entries(states).filter((entry): entry is [string, readonly string[]] => (entry[1]?.length ?? 0) > 0);
    if (pairs.length === 0) return [];
    const rows = await this.#db
      .selectFrom('items')
      .selectAll()
      .where('is_open', '=', 1)
      .where('sandbox', '=', 0)
      .where((eb) => eb.or(pairs.map(([type, list]) => eb.and([eb('type', '=', type), eb('state', 'in', [...list])]))))
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }
}

const LONGEST_BOOKING_MS = 14 * 86_400_000;

interface ListShape {
  openOnly: boolean;
  type: boolean;
  state: boolean;
  needsHuman: boolean;
  sandbox: boolean;
  after: boolean;
  words: number;
}

/** The owner's list: newest first, with the filters the shape says are set. */
function listQuery(db: Kysely<Database>, shape: ListShape, p: ListValues, words: readonly string[]) {
  let query = db.selectFrom('items').selectAll().orderBy('id', 'desc').limit(p.limit);
  if (shape.openOnly) query = query.where('is_open', '=', 1);
  if (shape.type) query = query.where('type', '=', p.type);
  if (shape.state) query = query.where('state', '=', p.state);
  if (shape.needsHuman) query = query.where('needs_human', '=', p.needsHuman);
  if (shape.sandbox) query = query.where('sandbox', '=', p.sandbox);
  for (const word of words) query = query.where('search_text', 'like', word);
  if (shape.after) query = query.where('id', '<', p.after);
  return query;
}

/** Word patterns travel as values word0, word1…: a list is not a slot. */
function wordSlots(p: ListValues, count: number): string[] {
  const named = p as unknown as Record<string, string>;
  return Array.from({ length: count }, (_, i) => named[`word${i}`]!);
}

function wordValues(words: readonly string[]): Record<string, string> {
  return Object.fromEntries(words.map((word, i) => [`word${i}`, word]));
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
