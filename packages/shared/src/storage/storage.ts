/**
 * Where a service keeps its data, chosen by one setting (docs/storage.md): a postgres:// URL
 * (INBOX_DATABASE_URL, DIRECTORY_DATABASE_URL) opens PostgreSQL; without one, the service's SQLite
 * file in its data folder, the embedded default.
 */
import type { Kysely, Migration } from 'kysely';
import type { StorageEngine } from './engine.js';
import { isPostgresUrl, openPostgres } from './postgres.js';
import type { TableWrites } from './table-writes.js';
import { openSqlite } from './sqlite.js';
import type { SqliteDatabase } from './sqlite-driver.js';
import type { StorageHealth } from './storage-health.js';

export type StorageTarget = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

/**
 * The target a service's setting names: a postgres:// URL, or (empty or absent) the SQLite file.
 * Anything else stops the start, naming the setting.
 */
export function storageTarget(setting: string | undefined | null, sqliteFile: string, settingName: string): StorageTarget {
  const value = setting?.trim() ?? '';
  if (value === '') return { engine: 'sqlite', file: sqliteFile };
  if (!isPostgresUrl(value)) throw new Error(`${settingName} must be a postgres:// or postgresql:// URL (or unset for the SQLite file in the data folder)`);
  try {
    new URL(value);
  } catch {
    throw new Error(`${settingName} is not a valid URL`);
  }
  return { engine: 'postgres', url: value };
}

/** The target in words for a start line or a log: never a password. */
export function describeStorage(target: StorageTarget): string {
  if (target.engine === 'sqlite') return `SQLite ${target.file}`;
  const url = new URL(target.url);
  url.password = '';
  url.search = '';
  return `PostgreSQL ${url.href}`;
}

export interface OpenedStorage<DB> {
  db: Kysely<DB>;
  engine: StorageEngine;
  health: StorageHealth;
  /** SQLite's own handle (synchronous streaming reads); null on PostgreSQL. */
  sqlite: SqliteDatabase | null;
  /**
   * Which tables may have changed since a moment (table-writes.ts), for answers kept in memory. SQLite
   * only: there one process owns the file, and PRAGMA data_version shows any other connection's commit.
   * On PostgreSQL other processes commit to the same database unseen by this one, so null: nothing is
   * kept across reads there (every stamp is new).
   */
  writes: TableWrites | null;
}

export async function openStorage<DB>(
  target: StorageTarget,
  migrations: Record<string, Migration>,
  options: { applicationName: string; sqlitePragmas?: readonly string[] },
): Promise<OpenedStorage<DB>> {
  if (target.engine === 'postgres') {
    const { db, health } = await openPostgres<DB>(target.url, migrations, { applicationName: options.applicationName });
    return { db, health, engine: 'postgres', sqlite: null, writes: null };
  }
  const { db, sqlite, health, writes } = await openSqlite<DB>(target.file, migrations, options.sqlitePragmas ?? []);
  return { db, health, engine: 'sqlite', sqlite, writes };
}
