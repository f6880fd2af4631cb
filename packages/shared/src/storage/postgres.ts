/**
 * Opens a service's PostgreSQL database through Kysely: a pool of connections (bigint read back as
 * a JavaScript number), the service's migrations brought up to date, and the database's
 * StorageHealth (storage-health.ts, through guarded-postgres-dialect.ts). Several processes may
 * open one database at once (docs/storage.md).
 *
 * The pool rides through the server going away (guarded-postgres-dialect.ts); waits are bounded by
 * the connect and statement timeouts (PostgresSettings); a URL may list several hosts, tried in
 * turn, keeping only a server that takes writes when it says `target_session_attrs=read-write` (or
 * `primary`), as libpq does.
 */
import { SettingError } from '../errors/setting-error.js';
import { randomBytes } from 'node:crypto';
import { Kysely, sql, type Migration } from 'kysely';
import pg from 'pg';
import { GuardedPostgresDialect } from './guarded-postgres-dialect.js';
import { OLD_PROBE_TABLE, PROBE_TABLE, migrateToLatest } from './migrate.js';
import { ServerNotWritable, StartRefusal } from './postgres-failures.js';
import { isPostgresUrl, postgresLocation, type PostgresLocation } from './postgres-url.js';
import { STORAGE_PROBE_BYTES, StorageHealth } from './storage-health.js';


/** Connections per process unless the URL says `?max=N`. */
export const DEFAULT_POOL_SIZE = 10;

/** The waits a service puts on its database (docs/storage.md "Settings"). */
export interface PostgresSettings {
  /** A connection (TCP, TLS, sign-in) not made within this is given up: 503, or a clear stop at start. */
  connectTimeoutMs: number;
  /**
   * The server cancels a statement running longer (statement_timeout) and ends a transaction left
   * idle longer (idle_in_transaction_session_timeout); a server that says nothing at all is given
   * up a little after (STATEMENT_GRACE_MS). 0: no limit.
   */
  statementTimeoutMs: number;
}

export const DEFAULT_POSTGRES_SETTINGS: PostgresSettings = { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000 };

/** How long after the statement timeout a silent server's connection is closed (at most; as long as the timeout when shorter). */
const STATEMENT_GRACE_MS = 5_000;
/** TCP keepalive on idle connections, so a server that vanished is noticed without a statement. */
const KEEPALIVE_AFTER_MS = 10_000;

const INT8_OID = 20;
const parseBigint = (value: string): number => Number(value);
/** bigint (times in ms, counts) as numbers, the way SQLite gives them; every other type as pg does. */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID && format !== 'binary' ? parseBigint : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

/** The connections a URL asks for (`?max=N`, 10 by default). */
export function poolSizeOf(url: string): number {
  const first = postgresLocation(url).hostUrls[0] as string;
  const max = new URL(first).searchParams.get('max');
  const size = max === null ? DEFAULT_POOL_SIZE : Number(max);
  if (!Number.isInteger(size) || size < 1 || size > 1_000) throw new SettingError(`max=${max} in the database URL must be a whole number of connections from 1 to 1000`);
  return size;
}

/**
 * Pool settings from a postgres:// URL; `max` (connections per process) is read here, the rest by pg
 * (for a list of hosts, the first host's URL: the pool's Client picks the host of each connection).
 */
export function poolConfig(url: string, applicationName: string, settings: PostgresSettings = DEFAULT_POSTGRES_SETTINGS): pg.PoolConfig {
  if (!isPostgresUrl(url)) throw new Error('a PostgreSQL database is named by a postgres:// or postgresql:// URL');
  const location = postgresLocation(url);
  const timeout = settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs, idle_in_transaction_session_timeout: settings.statementTimeoutMs } : {};
  return {
    connectionString: location.hostUrls[0],
    max: poolSizeOf(url),
    application_name: applicationName,
    types: TYPES,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
    ...timeout,
  };
}

/**
 * The hosts of a URL in turn: each new connection goes to the host that last answered; a failed
 * attempt (refused, timed out, not writable when writes are asked for) moves the turn to the next.
 */
class HostTurn {
  current = 0;
  constructor(readonly count: number) {}
  next(): void {
    this.current = (this.current + 1) % this.count;
  }
}

/**
 * A node-postgres pool on the URL's hosts, with the settings' connect timeout and the writable check
 * `target_session_attrs` asks for; and `connectOne`, a connection of its own made the same way,
 * outside the pool (asking about a lost COMMIT must not wait for a pooled connection its own
 * transaction may be holding).
 */
