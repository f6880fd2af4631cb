/**
 * The bulk load's transactions on SQLite's writer thread (workers/sqlite-load-writer.ts): which part
 * commits, and this thread's connection held while the writer's transaction is open, so that the
 * store's other statements wait their turn instead of meeting the writer's lock (better-sqlite3
 * would wait for it with the event loop stopped).
 *
 * Parts may be sent ahead of the transaction they belong to: while the writer commits one
 * transaction (seconds at 5 M listings), the load goes on preparing and sending the next one's
 * parts, which the writer keeps until this side, having let the connection go and held it again,
 * tells it to begin (docs/directory.md "Loading listings").
 */
import type { StorageHealth } from '@svc/shared';
import type { Kysely } from 'kysely';
import type { ListingPage } from '../../domain/listings/listing-page.js';
import type { SqliteLoadWriter } from '../../workers/sqlite-load-writer.js';
import type { ListingColumns } from './listing-columns.js';
import type { DirectoryDatabase } from './schema.js';

/**
 * This thread's connection, held until the function answered is called: Kysely lends a connection
 * for the length of one callback, and the load's writer keeps a transaction open across several.
 */
export async function heldConnection(db: Kysely<DirectoryDatabase>): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let lent: () => void = () => undefined;
  const isLent = new Promise<void>((resolve) => (lent = resolve));
  const held = db.connection().execute(async () => {
    lent();
    await released;
  });
  // A connection that cannot be had rejects here.
  await Promise.race([isLent, held]);
  return async () => {
    release();
    await held;
  };
}

interface Transaction {
  /** Listings sent in it so far. */
  rows: number;
  /** Listings after which it commits. */
  size: number;
  /** The connection held for it once the transaction before has let it go; answers its release. */
  held: Promise<() => Promise<void>>;
  /** Called once it has committed and let the connection go. */
  ended: () => void;
}

export class WriterTransactions {
  readonly #writer: SqliteLoadWriter;
  readonly #db: Kysely<DirectoryDatabase>;
  readonly #health: StorageHealth | null;
  readonly #sizeOf: () => number;
  #open: Transaction | null = null;
  /** Settles once the last transaction opened has committed and let the connection go. */
  #lastEnded: Promise<void> = Promise.resolve();
  /** Every hold asked for, let go again on close (a release may be called twice). */
  readonly #holds: Promise<() => Promise<void>>[] = [];
  #stopped = false;
  #stop: () => void = () => undefined;
  readonly #stopping = new Promise<void>((resolve) => (this.#stop = resolve));

  /** `sizeOf` gives a transaction's size when its first part is sent. */
  constructor(writer: SqliteLoadWriter, db: Kysely<DirectoryDatabase>, health: StorageHealth | null, sizeOf: () => number) {
    this.#writer = writer;
    this.#db = db;
    this.#health = health;
    this.#sizeOf = sizeOf;
  }

  /**
   * Sends a part of the open transaction (opening one if none is), which commits with it once it
   * holds its size or at `end`; answers once the writer has written it (and committed, and this
   * thread's connection is let go, when it commits).
   */
  send(rows: ListingColumns[], pages: ListingPage[] | null, end: boolean): Promise<void> {
    const transaction = (this.#open ??= this.#opened());
    transaction.rows += rows.length;
    const commit = end || transaction.rows >= transaction.size;
    if (commit) this.#open = null;
    const sentAtMs = this.#health?.now();
    return Promise.all([transaction.held, this.#writer.write(rows, pages, commit)]).then(
      async ([release]) => {
        if (!commit) return;
        this.#health?.noteCommitted(sentAtMs);
        await release();
        transaction.ended();
      },
      (error: unknown) => {
        // A full or failing disk is the node's episode as any write of its own would make it (503, /healthz).
        this.#health?.noteFailure(error, sentAtMs);
        throw error;
      },
    );
  }

  /** Commits the open transaction, if one is (the source ended short of its size). */
  async end(): Promise<void> {
    if (this.#open) await this.send([], null, true);
  }

  /**
   * Ends the load's writing: no transaction begins any more, the writer closes (rolling back one a
   * failure left open; parts still waiting for theirs are never written), then the connection is
   * let go.
   */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#stop();
    await this.#writer.close();
    for (const held of this.#holds) await (await held.catch(() => null))?.();
  }

  #opened(): Transaction {
    let ended: () => void = () => undefined;
    const before = this.#lastEnded;
    this.#lastEnded = new Promise<void>((resolve) => (ended = resolve));
    const held = (async () => {
      await Promise.race([before, this.#stopping]);
      if (this.#stopped) throw new Error('the load stopped before this transaction began');
      const release = await heldConnection(this.#db);
      if (this.#stopped) {
        await release();
        throw new Error('the load stopped before this transaction began');
      }
      this.#writer.begin();
      return release;
    })();
    // Seen by the parts' answers, or by close; never unhandled.
    held.catch(() => undefined);
    this.#holds.push(held);
    return { rows: 0, size: this.#sizeOf(), held, ended };
  }
}
