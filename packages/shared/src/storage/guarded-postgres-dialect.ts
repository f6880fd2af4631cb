/**
 * Kysely's PostgreSQL dialect with a driver of our own over a node-postgres pool, made to ride
 * through the server going away (a restart, a stop, a failover, a dropped connection):
 *
 * - Every pooled connection has an `error` listener from its first moment. node-postgres emits
 *   `error` on a connection the server drops; the pool listens only while a connection is idle, so
 *   one dropped while checked out (a statement in flight) used to end the process. Here the
 *   connection is marked lost, its statement fails with ConnectionLost (a 503), and it is dropped
 *   from the pool when released; the next statement gets a new one.
 * - A statement the server does not answer within the statement timeout and a margin is given up:
 *   its connection is closed (a server that accepts and never answers cannot hold a request forever).
 * - A COMMIT whose answer is lost is not reported as failed when it may have committed: the
 *   transaction's id is read before the COMMIT, and the database is asked (`txid_status`, as
 *   PostgreSQL documents for this case) once it answers again. Committed: the call succeeds.
 *   Aborted: it fails, nothing saved. Not known within the wait: CommitOutcomeUnknown, a 503 that
 *   says it may have been saved (a retry with the same idempotency key finds it if it was).
 * - Every failure and every commit is shown to the service's StorageHealth (storage-health.ts): 503
 *   `storage_unavailable` with Retry-After and /healthz while the database is away, back at the
 *   first write that succeeds.
 */
