/** The item_persons and item_networks tables (migration 0015), on SQLite or PostgreSQL. */
import type { Kysely, Selectable } from 'kysely';
import { compileOnce } from '@svc/shared';
import type { ItemPersonRecord, PersonLinkStore } from '../identity-store.js';
import type { PersonStanding } from '../../domain/identity/network-status.js';
import type { ItemPersonsTable } from './identity-tables.js';
import type { Database } from './schema.js';

function fromRow(r: Selectable<ItemPersonsTable>): ItemPersonRecord {
  return {
    itemId: r.item_id,
    network: r.network,
    ppid: r.ppid,
    presentationId: r.presentation_id,
    standing: JSON.parse(r.standing) as PersonStanding,
    addressHash: r.address_hash,
    presentedAt: Number(r.presented_at),
  };
}

/** Every move that closes an item or has effects asks who presented its customer (queueOutcomeReports): compiled once. */
const itemPersons = compileOnce((db: Kysely<Database>, p: { itemId: string }) =>
  db.selectFrom('item_persons').selectAll().where('item_id', '=', p.itemId).orderBy('network'),
);

/** The owner's view of every item (the answer of every owner move) asks for the persons of its address on earlier items. */
const earlierPersons = compileOnce((db: Kysely<Database>, p: { addressHash: string; excludeItemId: string }) =>
  db.selectFrom('item_persons').selectAll().where('address_hash', '=', p.addressHash).where('item_id', '!=', p.excludeItemId).orderBy('presented_at', 'desc').limit(50),
);
const itemNetworks = compileOnce((db: Kysely<Database>, p: { itemId: string }) =>
  db.selectFrom('item_networks').select(['network', 'status']).where('item_id', '=', p.itemId).orderBy('network'),
);

export class KyselyPersonLinkStore implements PersonLinkStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }
  async recordPerson(r: ItemPersonRecord): Promise<void> {
    const row = { item_id: r.itemId, network: r.network, ppid: r.ppid, presentation_id: r.presentationId, standing: JSON.stringify(r.standing), address_hash: r.addressHash, presented_at: r.presentedAt };
    await this.#db
      .insertInto('item_persons')
      .values(row)
      .onConflict((c) => c.columns(['item_id', 'network']).doUpdateSet({ ppid: row.ppid, presentation_id: row.presentation_id, standing: row.standing, presented_at: row.presented_at }))
      .execute();
  }
  async itemPersons(itemId: string): Promise<ItemPersonRecord[]> {
    return (await itemPersons.all(this.#db, { itemId })).map(fromRow);
  }
  async earlierPersons(addressHash: string, excludeItemId: string): Promise<ItemPersonRecord[]> {
    const rows = await earlierPersons.all(this.#db, { addressHash, excludeItemId });
    const newest = new Map<string, ItemPersonRecord>();
    for (const row of rows) if (!newest.has(row.network)) newest.set(row.network, fromRow(row));
    return [...newest.values()];
  }
  async setNetworkStatus(itemId: string, network: string, status: string, nowMs: number): Promise<void> {
    await this.#db
      .insertInto('item_networks')
      .values({ item_id: itemId, network, status, updated_at: nowMs })
      .onConflict((c) => c.columns(['item_id', 'network']).doUpdateSet({ status, updated_at: nowMs }))
      .execute();
  }
  async itemNetworks(itemId: string): Promise<Record<string, string>> {
    const rows = await itemNetworks.all(this.#db, { itemId });
    return Object.fromEntries(rows.map((r) => [r.network, r.status]));
  }
}
