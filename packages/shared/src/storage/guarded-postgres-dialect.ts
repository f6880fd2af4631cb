/**
 * Kysely's PostgreSQL dialect, showing every failed statement to the database's StorageHealth
 * (storage-health.ts) and every committed write to it, as guarded-dialect.ts does for SQLite: a
 * server whose disk is full (53100), that failed to write (58030), is shutting down or cannot be
 * reached answers 503 with Retry-After, and /healthz says so, until a write succeeds again.
 */
import { PostgresDialect, PostgresDriver, type CompiledQuery, type DatabaseConnection, type Driver, type PostgresDialectConfig, type QueryResult, type TransactionSettings } from 'kysely';
import type { StorageHealth } from './storage-health.js';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** A connection the pool could not make: SQLSTATE 08001 (unable to establish a connection), its cause kept. */
export class DatabaseUnreachable extends Error {
  readonly code = '08001';
  constructor(cause: unknown) {
    super(`the database cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnreachable';
  }
}

export class GuardedPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  readonly #health: StorageHealth;

  constructor(config: PostgresDialectConfig, health: StorageHealth) {
    super(config);
    this.#config = config;
    this.#health = health;
  }

  override createDriver(): Driver {
    return new GuardedPostgresDriver(this.#config, this.#health);
  }
}

class GuardedPostgresDriver extends PostgresDriver {
  readonly #health: StorageHealth;
  readonly #guarded = new WeakMap<DatabaseConnection, GuardedConnection>();

  constructor(config: PostgresDialectConfig, health: StorageHealth) {
    super(config);
    this.#health = health;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    let inner: DatabaseConnection;
    try {
      inner = await super.acquireConnection();
    } catch (error) {
      const unreachable = new DatabaseUnreachable(error);
      this.#health.noteFailure(unreachable);
      throw unreachable;
    }
    let guarded = this.#guarded.get(inner);
    if (!guarded) {
      guarded = new GuardedConnection(inner, this.#health);
      this.#guarded.set(inner, guarded);
    }
    return guarded;
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await super.beginTransaction(connection, settings);
    (connection as GuardedConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const guarded = connection as GuardedConnection;
    try {
      await super.commitTransaction(connection);
    } finally {
      guarded.inTransaction = false;
    }
    this.#health.noteWritten();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const guarded = connection as GuardedConnection;
    try {
      await super.rollbackTransaction(connection);
    } finally {
      guarded.inTransaction = false;
    }
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await super.releaseConnection((connection as GuardedConnection).inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }
}

class GuardedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  inTransaction = false;
  readonly #health: StorageHealth;

  constructor(inner: DatabaseConnection, health: StorageHealth) {
    this.inner = inner;
    this.#health = health;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(compiledQuery);
    } catch (error) {
      this.#health.noteFailure(error);
      throw error;
    }
    // A write outside a transaction has committed; one inside commits with it (commitTransaction).
    if (!this.#health.writable && !this.inTransaction && WRITES.has(compiledQuery.query.kind)) this.#health.noteWritten();
    return result;
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}
