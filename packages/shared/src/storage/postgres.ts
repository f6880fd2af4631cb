/**
 * Opens a service's PostgreSQL database through Kysely: a pool of connections (bigint read back as
 * a JavaScript number), the service's migrations brought up to date, and the database's
 * StorageHealth (storage-health.ts, through guarded-postgres-dialect.ts). Several processes may
 * open one database at once (docs/storage.md).
 */
import { Kysely, sql, type Migration } from 'kysely';
import pg from 'pg';
import { GuardedPostgresDialect } from './guarded-postgres-dialect.js';
import { PROBE_TABLE, migrateToLatest } from './migrate.js';
import { StorageHealth } from './storage-health.js';

/** Connections per process unless the URL says `?max=N`. */
export const DEFAULT_POOL_SIZE = 10;

const INT8_OID = 20;
const parseBigint = (value: string): number => Number(value);
/** bigint (times in ms, counts) as numbers, the way SQLite gives them; every other type as pg does. */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID && format !== 'binary' ? parseBigint : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

/** Whether a setting names a PostgreSQL database. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** Pool settings from a postgres:// URL; `max` (connections per process) is read here, the rest by pg. */
export function poolConfig(url: string, applicationName: string): pg.PoolConfig {
  if (!isPostgresUrl(url)) throw new Error('a PostgreSQL database is named by a postgres:// or postgresql:// URL');
  const max = new URL(url).searchParams.get('max');
  const size = max === null ? DEFAULT_POOL_SIZE : Number(max);
  if (!Number.isInteger(size) || size < 1 || size > 1_000) throw new Error(`max=${max} in the database URL must be a whole number of connections from 1 to 1000`);
  return { connectionString: url, max: size, application_name: applicationName, types: TYPES };
}

/**
 * A Kysely handle on a pool of connections to the database, without migrating it (for a reader of a
 * database its service keeps up to date: an answer worker). `max` overrides the URL's pool size.
 */
export function connectPostgres<DB>(url: string, options: { applicationName: string; max?: number; health?: StorageHealth }): Kysely<DB> {
  const config = poolConfig(url, options.applicationName);
  const pool = new pg.Pool(options.max === undefined ? config : { ...config, max: options.max });
  // An idle connection the server dropped (a restart): the pool replaces it; the process goes on.
  pool.on('error', () => undefined);
  return new Kysely<DB>({ dialect: new GuardedPostgresDialect({ pool }, options.health ?? new StorageHealth()) });
}

export async function openPostgres<DB>(
  url: string,
  migrations: Record<string, Migration>,
  options: { applicationName: string },
): Promise<{ db: Kysely<DB>; health: StorageHealth }> {
  const health = new StorageHealth();
  const db = connectPostgres<DB>(url, { applicationName: options.applicationName, health });
  try {
    await migrateToLatest(db as Kysely<unknown>, migrations);
    // Two processes creating the same table at once can collide in PostgreSQL's catalog: one at a time.
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${PROBE_TABLE}, 0))`.execute(trx);
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(PROBE_TABLE)} (id integer PRIMARY KEY CHECK (id = 1), at bigint NOT NULL)`.execute(trx);
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  health.probeWith(async () => {
    await sql`INSERT INTO ${sql.table(PROBE_TABLE)} (id, at) VALUES (1, ${Date.now()}) ON CONFLICT (id) DO UPDATE SET at = excluded.at`.execute(db);
  });
  return { db, health };
}
