/**
 * Transactions that a conflict may end, run again (docs/storage.md "Concurrency"). On SQLite one
 * writer at a time never conflicts. On PostgreSQL several processes write at once under READ
 * COMMITTED, and the database decides their races: a unique key or an ON CONFLICT clause (an
 * idempotency key stored meanwhile), a deadlock (40P01) or a serialization failure (40001). The
 * transaction that lost is rolled back and run again from the start; it then reads what the winner
 * committed (and, say, replays the stored answer instead of making a twin).
 */
import type { Kysely, Transaction } from 'kysely';
import { engineOf, type AnyKysely } from './engine.js';
import { ConnectionLost } from './postgres-failures.js';

/**
 * Thrown by a store when a constraint decided against the running transaction (another transaction
 * committed the same key first); the transaction is run again and sees why.
 */
export class WriteConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteConflict';
  }
}

/**
 * Called by a store when a compare-and-set write (`WHERE version = ?`) changed nothing. Inside a
 * PostgreSQL transaction that means another transaction committed a change after this one read the
 * row (READ COMMITTED: every statement sees the latest commits): throws WriteConflict, so the
 * transaction runs again on what is there now and answers as it would have with writers one at a
 * time (on SQLite, where they are, the read in the same transaction is always current). Elsewhere
 * it returns, and the store answers false as before.
 */
export function conditionalWriteMissed(db: AnyKysely, what: string): void {
  if (db.isTransaction && engineOf(db) === 'postgres') throw new WriteConflict(what);
}

/** PostgreSQL's SQLSTATEs that say "run the transaction again". */
const RETRY_STATES = new Set(['40001', '40P01']);

export function isRetryableConflict(error: unknown): boolean {
  if (error instanceof WriteConflict) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRY_STATES.has(code);
}

/** Runs of one transaction before its conflict is thrown to the caller. */
const MAX_RUNS = 8;

/**
 * Runs `work` in a transaction; a conflict rolls it back and runs it again (after a short random
 * wait, so the racers part). A transaction whose connection broke before it committed (the server
 * rolled it back) runs again once on a new connection: one dropped connection costs the caller
 * nothing, and a database that is away refuses the new connection at once (a 503). `work` must be
 * safe to run again: it only reads and writes the database.
 */
export async function transactionWithRetry<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  let lostOnce = false;
  for (let run = 1; ; run++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (error instanceof ConnectionLost && error.runAgain && !lostOnce) {
        lostOnce = true;
        continue;
      }
      if (run >= MAX_RUNS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * run));
    }
  }
}
