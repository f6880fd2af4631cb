/**
 * Which database engine a Kysely handle runs on. SQLite is the embedded default (one process owns a
 * file); PostgreSQL is for operators who run several processes on one database (docs/storage.md).
 * Stores and migrations ask a handle (a transaction's too) rather than being told, so the same
 * classes serve both engines and engine specifics stay in the storage layer.
 */
import { PostgresAdapter, type Kysely } from 'kysely';

export type StorageEngine = 'sqlite' | 'postgres';

// Any handle: its tables do not matter here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKysely = Kysely<any>;

export function engineOf(db: AnyKysely): StorageEngine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function isPostgres(db: AnyKysely): boolean {
  return engineOf(db) === 'postgres';
}
