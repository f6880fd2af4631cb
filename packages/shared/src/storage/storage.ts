/**
 * Where a service keeps its data, chosen by one setting (docs/storage.md): a postgres:// URL
 * (INBOX_DATABASE_URL, DIRECTORY_DATABASE_URL) opens PostgreSQL; without one, the service's SQLite
 * file in its data folder, the embedded default.
 */
import { SettingError } from '../errors/setting-error.js';
import type { Kysely, Migration } from 'kysely';
import type { StorageEngine } from './engine.js';
import { DEFAULT_POSTGRES_SETTINGS, openPostgres, type PostgresSettings } from './postgres.js';
import { isPostgresUrl, postgresLocation, redactedPostgresUrl } from './postgres-url.js';
import type { TableWrites } from './table-writes.js';
import { openSqlite } from './sqlite.js';
import type { SqliteDatabase } from './sqlite-driver.js';
import type { StorageHealth } from './storage-health.js';

export type StorageTarget =
  | { engine: 'sqlite'; file: string }
  | {
      engine: 'postgres';
      url: string;
      /** The setting that named it (INBOX_DATABASE_URL), for messages. */
      setting: string;
      settings: PostgresSettings;
      /** Connections of the process's main pool when not all of the URL's `max` (the directory gives one to each answer worker). */
      connections?: number;
    };

/** A whole number of milliseconds from the environment (0 and up), or the default. */
function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 3_600_000) throw new SettingError(`${name} must be a whole number of milliseconds (0 to 3600000), not ${value}`);
  return parsed;
}

/**
 * The waits on a service's PostgreSQL from its environment: `<SERVICE>_DATABASE_CONNECT_TIMEOUT_MS`
 * and `<SERVICE>_DATABASE_STATEMENT_TIMEOUT_MS` beside `<SERVICE>_DATABASE_URL` (docs/storage.md).
 */
export function postgresSettingsFromEnvironment(settingName: string, env: NodeJS.ProcessEnv = process.env): PostgresSettings {
  const prefix = settingName.replace(/_URL$/, '');
  return {
    connectTimeoutMs: milliseconds(env, `${prefix}_CONNECT_TIMEOUT_MS`, DEFAULT_POSTGRES_SETTINGS.connectTimeoutMs),
    statementTimeoutMs: milliseconds(env, `${prefix}_STATEMENT_TIMEOUT_MS`, DEFAULT_POSTGRES_SETTINGS.statementTimeoutMs),
  };
}

/**
 * The target a service's setting names: a postgres:// URL (with the waits set beside it in the
 * environment), or (empty or absent) the SQLite file. Anything else stops the start, naming the setting.
 */
export function storageTarget(setting: string | undefined | null, sqliteFile: string, settingName: string, env: NodeJS.ProcessEnv = process.env): StorageTarget {
  const value = setting?.trim() ?? '';
  if (value === '') return { engine: 'sqlite', file: sqliteFile };
  if (!isPostgresUrl(value)) throw new SettingError(`${settingName} must be a postgres:// or postgresql:// URL (or unset for the SQLite file in the data folder)`);
  try {
    postgresLocation(value);
  } catch (error) {
    const why = (error as Error).message;
    throw new SettingError(why.includes('not a valid URL') ? `${settingName} is not a valid URL` : `${settingName}: ${why}`);
  }
  return { engine: 'postgres', url: value, setting: settingName, settings: postgresSettingsFromEnvironment(settingName, env) };
}

/** The target in words for a start line or a log: never a password. */
export function describeStorage(target: StorageTarget): string {
  if (target.engine === 'sqlite') return `SQLite ${target.file}`;
  return `PostgreSQL ${redactedPostgresUrl(target.url)}`;
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
  options: { applicationName: string; sqlitePragmas?: readonly string[]; sqliteNewFilePageBytes?: number },
): Promise<OpenedStorage<DB>> {
  if (target.engine === 'postgres') {
    const { db, health } = await openPostgres<DB>(target.url, migrations, {
      applicationName: options.applicationName,
      settings: target.settings,
      setting: target.setting,
      ...(target.connections === undefined ? {} : { max: target.connections }),
    });
    return { db, health, engine: 'postgres', sqlite: null, writes: null };
  }
  const { db, sqlite, health, writes } = await openSqlite<DB>(target.file, migrations, options.sqlitePragmas ?? [], options.sqliteNewFilePageBytes);
  return { db, health, engine: 'sqlite', sqlite, writes };
}
