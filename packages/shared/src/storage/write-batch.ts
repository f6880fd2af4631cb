/**
 * Group commit for SQLite (docs/storage.md "Group commit"): calls that arrive while a batch is being
 * written wait for the next one, and each batch is one transaction in which every call has a
 * savepoint of its own. A call that fails is rolled back to its savepoint (the others keep their
 * writes); a commit that fails fails every call of its batch. Every call settles after its commit,
 * so nobody is answered before what they wrote is stored.
 *
 * SQLite has one writer and writes each changed page once per commit: the hot pages (the newest
 * leaf of every index a write touches) are then written once per batch instead of once per call.
 * PostgreSQL commits many connections' transactions together itself; there each call stays a
 * transaction of its own.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';

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
        const outcomes: Outcome[] = [];
        try {
          await this.#db.transaction().execute(async (trx) => {
            for (const call of batch) outcomes.push(await inSavepoint(trx, call.work));
          });
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
