/**
 * The event stream. A position is assigned by the database (event_stream.position) in commit order,
 * so a reader paging by position can never pass over an event that commits later (docs/webhooks.md
 * "The event stream"): the rows of a transaction are written last, just before its commit, under
 * the stream's lock (lockUntilCommit). On SQLite the one writer already orders commits; on
 * PostgreSQL the lock, taken by a transaction that holds nothing else anyone waits for, makes the
 * writers of stream rows commit one at a time, in the order of their positions, for the moment of
 * one INSERT and the COMMIT. No business rules here.
 */
import { compileOnce, inList, lockUntilCommit, startsWith, transactionWithRetry } from '@svc/shared';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ActorKind, Channel, ItemEventRecord } from '../../domain/types.js';
import type { EventStreamStore, StreamEntry, TypeFilter } from '../webhook-store.js';
import type { Database, EventStreamTable, ItemEventsTable } from './schema.js';

/** The lock every writer of stream rows takes before it writes them. */
const STREAM_LOCK = 'inbox.event_stream';

/** Most transactions record one event: its row is written by a statement compiled once. */
const insertOneRow = compileOnce((db: Kysely<Database>, row: { event_id: string; type: string; created_at: number }) =>
  db.insertInto('event_stream').values({ event_id: row.event_id, type: row.type, created_at: row.created_at }),
);

/** The stream rows of one transaction, in the order their events were recorded; written by `write` just before the commit. */
export class PendingStreamRows {
  #rows: Insertable<EventStreamTable>[] = [];

  add(event: ItemEventRecord): void {
    this.#rows.push({ event_id: event.id, type: event.type, created_at: event.createdAt });
  }

  async write(trx: Kysely<Database>): Promise<void> {
    if (this.#rows.length === 0) return;
    const rows = this.#rows;
    this.#rows = [];
    await lockUntilCommit(trx, STREAM_LOCK);
    if (rows.length === 1) await insertOneRow.run(trx, rows[0]!);
    else await trx.insertInto('event_stream').values(rows).execute();
  }
}

export class KyselyEventStreamStore implements EventStreamStore {
  readonly #db: Kysely<Database>;
  readonly #pending: PendingStreamRows | null;
  /** `pending`: the running transaction's rows; null on the root store, where each append is a transaction of its own. */
  constructor(db: Kysely<Database>, pending: PendingStreamRows | null = null) {
    this.#db = db;
    this.#pending = pending;
  }

  async append(event: ItemEventRecord): Promise<void> {
    if (this.#pending) {
      this.#pending.add(event);
      return;
    }
    await transactionWithRetry(this.#db, async (trx) => {
      const rows = new PendingStreamRows();
      rows.add(event);
      await rows.write(trx);
    });
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
          ...types.prefixes.map((prefix) => startsWith('s.type', prefix)),
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
    // The ids as one parameter: one SQL text (prepared once) whatever their number.
    return (await this.#db.selectFrom('item_events').selectAll().where(inList(this.#db, 'id', eventIds)).execute()).map(eventFromRow);
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
