/**
 * Group commit for SQLite (docs/storage.md "Group commit"): calls that arrive while a batch is being
 * written wait for the next one, and each batch is one transaction. A call that fails is undone
 * alone (the others keep their writes); a commit that fails fails every call of its batch. Every call
 * settles after its commit, so nobody is answered before what they wrote is stored.
 *
 * A call is undone alone by a savepoint around it, but a savepoint makes SQLite copy every page the
 * call changes into a sub-journal first, and most calls never need it. So a batch is first written
 * without savepoints: a call that fails having changed nothing (a refusal before its writes, the
 * usual way to fail) needs nothing undone. Only when a call fails after changing rows is the whole
 * transaction rolled back and the batch written again, each call in a savepoint, the failed call
 * left out with its failure. Calls are run again as on PostgreSQL after a conflict.
 *
 * SQLite has one writer and writes each changed page once per commit: the hot pages (the newest
 * leaf of every index a write touches) are then written once per batch instead of once per call.
 * PostgreSQL commits many connections' transactions together itself; there each call stays a
 * transaction of its own.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { sqliteTransactionOf } from './guarded-dialect.js';

/** The savepoint statements of every call, as SQL text: nothing to build or compile each time. */
const savepoint = (statement: 'SAVEPOINT' | 'RELEASE' | 'ROLLBACK TO') => CompiledQuery.raw(`${statement} batched_call`);

/** Calls per transaction at most (a batch is a few milliseconds of writes). */
const MAX_BATCH = 64;

interface Waiting<DB> {
  work(trx: Transaction<DB>): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class WriteBatch<DB> {
  readonly #db: Kysely<DB>;
  readonly #waiting: Waiting<DB>[] = [];
  #writing = false;

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiting.length > 0) {
        // Calls that reach this point in the same turn of the event loop join the batch.
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.#waiting.splice(0, MAX_BATCH);
        let outcomes: Outcome[];
        try {
          outcomes = await this.#write(batch);
        } catch (error) {
          // Nothing of the batch was committed (the disk refused it, or SQLite undid the transaction).
          for (const call of batch) call.reject(error);
          continue;
        }
        batch.forEach((call, i) => {
          const outcome = outcomes[i] as Outcome;
          if (outcome.ok) call.resolve(outcome.value);
          else call.reject(outcome.error);
        });
      }
    } finally {
      this.#writing = false;
    }
  }

  /** Writes the batch in one transaction; the outcome of each call, in order. */
  async #write(batch: readonly Waiting<DB>[]): Promise<Outcome[]> {
    const failed = await this.#withoutSavepoints(batch);
    if (Array.isArray(failed)) return failed;
    // A call failed after changing rows: everything was rolled back; again, each call undoable alone.
    return this.#db.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const [index, call] of batch.entries()) outcomes.push(index === failed.index ? { ok: false, error: failed.error } : await inSavepoint(trx, call.work));
      return outcomes;
    });
  }

  /** The outcomes, or the first call that failed after changing rows (the transaction then rolled back). */
  async #withoutSavepoints(batch: readonly Waiting<DB>[]): Promise<Outcome[] | FailedAfterWriting> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const sqlite = sqliteTransactionOf(trx);
        const outcomes: Outcome[] = [];
        for (const [index, call] of batch.entries()) {
          // Without the transaction's own view of changes, every call gets its savepoint.
          if (!sqlite) {
            outcomes.push(await inSavepoint(trx, call.work));
            continue;
          }
          const changesBefore = sqlite.totalChanges();
          try {
            outcomes.push({ ok: true, value: await call.work(trx) });
          } catch (error) {
            // SQLite undid the whole transaction itself (a full disk): the batch fails with the cause.
            if (!sqlite.isOpen()) throw error;
            if (sqlite.totalChanges() !== changesBefore) throw new FailedAfterWriting(index, error);
            outcomes.push({ ok: false, error });
          }
        }
        return outcomes;
      });
    } catch (error) {
      if (error instanceof FailedAfterWriting) return error;
      throw error;
    }
  }
}

/** Thrown inside the first try to roll its transaction back: call `index` failed after changing rows. */
class FailedAfterWriting {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {}
}

async function inSavepoint<DB>(trx: Transaction<DB>, work: (trx: Transaction<DB>) => Promise<unknown>): Promise<Outcome> {
  await trx.executeQuery(savepoint('SAVEPOINT'));
  try {
    const value = await work(trx);
    await trx.executeQuery(savepoint('RELEASE'));
    return { ok: true, value };
  } catch (error) {
    try {
      await trx.executeQuery(savepoint('ROLLBACK TO'));
      await trx.executeQuery(savepoint('RELEASE'));
    } catch {
      // SQLite undid the whole transaction itself (a full disk): the batch fails with the cause.
      throw error;
    }
    return { ok: false, error };
  }
}
