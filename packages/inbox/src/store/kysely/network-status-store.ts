/** The network status rows (what each directory network told us), on SQLite or PostgreSQL. */
import type { Kysely, Selectable } from 'kysely';
import type { NetworkStanding, NetworkStatusChange, NetworkStatusRecord, NetworkStatusStore, PingSignatureState } from '../network-status-store.js';
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

type Columns = Partial<Omit<NetworkStatusTable, 'origin' | 'updated_at'>>;

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

function toColumns(change: NetworkStatusChange): Columns {
  const columns: Columns = {};
  if (change.registeredAt !== undefined) columns.registered_at = change.registeredAt;
  if (change.lastPingAt !== undefined) columns.last_ping_at = change.lastPingAt;
  if (change.verification !== undefined) columns.verification = change.verification;
  if (change.verifiedAt !== undefined) columns.verified_at = change.verifiedAt;
  if (change.listed !== undefined) columns.listed = change.listed === null ? null : change.listed ? 1 : 0;
  if (change.statusCheckedAt !== undefined) columns.status_checked_at = change.statusCheckedAt;
  if (change.lastError !== undefined) columns.last_error = change.lastError;
  if (change.lastErrorAt !== undefined) columns.last_error_at = change.lastErrorAt;
  if (change.standing !== undefined) columns.standing = json(change.standing);
  if (change.standingAt !== undefined) columns.standing_at = change.standingAt;
  if (change.networkReceipts !== undefined) columns.network_receipts = json(change.networkReceipts);
  if (change.rulesVersion !== undefined) columns.rules_version = change.rulesVersion;
  if (change.pingSignature !== undefined) columns.ping_signature = change.pingSignature;
  if (change.pingSignatureReason !== undefined) columns.ping_signature_reason = change.pingSignatureReason;
  if (change.pingSignatureAt !== undefined) columns.ping_signature_at = change.pingSignatureAt;
  if (change.pingFailures !== undefined) columns.ping_failures = change.pingFailures;
  if (change.publishFailures !== undefined) columns.publish_failures = change.publishFailures;
  if (change.publishRetryAt !== undefined) columns.publish_retry_at = change.publishRetryAt;
  if (change.publishWait !== undefined) columns.publish_wait = change.publishWait;
  if (change.manifestReadAt !== undefined) columns.manifest_read_at = change.manifestReadAt;
  if (change.manifestCurrent !== undefined) columns.manifest_current = change.manifestCurrent === null ? null : change.manifestCurrent ? 1 : 0;
  if (change.changeSentAt !== undefined) columns.change_sent_at = change.changeSentAt;
  return columns;
}

const time = (value: number | null): number | null => (value === null ? null : Number(value));

function parsed<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

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
    standing: parsed<NetworkStanding>(r.standing),
    standingAt: time(r.standing_at),
    networkReceipts: parsed<{ accepted: number; acknowledged: number }>(r.network_receipts),
    rulesVersion: r.rules_version === null ? null : Number(r.rules_version),
    pingSignature: r.ping_signature as PingSignatureState | null,
    pingSignatureReason: r.ping_signature_reason,
    pingSignatureAt: time(r.ping_signature_at),
    pingFailures: Number(r.ping_failures ?? 0),
    publishFailures: Number(r.publish_failures ?? 0),
    publishRetryAt: time(r.publish_retry_at),
    publishWait: r.publish_wait as NetworkStatusRecord['publishWait'],
    manifestReadAt: time(r.manifest_read_at),
    manifestCurrent: r.manifest_current === null || r.manifest_current === undefined ? null : Number(r.manifest_current) === 1,
    changeSentAt: time(r.change_sent_at),
    updatedAt: Number(r.updated_at),
  };
}
