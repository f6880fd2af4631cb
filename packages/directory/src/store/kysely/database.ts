/** Opens the directory's SQLite file (WAL) through Kysely and brings its schema up to date. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import * as initial from './migrations/0001-directory.js';
import type { DirectoryDatabase } from './schema.js';

const MIGRATIONS: Record<string, Migration> = { '0001-directory': initial };

class EmbeddedMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export async function openDirectoryDatabase(file: string): Promise<{ db: Kysely<DirectoryDatabase>; sqlite: SQLite.Database }> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  const db = new Kysely<DirectoryDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
  const { error, results } = await new Migrator({ db, provider: new EmbeddedMigrations() }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String(error)}`);
  }
  return { db, sqlite };
}