import {
  CompiledQuery,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { CommitOutcomeUnknown, ConnectionLost, DatabaseUnreachable, NoAnswer, endsConnection } from './postgres-failures.js';
import type { AnyKysely } from './engine.js';
import { preparedName } from './prepared-statements.js';
import type { StorageHealth } from './storage-health.js';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
/** Query kinds that cannot write: a transaction that ran only these has nothing to lose at its COMMIT. */
const READS = new Set(['SelectQueryNode']);
/** Between two questions about a lost COMMIT's outcome while the database is away. */
const RESOLVE_PAUSE_MS = 200;

export interface GuardedPoolOptions {
  pool: pg.Pool;
  health: StorageHealth;
  /** `host:port/database` for messages. */
  where: string;
  /** Hosts in the URL: a connection that fails is tried again on the next, once per host. */
  hostCount: number;
  /** Moves new connections to the next host of the URL. */
  nextHost: () => void;
  /** A connection outside the pool, to the host a pooled one would go to (asking about a lost COMMIT). */
  connectOne: () => Promise<pg.Client>;
  /** A statement unanswered this long has its connection closed (0: never). */
  clientTimeoutMs: number;
  /** How long a lost COMMIT's outcome is asked for before it is reported unknown. */
  resolveWithinMs: number;
}

export class GuardedPostgresDialect extends PostgresDialect {
  readonly #options: GuardedPoolOptions;

  constructor(options: GuardedPoolOptions) {
    super({ pool: options.pool });
    this.#options = options;
  }

  override createDriver(): Driver {
    return new GuardedPostgresDriver(this.#options);
  }
}

class GuardedPostgresDriver implements Driver {
  readonly #options: GuardedPoolOptions;
  readonly #connections = new WeakMap<pg.PoolClient, GuardedConnection>();
  #destroyed = false;

  constructor(options: GuardedPoolOptions) {
    this.#options = options;
    // From a connection's first moment: its errors are ours, never an unhandled 'error' event.
    options.pool.on('connect', (client) => void this.#connectionOf(client as pg.PoolClient));
  }

  async init(): Promise<void> {}

  #connectionOf(client: pg.PoolClient): GuardedConnection {
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new GuardedConnection(client, this.#options);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const { pool, health, where, hostCount, nextHost } = this.#options;
    for (let attempt = 1; ; attempt++) {
      try {
        const client = await pool.connect();
        if (this.#destroyed) {
          client.release();
          throw new Error('the database handle was closed');
        }
        return this.#connectionOf(client).checkedOut();
      } catch (error) {
        if (this.#destroyed) throw error;
        // A list of hosts: the next one may be the primary now.
        if (hostCount > 1) nextHost();
        if (attempt < hostCount) continue;
        const unreachable = new DatabaseUnreachable(where, error);
        health.noteFailure(unreachable);
        throw unreachable;
      }
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as GuardedConnection).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const guarded = connection as GuardedConnection;
    const mark = await guarded.beforeCommit();
    const sentAtMs = this.#options.health.now();
    try {
      await guarded.commit();
    } catch (error) {
      if (!(error instanceof ConnectionLost) || mark === null) throw error;
      // The answer to COMMIT was lost: ask the database what became of the transaction.
      const outcome = await this.#outcomeOf(mark);
      if (outcome === 'aborted') throw error;
      if (outcome === 'unknown') {
        const unknown = new CommitOutcomeUnknown(this.#options.where, error.cause);
        this.#options.health.noteFailure(unknown, sentAtMs);
        throw unknown;
      }
    }
    this.#options.health.noteCommitted(sentAtMs);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as GuardedConnection).rollback();
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoted(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as GuardedConnection).release();
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await this.#options.pool.end();
  }

  /**
   * What became of transaction `xid` whose COMMIT answer was lost: asked on a connection of its own until
   * the database answers (a restart takes a second or two), for `resolveWithinMs` at most.
   */
  async #outcomeOf({ xid, timeline }: CommitMark): Promise<'committed' | 'aborted' | 'unknown'> {
    const deadline = Date.now() + this.#options.resolveWithinMs;
    while (!this.#destroyed) {
      try {
        const client = await this.#options.connectOne();
        try {
          const { rows } = await client.query<{ status: string | null; timeline: string }>(`SELECT txid_status($1::bigint) AS status, ${TIMELINE_SQL} AS timeline`, [xid]);
          const status = rows[0]?.status ?? null;
          // Another timeline (a standby promoted since): the id may be another transaction's now, so its
          // status says nothing of ours. The caller retries with its idempotency key, which settles it.
          if (status !== null && rows[0]?.timeline !== timeline) return 'unknown';
          if (status === 'committed') return 'committed';
          if (status === 'aborted') return 'aborted';
          // null: too old to be known (never here, a second later); 'in progress': its backend still ends it.
          if (status === null) return 'unknown';
        } catch (error) {
          // 22023: an id this server never gave out (a standby promoted before the commit reached it): not committed here.
          if ((error as { code?: unknown }).code === '22023') return 'aborted';
        } finally {
          await client.end().catch(() => undefined);
        }
      } catch {
        // not back yet
      }
      if (Date.now() + RESOLVE_PAUSE_MS > deadline) return 'unknown';
      await new Promise((resolve) => setTimeout(resolve, RESOLVE_PAUSE_MS));
    }
    return 'unknown';
  }
}

/** What a lost COMMIT is asked about: the transaction's id and the timeline it was given on. */
interface CommitMark {
  xid: string;
  timeline: string;
}

/** The server's timeline, readable by any role (pg_control_checkpoint is not). */
const TIMELINE_SQL = 'substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)';

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Runs `work` on the node-postgres client under a Kysely handle's connection (a transaction's own
 * connection inside one), for what the query builder cannot send: COPY … FROM STDIN. A failure counts
 * as any statement's does (a lost connection is dropped, StorageHealth is told).
 */
export function onPostgresClient<T>(db: AnyKysely, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return db.getExecutor().provideConnection((connection) => {
    if (!(connection instanceof GuardedConnection)) throw new Error('not a connection of the guarded PostgreSQL dialect');
    return connection.withClient(work);
  });
}

class GuardedConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  readonly #options: GuardedPoolOptions;
  /** Why the connection is gone (set by its 'error' event, a fatal error or a timeout); null while it works. */
  #lost: unknown = null;
  #inTransaction = false;
  /** The transaction ran a statement that may have written. */
  #mayHaveWritten = false;

  constructor(client: pg.PoolClient, options: GuardedPoolOptions) {
    this.#client = client;
    this.#options = options;
    client.on('error', (error) => {
      this.#lost ??= error;
    });
  }

  checkedOut(): this {
    this.#inTransaction = false;
    this.#mayHaveWritten = false;
    return this;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const kind = compiledQuery.query.kind;
    if (this.#inTransaction && !READS.has(kind)) this.#mayHaveWritten = true;
    const sentAtMs = this.#options.health.now();
    const { command, rowCount, rows } = await this.#run<R>(compiledQuery.sql, compiledQuery.parameters, preparedName(compiledQuery.query, compiledQuery.sql));
    // A write outside a transaction has committed; one inside commits with it (commitTransaction).
    if (!this.#options.health.writable && !this.#inTransaction && WRITES.has(kind)) this.#options.health.noteCommitted(sentAtMs);
    return {
      numAffectedRows: command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE' ? BigInt(rowCount ?? 0) : undefined,
      rows: rows ?? [],
    };
  }

  // Nothing here streams: every read is paged (the directory's index build reads pages of 5,000 rows).
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used on PostgreSQL here; read in pages');
  }

  async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const { health, where } = this.#options;
    if (this.#lost !== null) {
      const lost = new ConnectionLost(where, this.#lost);
      health.noteFailure(lost);
      throw lost;
    }
    if (this.#inTransaction) this.#mayHaveWritten = true;
    try {
      return await work(this.#client);
    } catch (error) {
      if (this.#lost === null && endsConnection(error)) this.#lost = error;
      const failure = this.#lost !== null ? new ConnectionLost(where, this.#lost) : error;
      health.noteFailure(failure);
      throw failure;
    }
  }

  async begin(settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = `start transaction${settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : ''}${settings.accessMode ? ` ${settings.accessMode}` : ''}`;
    }
    await this.#run(text, []);
    this.#inTransaction = true;
    this.#mayHaveWritten = false;
  }

  /**
   * The transaction's id and the server's timeline, read before its COMMIT when it may have written
   * (null: it wrote nothing). The timeline (the first 8 hex digits of a WAL file's name) changes when
   * a standby is promoted: past that, the new primary may give the same id to another transaction.
   */
  async beforeCommit(): Promise<CommitMark | null> {
    if (!this.#mayHaveWritten) return null;
    const { rows } = await this.#run<{ xid: string | null; timeline: string }>(`SELECT txid_current_if_assigned()::text AS xid, ${TIMELINE_SQL} AS timeline`, []);
    const xid = rows[0]?.xid ?? null;
    return xid === null ? null : { xid, timeline: rows[0]!.timeline };
  }

  async commit(): Promise<void> {
    try {
      await this.#run('commit', []);
    } finally {
      this.#inTransaction = false;
    }
  }

  async rollback(): Promise<void> {
    this.#inTransaction = false;
    // The server rolled back what a lost connection had open; there is nobody to tell.
    if (this.#lost !== null) return;
    await this.#run('rollback', []);
  }

  /** Back to the pool; a lost connection is closed and dropped instead. */
  release(): void {
    this.#inTransaction = false;
    this.#client.release(this.#lost === null ? undefined : this.#lost instanceof Error ? this.#lost : new Error(String(this.#lost)));
  }

  /** `name`: run as that prepared statement (parsed at its first run on this connection). */
  async #run<R>(text: string, parameters: readonly unknown[], name?: string): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    const { health, where, clientTimeoutMs } = this.#options;
    if (this.#lost !== null) {
      const lost = new ConnectionLost(where, this.#lost);
      health.noteFailure(lost);
      throw lost;
    }
    let timer: NodeJS.Timeout | undefined;
    if (clientTimeoutMs > 0) {
      timer = setTimeout(() => {
        this.#lost ??= new NoAnswer(clientTimeoutMs);
        destroySocket(this.#client);
      }, clientTimeoutMs);
    }
    try {
      return await queryWithCallback<R & pg.QueryResultRow>(this.#client, name === undefined ? { text, values: parameters as unknown[] } : { name, text, values: parameters as unknown[] });
    } catch (error) {
      if (this.#lost === null && endsConnection(error)) this.#lost = error;
      const failure = this.#lost !== null ? new ConnectionLost(where, this.#lost) : error;
      health.noteFailure(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * node-postgres's query in its callback form, made a promise here. Its own promise form keeps each
 * result reachable past the young generation's next collection (41–85% of what a reading thread
 * allocated survived each one, against 0–4% this way: docs/directory.md "The answer worker's page
 * read on PostgreSQL"), so V8 grew that thread's young generation to its largest (128 MB) and every
 * collection copied the rows. The driver's reads alone take a fifth less time this way
 * (bench/directory-page-read.ts).
 */
function queryWithCallback<R extends pg.QueryResultRow>(client: pg.PoolClient, config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
  return new Promise((resolve, reject) => {
    client.query<R>(config, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Closes a connection's socket at once (node-postgres's own pool does so for a connect timeout). */
function destroySocket(client: pg.PoolClient): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
