/**
 * Kysely's SQLite dialect with two changes about writes that fail, and one about LIMIT:
 *
 * - A transaction is rolled back only while it is still open. On SQLITE_FULL, SQLITE_IOERR and a few
 *   others SQLite may already have rolled the whole transaction back itself; Kysely's ROLLBACK then
 *   fails with "cannot rollback - no transaction is active", and that error replaced the cause. Now
 *   the first error is the one thrown (and one a rollback still could not undo names both).
 * - Every failed statement is shown to the database's StorageHealth (storage-health.ts), and every
 *   committed write is told to it (during an episode of storage failure, that asks for a probe).
 * - LIMIT and OFFSET are compiled as `cast(? as integer)`. SQLite (3.4x) reads a bare bound LIMIT
 *   while planning and marks the statement to be prepared again whenever that parameter is bound, so
 *   a kept statement with `limit ?` was compiled anew on every run: an indexed one-row lookup took
 *   10–12 µs instead of 2–3 µs here. The plan is then the one SQLite made before it read the value.
 *
 * It also lets code that holds a transaction run a compiled query at once (`sqliteTransactionOf`):
 * Kysely's executor takes about 6 µs of promise hops around each statement, more than a small
 * statement itself, and a create ran a dozen.
 */
import { SqliteDialect, SqliteDriver, SqliteQueryCompiler, type CompiledQuery, type DatabaseConnection, type DialectAdapter, type Driver, type LimitNode, type OffsetNode, type QueryCompiler, type QueryResult, type SqliteDialectConfig } from 'kysely';
import type { AnyKysely } from './engine.js';
import type { StorageHealth } from './storage-health.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';
import type { TableWrites } from './table-writes.js';

/** Statements with more values than this pass them as one array. */
const MAX_SPREAD_VALUES = 256;

/** Query kinds that write; a raw query (our own SQL) is left out, as are BEGIN, COMMIT and ROLLBACK. */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** What `sqlite.ts` hands the dialect as its database: the handle's statements, kept by SQL text. */
export interface StatementSource {
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/**
 * The SQLite transaction a Kysely transaction holds, for statements that need no Kysely executor:
 * what runs here is counted, cached and refused exactly as what runs through Kysely.
 */
export interface SqliteTransaction {
  /** Runs the query now (it throws rather than rejects), on the connection the transaction holds. */
  run<R>(query: CompiledQuery<R>): QueryResult<R>;
  /** Rows inserted, changed or deleted on this connection since it opened (SQLite's total_changes()). */
  totalChanges(): number;
  /** Whether SQLite still has the transaction open (it ends one itself on a full disk). */
  isOpen(): boolean;
}

/** The driver of each Kysely instance this dialect made, by its adapter (shared with its transactions). */
const driversByAdapter = new WeakMap<object, GuardedSqliteDriver>();

/**
 * The SQLite transaction `db` holds, or null: when `db` is not a transaction of a database opened
 * with this dialect, has plugins (they may change results), or its transaction has ended. A caller
 * that gets null goes through Kysely as usual.
 */
export function sqliteTransactionOf(db: AnyKysely): SqliteTransaction | null {
  if (!db.isTransaction) return null;
  const executor = db.getExecutor();
  if (executor.plugins.length > 0) return null;
  const driver = driversByAdapter.get(executor.adapter);
  return driver?.openTransaction() ?? null;
}

export class GuardedSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #sqlite: SqliteDatabase;
  readonly #health: StorageHealth;
  readonly #writes: TableWrites | null;
  readonly #afterClose: (() => Promise<void>) | null;

  /**
   * `sqlite` is the handle `config.database` runs on: its `inTransaction` says whether a transaction is open.
   * `writes`, when given, is told of every statement (table-writes.ts). `afterClose`, when given, is
   * awaited by `destroy` after the database is closed (the checkpoint worker's own connection).
   */
  constructor(config: SqliteDialectConfig, sqlite: SqliteDatabase, health: StorageHealth, writes: TableWrites | null = null, afterClose: (() => Promise<void>) | null = null) {
    super(config);
    this.#config = config;
    this.#sqlite = sqlite;
    this.#health = health;
    this.#writes = writes;
    this.#afterClose = afterClose;
  }

  #driver: GuardedSqliteDriver | null = null;

  override createDriver(): Driver {
    this.#driver = new GuardedSqliteDriver(this.#config, this.#sqlite, this.#health, this.#writes, this.#afterClose);
    return this.#driver;
  }

  override createAdapter(): DialectAdapter {
    const adapter = super.createAdapter();
    if (this.#driver) driversByAdapter.set(adapter, this.#driver);
    return adapter;
  }

  override createQueryCompiler(): QueryCompiler {
    return new KeptPlanSqliteQueryCompiler();
  }
}

/** LIMIT and OFFSET as expressions, so a bound value never makes SQLite prepare the statement again. */
class KeptPlanSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset cast(');
    this.visitNode(node.offset);
    this.append(' as integer)');
  }
}

