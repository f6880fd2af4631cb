/**
 * The listings' keys in seq order, read on a connection of its own (the hour's statement's worker,
 * workers/order-tree-worker.ts): the SQLite file opened read-only, or one PostgreSQL connection. The
 * query is the store's own (KyselyStatementStore.listingKeysAfter), so both readers read alike.
 */
import { connectPostgres, type StorageTarget } from '@svc/shared/storage';
import { openSqliteFile } from '@svc/shared/sqlite-driver';
import { Kysely, SqliteDialect } from 'kysely';
import type { ListingKey } from '../../domain/evidence/statement-leaves.js';
import { READING_ALL_CACHE_KIB } from './database.js';
import { KyselyStatementStore } from './evidence-store.js';
import type { DirectoryDatabase } from './schema.js';

export class ListingKeysReader {
  readonly #db: Kysely<DirectoryDatabase>;
  readonly #statements: KyselyStatementStore;

  constructor(storage: StorageTarget) {
    if (storage.engine === 'postgres') {
      this.#db = connectPostgres<DirectoryDatabase>(storage.url, { applicationName: 'directory statement worker', max: 1, settings: storage.settings });
    } else {
      const sqlite = openSqliteFile(storage.file, { readonly: true, fileMustExist: true });
      // One pass over every listing: a small cache (its pages are read once).
      sqlite.pragma(`cache_size = -${READING_ALL_CACHE_KIB}`);
      this.#db = new Kysely<DirectoryDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
    }
    this.#statements = new KyselyStatementStore(this.#db);
  }

  /** Up to `limit` listings' keys after seq `after`, in seq order. */
  after(after: number, limit: number): Promise<ListingKey[]> {
    return this.#statements.listingKeysAfter(after, limit);
  }

  close(): Promise<void> {
    return this.#db.destroy();
  }
}
