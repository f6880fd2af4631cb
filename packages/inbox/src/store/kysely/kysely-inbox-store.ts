/** The InboxStore over Kysely: one object per database handle, re-made for each transaction. */
import type { Kysely } from 'kysely';
import type { InboxStore } from '../store.js';
import { KyselyCatalogueStore } from './catalogue-store.js';
import { openDatabase } from './database.js';
import { KyselyItemStore } from './item-store.js';
import type { Database } from './schema.js';
import { KyselyJobStore } from '@svc/shared';
import { KyselyApiKeyStore, KyselyDocumentStore, KyselyIdempotencyStore } from './service-stores.js';

export class KyselyInboxStore implements InboxStore {
  readonly business;
  readonly settings;
  readonly catalogue;
  readonly items;
  readonly idempotency;
  readonly apiKeys;
  readonly jobs;
  readonly #db: Kysely<Database>;
  readonly #inTransaction: boolean;

  constructor(db: Kysely<Database>, inTransaction = false) {
    this.#db = db;
    this.#inTransaction = inTransaction;
    this.business = new KyselyDocumentStore(db, 'business');
    this.settings = new KyselyDocumentStore(db, 'settings');
    this.catalogue = new KyselyCatalogueStore(db);
    this.items = new KyselyItemStore(db);
    this.idempotency = new KyselyIdempotencyStore(db);
    this.apiKeys = new KyselyApiKeyStore(db);
    this.jobs = new KyselyJobStore(db);
  }

  /** SQLite has one writer; Kysely holds its single connection for the whole transaction, so writes serialise. */
  async transaction<T>(work: (store: InboxStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    return this.#db.transaction().execute((trx) => work(new KyselyInboxStore(trx, true)));
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

export async function openSqliteStore(file: string): Promise<KyselyInboxStore> {
  return new KyselyInboxStore(await openDatabase(file));
}
