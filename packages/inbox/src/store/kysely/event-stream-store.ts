/**
 * The event stream in SQLite. A position is an INTEGER PRIMARY KEY assigned inside the event's
 * write transaction; SQLite has a single writer, so positions follow commit order and a reader
 * paging by position can never pass over an event that commits later. No business rules here.
 */
import { compileOnce } from '@svc/shared';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ActorKind, Channel, ItemEventRecord } from '../../domain/types.js';
import type { EventStreamStore, StreamEntry, TypeFilter } from '../webhook-store.js';
import type { Database, ItemEventsTable } from './schema.js';

/** Every event takes its position here, in its write's transaction: compiled once. */
const appendToStream = compileOnce((db: Kysely<Database>, p: { eventId: string; type: string; createdAt: number }) =>
  db.insertInto('event_stream').values({ event_id: p.eventId, type: p.type, created_at: p.createdAt }).returning('position'),
);

export class KyselyEventStreamStore implements EventStreamStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async append(event: ItemEventRecord): Promise<number> {
    const row = await appendToStream.first(this.#db, { eventId: event.id, type: event.type, createdAt: event.createdAt });
    if (!row) throw new Error('the event stream gave no position');
    return Number(row.position);
  }

  async read(query: { afterPosition: number; types: TypeFilter; sinceMs?: number | undefined; limit: number }): Promise<StreamEntry[]> {
    let select = this.#db
      .selectFrom('event_stream as s')
      .innerJoin('item_events as e', 'e.id', 's.event_id')
      .selectAll('e')
      .select('s.position')
      .where('s.position', '>', query.afterPosition)
      .orderBy('s.position')
      .limit(query.limit);
    if (query.sinceMs !== undefined) select = select.where('s.created_at', '>=', query.sinceMs);
    const { types } = query;
    if (!types.all) {
      select = select.where((eb) =>
        eb.or([
          ...(types.exact.length > 0 ? [eb('s.type', 'in', types.exact)] : []),
          // substr, not LIKE: `_` in quote_request would be a LIKE wildcard.
          ...types.prefixes.map((prefix) => eb(eb.fn('substr', ['s.type', eb.val(1), eb.val(prefix.length)]), '=', prefix)),
          // Nothing subscribed: a condition no row meets.
          eb('s.position', '<', 0),
        ]),
      );
    }
    const rows = await select.execute();
    return rows.map((row) => ({ position: Number(row.position), event: eventFromRow(row) }));
  }

  async positionOf(eventId: string): Promise<number | null> {
    const row = await this.#db.selectFrom('event_stream').select('position').where('event_id', '=', eventId).executeTakeFirst();
    return row ? Number(row.position) : null;
  }

  async getEvents(eventIds: readonly string[]): Promise<ItemEventRecord[]> {
    if (eventIds.length === 0) return [];
    // The ids as one JSON array: one SQL text (prepared once) whatever their number.
    return (
      await this.#db
        .selectFrom('item_events')
        .selectAll()
        .where('id', 'in', sql<string>`(SELECT value FROM json_each(${JSON.stringify(eventIds)}))`)
        .execute()
    ).map(eventFromRow);
  }

  async getEvent(eventId: string): Promise<ItemEventRecord | null> {
    const row = await this.#db.selectFrom('item_events').selectAll().where('id', '=', eventId).executeTakeFirst();
    return row ? eventFromRow(row) : null;
  }
}

export function eventFromRow(r: Selectable<ItemEventsTable>): ItemEventRecord {
  return {
    id: r.id,
    itemId: r.item_id,
    seq: r.seq,
    type: r.type,
    event: r.event,
    fromState: r.from_state,
    toState: r.to_state,
    version: r.version,
    actor: { kind: r.actor_kind as ActorKind, id: r.actor_id, name: r.actor_name },
    channel: r.channel as Channel,
    sandbox: r.sandbox === 1,
    reason: r.reason,
    data: r.data ? (JSON.parse(r.data) as Record<string, unknown>) : null,
    createdAt: Number(r.created_at),
  };
}
