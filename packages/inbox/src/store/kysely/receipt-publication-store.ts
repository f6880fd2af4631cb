/** The receipt publication outbox in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import type {
  PublicationChange,
  PublicationCounts,
  PublicationState,
  PublicationToSend,
  ReceiptPublicationRecord,
  ReceiptPublicationStore,
} from '../receipt-publication-store.js';
import type { ReceiptPublicationsTable } from './receipt-tables.js';
import type { Database } from './schema.js';

const PENDING: PublicationState[] = ['waiting', 'held'];

export class KyselyReceiptPublicationStore implements ReceiptPublicationStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async queue(network: string, receiptId: string, nowMs: number): Promise<void> {
    await this.#db
      .insertInto('receipt_publications')
      .values({ network, receipt_id: receiptId, state: 'waiting', ack_wanted: 0, attempts: 0, queued_at: nowMs, updated_at: nowMs })
      .onConflict((oc) => oc.columns(['network', 'receipt_id']).doNothing())
      .execute();
  }

  async wantAcknowledgement(receiptId: string, nowMs: number): Promise<string[]> {
    // A refused receipt stays refused: the network will not take it with an acknowledgement either.
    const rows = await this.#db
      .updateTable('receipt_publications')
      .set((eb) => ({
        ack_wanted: 1,
        state: eb.case().when('state', '=', 'published').then('waiting').else(eb.ref('state')).end(),
        updated_at: nowMs,
      }))
      .where('receipt_id', '=', receiptId)
      .where('state', '<>', 'refused')
      .returning('network')
      .execute();
    return rows.map((r) => r.network);
  }

  async due(network: string, limit: number): Promise<PublicationToSend[]> {
    const rows = await this.#db
      .selectFrom('receipt_publications as p')
      .innerJoin('receipts as r', 'r.id', 'p.receipt_id')
      .selectAll('p')
      .select(['r.jws as receipt_jws', 'r.ack_jws as receipt_ack_jws'])
      .where('p.network', '=', network)
      .where('p.state', 'in', PENDING)
      .orderBy('p.position')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ record: toRecord(row), receiptJws: row.receipt_jws, ackJws: row.receipt_ack_jws }));
  }

  async get(network: string, receiptId: string): Promise<ReceiptPublicationRecord | null> {
    const row = await this.#db
      .selectFrom('receipt_publications')
      .selectAll()
      .where('network', '=', network)
      .where('receipt_id', '=', receiptId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async update(network: string, receiptId: string, change: PublicationChange, nowMs: number): Promise<void> {
    const c = change;
    await this.#db
      .updateTable('receipt_publications')
      .set({
        ...(c.state !== undefined ? { state: c.state } : {}),
        ...(c.ackWanted !== undefined ? { ack_wanted: c.ackWanted ? 1 : 0 } : {}),
        ...(c.attempts !== undefined ? { attempts: c.attempts } : {}),
        ...(c.acceptedAt !== undefined ? { accepted_at: c.acceptedAt } : {}),
        ...(c.ackSentAt !== undefined ? { ack_sent_at: c.ackSentAt } : {}),
        ...(c.networkState !== undefined ? { network_state: c.networkState } : {}),
        ...(c.counted !== undefined ? { counted: c.counted === null ? null : c.counted ? 1 : 0 } : {}),
        ...(c.lastAttemptAt !== undefined ? { last_attempt_at: c.lastAttemptAt } : {}),
        ...(c.lastError !== undefined ? { last_error: c.lastError } : {}),
        ...(c.refusal !== undefined ? { refusal: c.refusal } : {}),
        ...(c.refusedAt !== undefined ? { refused_at: c.refusedAt } : {}),
        updated_at: nowMs,
      })
      .where('network', '=', network)
      .where('receipt_id', '=', receiptId)
      .execute();
  }

  async countsByNetwork(): Promise<Map<string, PublicationCounts>> {
    const rows = await this.#db
      .selectFrom('receipt_publications')
      .select((eb) => [
        'network',
        eb.fn.sum<number>(eb.case().when('state', '=', 'waiting').then(1).else(0).end()).as('waiting'),
        eb.fn.sum<number>(eb.case().when('state', '=', 'held').then(1).else(0).end()).as('held'),
        eb.fn.sum<number>(eb.case().when('state', '=', 'refused').then(1).else(0).end()).as('refused'),
        eb.fn.count<number>('accepted_at').as('accepted'),
        eb.fn.count<number>('ack_sent_at').as('acknowledgements_sent'),
        eb.fn.max('accepted_at').as('last_accepted_at'),
      ])
      .groupBy('network')
      .execute();
    const counts = new Map<string, PublicationCounts>();
    for (const row of rows) {
      counts.set(row.network, {
        waiting: Number(row.waiting ?? 0),
        held: Number(row.held ?? 0),
        accepted: Number(row.accepted ?? 0),
        refused: Number(row.refused ?? 0),
        acknowledgementsSent: Number(row.acknowledgements_sent ?? 0),
        lastAcceptedAt: row.last_accepted_at === null || row.last_accepted_at === undefined ? null : Number(row.last_accepted_at),
        lastRefusal: null,
      });
    }
    // The last refusal of each network (a few networks: one small indexed read each).
    for (const [network, entry] of counts) {
      if (entry.refused === 0) continue;
      const row = await this.#db
        .selectFrom('receipt_publications')
        .select(['receipt_id', 'refusal', 'refused_at'])
        .where('network', '=', network)
        .where('refused_at', 'is not', null)
        .orderBy('refused_at', 'desc')
        .orderBy('position', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (row && row.refusal !== null) entry.lastRefusal = { receiptId: row.receipt_id, reason: row.refusal, at: Number(row.refused_at) };
    }
    return counts;
  }

  async networksWithPending(): Promise<string[]> {
    const rows = await this.#db.selectFrom('receipt_publications').select('network').distinct().where('state', 'in', PENDING).orderBy('network').execute();
    return rows.map((r) => r.network);
  }
}

function toRecord(r: Selectable<ReceiptPublicationsTable>): ReceiptPublicationRecord {
  const time = (value: number | null): number | null => (value === null ? null : Number(value));
  return {
    network: r.network,
    receiptId: r.receipt_id,
    state: r.state as PublicationState,
    ackWanted: r.ack_wanted === 1,
    attempts: r.attempts,
    acceptedAt: time(r.accepted_at),
    ackSentAt: time(r.ack_sent_at),
    networkState: r.network_state,
    counted: r.counted === null ? null : r.counted === 1,
    lastAttemptAt: time(r.last_attempt_at),
    lastError: r.last_error,
    refusal: r.refusal,
    refusedAt: time(r.refused_at),
    queuedAt: Number(r.queued_at),
  };
}