function createPool(location: PostgresLocation, config: pg.PoolConfig, settings: PostgresSettings, turn: HostTurn): { pool: pg.Pool; connectOne: () => Promise<pg.Client> } {
  class HostClient extends pg.Client {
    readonly hostIndex: number;
    constructor(options?: pg.ClientConfig) {
      const index = turn.current;
      // Only the connection waits the connect timeout; a request waiting for a free pooled connection waits its turn.
      super({ ...options, connectionString: location.hostUrls[index], connectionTimeoutMillis: settings.connectTimeoutMs });
      this.hostIndex = index;
    }
  }
  /** Throws when the URL asks for a writable server and this one is not. */
  const checkWritable = async (base: pg.ClientBase): Promise<void> => {
    const client = base as unknown as HostClient;
    const { rows } = await client.query<{ recovery: boolean; read_only: string }>("SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only");
    const row = rows[0];
    const host = `${client.host}:${client.port}`;
    if (row?.recovery) throw new ServerNotWritable(host, 'a standby in recovery');
    if (location.targetSessionAttrs === 'read-write' && row?.read_only === 'on') throw new ServerNotWritable(host, 'transactions are read-only by default');
  };
  const wantsWrites = location.targetSessionAttrs !== 'any';
  const pool = new pg.Pool({ ...config, Client: HostClient, ...(wantsWrites ? { onConnect: checkWritable } : {}) });
  // The host that answered keeps the turn.
  pool.on('connect', (client) => {
    turn.current = (client as unknown as HostClient).hostIndex;
  });
  const connectOne = async (): Promise<pg.Client> => {
    for (let attempt = 1; ; attempt++) {
      const client = new HostClient({ ...config });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (wantsWrites) await checkWritable(client);
        turn.current = client.hostIndex;
        return client;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (location.hostUrls.length > 1) turn.next();
        if (attempt >= location.hostUrls.length) throw error;
      }
    }
  };
  return { pool, connectOne };
}

export interface ConnectOptions {
  applicationName: string;
  /** Connections in this pool (the URL's `max` otherwise). */
  max?: number;
  health?: StorageHealth;
  settings?: PostgresSettings;
}

/**
 * A Kysely handle on a pool of connections to the database, without migrating it (for a reader of a
 * database its service keeps up to date: an answer worker). `max` overrides the URL's pool size.
 */
export function connectPostgres<DB>(url: string, options: ConnectOptions): Kysely<DB> {
  const settings = options.settings ?? DEFAULT_POSTGRES_SETTINGS;
  const location = postgresLocation(url);
  const config = poolConfig(url, options.applicationName, settings);
  const turn = new HostTurn(location.hostUrls.length);
  const { pool, connectOne } = createPool(location, options.max === undefined ? config : { ...config, max: options.max }, settings, turn);
  // An idle connection the server dropped (a restart): the pool replaces it; the process goes on.
  pool.on('error', () => undefined);
  // A reader's or the migrations' own handle: failures are the caller's to report.
  const health = options.health ?? new StorageHealth({ database: location.where, log: () => undefined });
  return new Kysely<DB>({
    dialect: new GuardedPostgresDialect({
      pool,
      health,
      where: location.where,
      hostCount: location.hostUrls.length,
      nextHost: () => turn.next(),
      connectOne,
      clientTimeoutMs: settings.statementTimeoutMs > 0 ? settings.statementTimeoutMs + Math.min(STATEMENT_GRACE_MS, settings.statementTimeoutMs) : 0,
      // A restart takes a second or two: a lost COMMIT's outcome is asked for as long as two connections may take.
      resolveWithinMs: Math.max(2 * settings.connectTimeoutMs, 2_000),
    }),
  });
}

/** Why a first connection failed, in an operator's words: what to check. */
function startRefusal(error: unknown, where: string, setting: string, settings: PostgresSettings): Error {
  const inner = (error as { cause?: unknown }).cause ?? error;
  const { code, message } = inner as { code?: string; message?: string };
  const text = message ?? String(inner);
  const check = (() => {
    if (code === 'ECONNREFUSED') return 'nothing answers there: check that PostgreSQL is running and listens on that address and port (listen_addresses, port)';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name is not known here: check the host in the URL';
    if (/timeout/i.test(text)) return `no answer within ${settings.connectTimeoutMs} ms (${setting.replace(/_URL$/, '_CONNECT_TIMEOUT_MS')}): check that the address is PostgreSQL's and that no firewall holds the connection`;
    if (code === '28P01' || code === '28000') return 'the server refused the user: check the user and password in the URL and pg_hba.conf';
    if (code === '3D000') return 'the database does not exist: create it (createdb), owned by the service\'s role';
    if (code === '53300') return 'the server has no free connection slot: raise max_connections or lower the pools (docs/storage.md)';
    if (code === '57P03') return 'the server is starting or shutting down: start the service again once it is up';
    if (code === '25006') return 'no listed server takes writes (a standby): name the primary, or list every server with target_session_attrs=read-write';
    if (/SSL|TLS|certificate/i.test(text)) return 'the TLS connection failed: check sslmode and sslrootcert in the URL and the server\'s certificate';
    return 'check the URL and that the server is running';
  })();
  return new StartRefusal(`The database cannot be reached at ${where} (${setting}): ${code && !text.includes(code) ? `${code}: ` : ''}${text}. ${check[0]?.toUpperCase()}${check.slice(1)}.`, error);
}

