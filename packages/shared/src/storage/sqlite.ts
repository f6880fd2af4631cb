/**
 * Opens a service's SQLite file through Kysely: private to the service's user (private-files.ts),
 * WAL, a busy timeout, foreign keys, temporary data in memory, extra pragmas a service asks for, and its embedded migrations
 * brought up to date. Returns the raw handle too, for
 * the rare read that streams rows synchronously, and the file's StorageHealth (storage-health.ts:
 * whether writes reach the disk; transactions roll back only while open, guarded-dialect.ts), and
 * its TableWrites (which tables may have changed since a moment, table-writes.ts). A file's log is
 * copied back into it on a worker thread once it grows (wal-checkpointer.ts).
 */
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { Kysely, sql, type Migration } from 'kysely';
import { assertRoomOnDisk } from './disk-room.js';
import { GuardedSqliteDialect } from './guarded-dialect.js';
import { OLD_PROBE_TABLE, PROBE_TABLE, migrateToLatest } from './migrate.js';
import { preparePrivateDataFile } from './private-files.js';
import { openSqliteFile, type SqliteDatabase, type SqliteStatement } from './sqlite-driver.js';
import { STORAGE_PROBE_BYTES, STORAGE_ROOM_BYTES, StorageHealth } from './storage-health.js';
import { TableWrites } from './table-writes.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export async function openSqlite<DB>(
  file: string,
  migrations: Record<string, Migration>,
  extraPragmas: readonly string[] = [],
  newFilePageBytes?: number,
): Promise<{ db: Kysely<DB>; sqlite: SqliteDatabase; health: StorageHealth; writes: TableWrites; checkpointer: WalCheckpointer | null }> {
  if (file !== ':memory:') preparePrivateDataFile(file);
  const sqlite = openSqliteFile(file);
  // A page size holds only for a file not yet written (before the journal mode, which writes its
  // header); a file made before keeps its own, so this is a choice for new files, never a migration.
  if (newFilePageBytes !== undefined) sqlite.pragma(`page_size = ${newFilePageBytes}`);
  // temp_store in memory: every call of a group commit has a savepoint (write-batch.ts), and SQLite
  // copies each page a savepoint changes into a sub-journal; past 64 KiB that went to a temporary
  // file, so each insert of a batch paid file writes (an inbox create's statements took 1.5–2× as long).
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'temp_store = MEMORY', ...extraPragmas]) {
    sqlite.pragma(pragma);
  }
  const health = new StorageHealth();
  const writes = new TableWrites(sqlite);
  const checkpointer = file === ':memory:' ? null : new WalCheckpointer(file);
  // Destroying the handle waits for the worker's connection to close (at most 2 s): its files are then at rest.
  const afterClose = checkpointer ? () => checkpointer.stopped(2_000) : null;
  const db = new Kysely<DB>({ dialect: new GuardedSqliteDialect({ database: withStatementCache(sqlite, checkpointer) }, sqlite, health, writes, afterClose) });
  try {
    await migrateToLatest(db as Kysely<unknown>, migrations);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  sqlite.exec(`DROP TABLE IF EXISTS ${OLD_PROBE_TABLE}`);
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${PROBE_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), at BIGINT NOT NULL, bytes BLOB NOT NULL)`);
  // The log is written again from its start once copied back, into space the file already holds, so
  // a write that lands proves little about the next: the file system must have room (STORAGE_ROOM_BYTES),
  // then a create's size of bytes (random: no file system compresses them away) must commit.
  // Through Kysely, so the probe waits for a transaction in progress instead of joining it.
  const folder = file === ':memory:' ? null : dirname(file);
  health.probeWith(async () => {
    if (folder) await assertRoomOnDisk(folder, STORAGE_ROOM_BYTES);
    const bytes = randomBytes(STORAGE_PROBE_BYTES);
    await sql`INSERT INTO ${sql.table(PROBE_TABLE)} (id, at, bytes) VALUES (1, ${Date.now()}, ${bytes}) ON CONFLICT (id) DO UPDATE SET at = excluded.at, bytes = excluded.bytes`.execute(db);
  });
  return { db, sqlite, health, writes, checkpointer };
}

/** Distinct SQL texts kept prepared; a service has a few hundred at most. */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * Kysely prepares every query again; preparing costs as much as running a small one. Statements are
 * kept by SQL text and reused (SQLite re-prepares them itself after a schema change). A statement
 * still iterating a result is busy, so that caller gets a fresh one.
 */
function withStatementCache(sqlite: SqliteDatabase, checkpointer: WalCheckpointer | null): { close(): void; prepare(sql: string): SqliteStatement } {
  const prepared = new Map<string, SqliteStatement>();
  return {
    close: () => {
      prepared.clear();
      // This connection closes first, and only then is the worker told to stop: the last connection
      // to close copies the rest of the log back and removes it, and two closing at once (the stop
      // message reaching the worker while this one closes) could each find the other still open and
      // leave the log behind.
      sqlite.close();
      void checkpointer?.stop();
    },
    prepare: (sql) => {
      const known = prepared.get(sql);
      if (known && !known.busy) return known;
      if (known) return sqlite.prepare(sql);
      const statement = sqlite.prepare(sql);
      if (prepared.size >= STATEMENT_CACHE_SIZE) prepared.delete(prepared.keys().next().value as string);
      prepared.set(sql, statement);
      return statement;
    },
  };
}
