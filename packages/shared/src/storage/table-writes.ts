/**
 * Which tables of a database may have changed since a moment: the basis for answers kept in memory
 * (a service's public reads) that must never outlive what they were built from.
 *
 * Every write statement run through the service's Kysely connection is counted against the table it
 * names when it runs (inside a transaction too), and again when its transaction rolls back: what was
 * read while the transaction was open is then no longer what the table holds. A write whose table
 * cannot be read from the query counts against every table.
 * Writes by other connections to the same file (another process) are seen through SQLite's
 * `PRAGMA data_version`, which changes whenever another connection commits.
 *
 * A stamp is taken before reading what it covers: a write that lands between the stamp and the
 * reads makes the answer kept under the old stamp, which no later stamp equals.
 */
import type { RootOperationNode } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';

/** The tables each query (compiled once and run again, compiled-query.ts) writes, read from its nodes once. */
const tablesOfQuery = new WeakMap<RootOperationNode, string[] | null | undefined>();

/**
 * Counts the writes and transaction controls of every counted connection in this process: a data version
 * kept for the running callback holds only while it is unchanged, so a commit through another
 * connection of the same process (which the callback may itself have awaited) is always seen.
 */
let writesInProcess = 0;

export class TableWrites {
  readonly #counts = new Map<string, number>();
  /** Writes whose table is not known: they count against every table. */
  #unattributed = 0;
  #busy = 0;
  /** Tables written since the open transaction began (null: some write's table is unknown). */
  #inTransaction: Set<string> | null = new Set();
  /** Whether a transaction is open, and the data version its snapshot sees (read once: it cannot change inside it). */
  #transactionOpen = false;
  #transactionVersion: string | null = null;
  /** `PRAGMA data_version` on the counted connection, prepared once (db.pragma prepares anew each call). */
  readonly #dataVersion: SqliteStatement | null;
  /** What the pragma said in the callback now running (see #keepForThisTurn); null once it ends. */
  #turnVersion: string | null = null;
  /** writesInProcess when #turnVersion was read. */
  #turnWrites = 0;
  readonly #forgetTurnVersion = (): void => {
    this.#turnVersion = null;
  };
  /** Queued as a microtask: its tick runs once the microtasks queued so far, and those they queue, have run. */
  readonly #forgetAfterThisTurn = (): void => {
    process.nextTick(this.#forgetTurnVersion);
  };

  /** `sqlite`: the connection the counted writes run on, to learn of other connections' commits. */
  constructor(sqlite: SqliteDatabase | null = null) {
    this.#dataVersion = sqlite ? sqlite.prepare('PRAGMA data_version').pluck() : null;
  }

  /** Called with every statement the connection runs; reads and transaction control count for nothing. */
  noteStatement(statement: { query: RootOperationNode; sql: string }): void {
    let tables = tablesOfQuery.get(statement.query);
    if (tables === undefined && !tablesOfQuery.has(statement.query)) {
      tables = writtenTables(statement.query, statement.sql);
      // A raw statement's node does not hold its text: judged each time.
      if (statement.query.kind !== 'RawNode') tablesOfQuery.set(statement.query, tables);
    }
    if (tables === undefined) {
      if (statement.query.kind === 'RawNode') this.#transactionControl(statement.sql);
      return;
    }
    writesInProcess++;
    if (tables === null) {
      this.#unattributed++;
      this.#inTransaction = null;
      return;
    }
    for (const table of tables) {
      this.#bump(table);
      this.#inTransaction?.add(table);
    }
  }

  #bump(table: string): void {
    this.#counts.set(table, (this.#counts.get(table) ?? 0) + 1);
  }

  /** A rollback changes again every table its transaction wrote; begin and commit start afresh. */
  #transactionControl(sql: string): void {
    const verb = TRANSACTION_VERB.exec(sql)?.[1]?.toLowerCase();
    if (verb === undefined) return;
    writesInProcess++;
    if (verb === 'rollback') {
      if (this.#inTransaction === null) this.#unattributed++;
      else for (const table of this.#inTransaction) this.#bump(table);
      // A rollback to a savepoint leaves the transaction open: what it wrote before still counts.
      if (!/^\s*rollback\s+to\b/i.test(sql)) this.#endTransaction();
      return;
    }
    if (verb === 'begin') {
      this.#inTransaction = new Set();
      this.#transactionOpen = true;
      this.#transactionVersion = null;
    } else if (verb === 'commit' || verb === 'end') this.#endTransaction();
  }

  #endTransaction(): void {
    this.#inTransaction = new Set();
    this.#transactionOpen = false;
    this.#transactionVersion = null;
  }

  /**
   * A stamp of `tables` now: it differs from every earlier stamp of them once any of them may have
   * been written, by this connection or another.
   */
  stamp(tables: readonly string[]): string {
    return `${this.ownStamp(tables)}.${this.#othersVersion()}`;
  }

  /**
   * A stamp of `tables` as this connection wrote them, blind to other connections' commits: for an
   * answer kept only a bounded moment, which then shows another connection's write within that
   * moment, without the pragma's read (a few µs, on every request of a replayed page).
   */
  ownStamp(tables: readonly string[]): string {
    let sum = this.#unattributed;
    for (const table of tables) sum += this.#counts.get(table) ?? 0;
    return String(sum);
  }

  #othersVersion(): string {
    if (!this.#dataVersion) return '0';
    // Inside a transaction the snapshot is fixed, and so is what it sees of other connections:
    // read once (the pragma costs a few µs: it looks at the WAL index under a lock).
    if (this.#transactionOpen && this.#transactionVersion !== null) return this.#transactionVersion;
    if (this.#turnVersion !== null && this.#turnWrites === writesInProcess) return this.#turnVersion;
    try {
      const version = String(this.#dataVersion.get());
      if (this.#transactionOpen) this.#transactionVersion = version;
      else this.#keepForThisTurn(version);
      return version;
    } catch {
      // The connection is busy (a statement still iterating): a stamp no other equals, so nothing kept is used.
      return `busy-${++this.#busy}`;
    }
  }

  /**
   * A request's several stamps (a page reads the revisions of listings, of checks and of the search
   * feed; an owner page its session, then the page) read the pragma once. The value holds until the
   * callback now running and the promises it settles have run: the forgetting is queued as a
   * microtask that queues a tick, and ticks run only once the microtask queue is empty. (A tick
   * queued directly ran before the promises when the first stamp was taken in a callback's
   * synchronous part, as a route's first await is: an owner page read the pragma twice.)
   * Everything that runs meanwhile was received before the first read, so a commit another process
   * makes after it cannot be one the sender of any of those requests had already seen; and data read
   * after that commit, kept under the older stamp, is only built again by the next stamp, never
   * served in the place of newer data. A statement run on any counted connection of this process
   * (writesInProcess) ends the kept value at once.
   */
  #keepForThisTurn(version: string): void {
    if (this.#turnVersion === null) queueMicrotask(this.#forgetAfterThisTurn);
    this.#turnVersion = version;
    this.#turnWrites = writesInProcess;
  }
}

/** The verb of a transaction control statement. */
const TRANSACTION_VERB = /^\s*(begin|commit|end|rollback)\b/i;
/** Raw statements that change no table: transaction control and reads. */
const RAW_NOT_WRITING = /^\s*(?:begin|commit|end|rollback|savepoint|release|select)\b/i;
/** The table a raw insert, update or delete names first. */
const RAW_WRITE_TABLE = /^\s*(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["`]?(\w+)["`]?/i;

/**
 * The tables a statement writes: undefined for a read; null when it writes (or may write) tables
 * that cannot be told (a raw statement of another kind, a schema change).
 */
function writtenTables(query: RootOperationNode, sql: string): string[] | null | undefined {
  switch (query.kind) {
    case 'InsertQueryNode':
      return query.into ? namesOf([query.into]) : null;
    case 'UpdateQueryNode':
      return query.table ? namesOf([query.table]) : null;
    case 'DeleteQueryNode':
      return namesOf(query.from.froms);
    case 'MergeQueryNode':
      return null;
    case 'RawNode': {
      if (RAW_NOT_WRITING.test(sql)) return undefined;
      const table = RAW_WRITE_TABLE.exec(sql)?.[1];
      return table ? [table] : null;
    }
    case 'SelectQueryNode':
      return undefined;
    default:
      // Schema changes and anything else: every table may have changed.
      return null;
  }
}

interface NodeLike {
  kind: string;
  table?: { identifier?: { name?: unknown } };
  node?: NodeLike;
}

function namesOf(nodes: readonly unknown[]): string[] | null {
  const names: string[] = [];
  for (const raw of nodes) {
    let node = raw as NodeLike;
    if (node.kind === 'AliasNode' && node.node) node = node.node;
    const name = node.kind === 'TableNode' ? node.table?.identifier?.name : undefined;
    if (typeof name !== 'string') return null;
    names.push(name);
  }
  return names.length > 0 ? names : null;
}