export interface OpenPostgresOptions {
  applicationName: string;
  settings?: PostgresSettings;
  /** The setting that named the URL, for messages (INBOX_DATABASE_URL). */
  setting?: string;
  /** Connections of this handle (the URL's `max` otherwise). */
  max?: number;
}

export async function openPostgres<DB>(url: string, migrations: Record<string, Migration>, options: OpenPostgresOptions): Promise<{ db: Kysely<DB>; health: StorageHealth }> {
  const settings = options.settings ?? DEFAULT_POSTGRES_SETTINGS;
  const setting = options.setting ?? 'the database URL';
  const location = postgresLocation(url);
  // Migrations run on a connection of their own with no statement timeout: a data fix on a large table may take minutes.
  const migrator = connectPostgres<unknown>(url, { applicationName: options.applicationName, max: 1, settings: { ...settings, statementTimeoutMs: 0 } });
  try {
    try {
      await sql`SELECT 1`.execute(migrator);
    } catch (error) {
      throw startRefusal(error, location.where, setting, settings);
    }
    await migrateToLatest(migrator, migrations);
    // Two processes creating the same table at once can collide in PostgreSQL's catalog: one at a time.
    await migrator.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${PROBE_TABLE}, 0))`.execute(trx);
      await sql`DROP TABLE IF EXISTS ${sql.table(OLD_PROBE_TABLE)}`.execute(trx);
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(PROBE_TABLE)} (id integer PRIMARY KEY CHECK (id = 1), at bigint NOT NULL, bytes bytea NOT NULL)`.execute(trx);
    });
  } finally {
    await migrator.destroy();
  }
  const health = new StorageHealth({ database: location.where });
  const db = connectPostgres<DB>(url, { applicationName: options.applicationName, health, settings, ...(options.max === undefined ? {} : { max: options.max }) });
  try {
    for (const advice of await connectionAdvice(db as unknown as Kysely<unknown>, options.max ?? poolSizeOf(url))) health.advise(advice);
  } catch (error) {
    await db.destroy();
    throw startRefusal(error, location.where, setting, settings);
  }
  // Into new space, as a create's pages may need: TRUNCATE gives the table (and its TOAST table and
  // index) new, empty files, so the row must extend them, and PostgreSQL writes each new block when it
  // extends a file, which is where a full disk answers 53100. Random bytes: TOAST cannot compress them
  // away. Processes probing at once take turns on the table's lock.
  health.probeWith(async () => {
    const bytes = randomBytes(STORAGE_PROBE_BYTES);
    await db.transaction().execute(async (trx) => {
      await sql`TRUNCATE ${sql.table(PROBE_TABLE)}`.execute(trx);
      await sql`INSERT INTO ${sql.table(PROBE_TABLE)} (id, at, bytes) VALUES (1, ${Date.now()}, ${bytes})`.execute(trx);
    });
  });
  return { db, health };
}

/**
 * What an operator should hear about the service's connections: a superuser role may take the slots
 * PostgreSQL keeps for administrators (superuser_reserved_connections, and reserved_connections
 * from 16 on); a pool larger than the slots other roles get can never be filled.
 */
async function connectionAdvice(db: Kysely<unknown>, poolSize: number): Promise<string[]> {
  const { rows } = await sql<{ superuser: boolean; role: string; max_connections: number; reserved: number }>`
    SELECT r.rolsuper AS superuser, current_user AS role,
      current_setting('max_connections')::int AS max_connections,
      current_setting('superuser_reserved_connections')::int + coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int AS reserved
    FROM pg_roles r WHERE r.rolname = current_user`.execute(db);
  const row = rows[0];
  if (!row) return [];
  const advice: string[] = [];
  const open = row.max_connections - row.reserved;
  if (row.superuser) {
    advice.push(`the service connects to PostgreSQL as the superuser ${row.role}: it may take the ${row.reserved} connection slots the server keeps for administrators; give it a role of its own (docs/storage.md)`);
  }
  if (poolSize > open) {
    advice.push(`the pool may open ${poolSize} connections, more than the ${open} slots PostgreSQL gives roles that are not superusers (max_connections ${row.max_connections} − ${row.reserved} reserved); lower max= in the URL`);
  }
  return advice;
}