class GuardedSqliteDriver extends SqliteDriver {
  readonly #sqlite: SqliteDatabase;
  readonly #statements: StatementSource;
  readonly #health: StorageHealth;
  readonly #writes: TableWrites | null;
  readonly #turns = new Turns();
  readonly #afterClose: (() => Promise<void>) | null;
  #connection: GuardedConnection | null = null;

  constructor(config: SqliteDialectConfig, sqlite: SqliteDatabase, health: StorageHealth, writes: TableWrites | null, afterClose: (() => Promise<void>) | null) {
    super(config);
    this.#sqlite = sqlite;
    this.#statements = config.database as StatementSource;
    this.#health = health;
    this.#writes = writes;
    this.#afterClose = afterClose;
  }

  /** The connection while a transaction is open on it (only a transaction's holder runs statements then). */
  openTransaction(): SqliteTransaction | null {
    return this.#connection !== null && this.#sqlite.inTransaction ? this.#connection : null;
  }

  /** Closes the database, then waits for what else had it open, so a caller may remove its files next. */
  override async destroy(): Promise<void> {
    await super.destroy();
    await this.#afterClose?.();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // Our own turn first: Kysely's mutex wakes every waiter on each release and all but one go back
    // to waiting (16 waiting requests, 16 wake-ups a turn); turns are handed to one waiter, in order.
    await this.#turns.take();
    let inner: DatabaseConnection;
    try {
      inner = await super.acquireConnection();
    } catch (error) {
      this.#turns.give();
      throw error;
    }
    if (this.#connection?.inner !== inner) this.#connection = new GuardedConnection(inner, this.#sqlite, this.#statements, this.#health, this.#writes);
    return this.#connection;
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.#turns.give();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof GuardedConnection) connection.firstError = null;
    await super.beginTransaction(connection);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    this.#health.noteCommitted();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolled it back already (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, …): nothing to undo.
    if (!this.#sqlite.inTransaction) return;
    const first = connection instanceof GuardedConnection ? connection.firstError : null;
    try {
      await super.rollbackTransaction(connection);
    } catch (rollbackError) {
      // Gone in the meantime: the first error is the one that counts.
      if (!this.#sqlite.inTransaction) return;
      if (first === null) throw rollbackError;
      const firstMessage = first instanceof Error ? first.message : String(first);
      throw new Error(`rollback failed (${(rollbackError as Error).message}) after: ${firstMessage}`, { cause: first });
    }
  }
}

/** The one connection's turns, handed to waiters in the order they asked: one wake-up per turn. */
class Turns {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  take(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    // Handed straight to the next waiter: the turn is never free in between.
    if (next) next();
    else this.#held = false;
  }
}

class GuardedConnection implements DatabaseConnection, SqliteTransaction {
  readonly inner: DatabaseConnection;
  /** The first statement that failed in the current transaction. */
  firstError: unknown = null;
  readonly #sqlite: SqliteDatabase;
  readonly #statements: StatementSource;
  readonly #health: StorageHealth;
  readonly #writes: TableWrites | null;
  #totalChanges: SqliteStatement | null = null;

  constructor(inner: DatabaseConnection, sqlite: SqliteDatabase, statements: StatementSource, health: StorageHealth, writes: TableWrites | null) {
    this.inner = inner;
    this.#sqlite = sqlite;
    this.#statements = statements;
    this.#health = health;
    this.#writes = writes;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.run<R>(compiledQuery));
  }

  /** Runs a statement now, as Kysely's SQLite connection does, counting it and any failure. */
  run<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    this.#writes?.noteStatement(compiledQuery);
    let result: QueryResult<R>;
    try {
      const statement = this.#statements.prepare(compiledQuery.sql);
      // Values as arguments, not one array: better-sqlite3 reads an array's elements one by one
      // through V8's API (Object::Get), about 400 instructions each; arguments it reads directly.
      // A bulk statement's thousands of values stay one array (a call takes only so many arguments).
      const values = compiledQuery.parameters as unknown[];
      const spread = values.length <= MAX_SPREAD_VALUES;
      if (statement.reader) {
        result = { rows: (spread ? statement.all(...values) : statement.all(values)) as R[] };
      } else {
        const { changes, lastInsertRowid } = spread ? statement.run(...values) : statement.run(values);
        result = { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
      }
    } catch (error) {
      this.firstError ??= error;
      this.#health.noteFailure(error);
      throw error;
    }
    // A write outside a transaction has committed; one inside commits with it (commitTransaction).
    if (!this.#health.writable && WRITES.has(compiledQuery.query.kind) && !this.#sqlite.inTransaction) this.#health.noteCommitted();
    return result;
  }

  totalChanges(): number {
    this.#totalChanges ??= this.#sqlite.prepare('SELECT total_changes()').pluck();
    return this.#totalChanges.get() as number;
  }

  isOpen(): boolean {
    return this.#sqlite.inTransaction;
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }
}
