/** The network status rows (what each directory network told us) in SQLite. */
import type { Kysely, Selectable } from 'kysely';
import type { NetworkStatusChange, NetworkStatusRecord, NetworkStatusStore } from '../network-status-store.js';
import type { NetworkStatusTable } from './access-network-tables.js';
import type { Database } from './schema.js';

export class KyselyNetworkStatusStore implements NetworkStatusStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async get(origin: string): Promise<NetworkStatusRecord | null> {
    const row = await this.#db.selectFrom('network_status').selectAll().where('origin', '=', origin).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async list(): Promise<NetworkStatusRecord[]> {
    return (await this.#db.selectFrom('network_status').selectAll().orderBy('origin').execute()).map(toRecord);
  }

  async record(origin: string, change: NetworkStatusChange, nowMs: number): Promise<void> {
    const columns = toColumns(change);
    await this.#db
      .insertInto('network_status')
      .values({ origin, updated_at: nowMs, ...columns })
      .onConflict((oc) => oc.column('origin').doUpdateSet({ ...columns, updated_at: nowMs }))
      .execute();
  }
}

function toColumns(change: NetworkStatusChange): Partial<Omit<NetworkStatusTable, 'origin' | 'updated_at'>> {
  const columns: Partial<Omit<NetworkStatusTable, 'origin' | 'updated_at'>> = {};
  if (change.registeredAt !== undefined) columns.registered_at = change.registeredAt;
  if (change.lastPingAt !== undefined) columns.last_ping_at = change.lastPingAt;
  if (change.verification !== undefined) columns.verification = change.verification;
  if (change.verifiedAt !== undefined) columns.verified_at = change.verifiedAt;
  if (change.listed !== undefined) columns.listed = change.listed === null ? null : change.listed ? 1 : 0;
  if (change.statusCheckedAt !== undefined) columns.status_checked_at = change.statusCheckedAt;
  if (change.lastError !== undefined) columns.last_error = change.lastError;
  if (change.lastErrorAt !== undefined) columns.last_error_at = change.lastErrorAt;
  return columns;
}

const time = (value: number | null): number | null => (value === null ? null : Number(value));

function toRecord(r: Selectable<NetworkStatusTable>): NetworkStatusRecord {
  return {
    origin: r.origin,
    registeredAt: time(r.registered_at),
    lastPingAt: time(r.last_ping_at),
    verification: r.verification,
    verifiedAt: time(r.verified_at),
    listed: r.listed === null ? null : r.listed === 1,
    statusCheckedAt: time(r.status_checked_at),
    lastError: r.last_error,
    lastErrorAt: time(r.last_error_at),
    updatedAt: Number(r.updated_at),
  };
}
