/**
 * Group commit for small writes (store.ts batchedTransaction): calls that arrive while a batch is
 * being written wait for the next one, and each batch is one transaction in which every call has a
 * savepoint of its own. A call that fails is rolled back to its savepoint (the others keep their
 * writes); a commit that fails fails every call of its batch. Every call settles after its commit.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { DirectoryStore } from '../store.js';
import type { DirectoryDatabase } from './schema.js';

/** The savepoint statements of every call, as SQL text: nothing to build or compile each time (the same SQL on SQLite and PostgreSQL). */
const savepoint = (statement: 'SAVEPOINT' | 'RELEASE' | 'ROLLBACK TO') => CompiledQuery.raw(`${statement} batched_call`);

/** Calls per transaction at most (a batch is a few milliseconds of writes). */
const MAX_BATCH = 64;

type Work = (store: DirectoryStore) => Promise<unknown>;
type Open = (run: (store: DirectoryStore, trx: Transaction<DirectoryDatabase> | Kysely<DirectoryDatabase>) => Promise<void>) => Promise<void>;

interface Waiting {
  work: Work;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class WriteBatch {
  readonly #open: Open;
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(open: Open) {
    this.#open = open;
  }

  run(work: Work): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ work, resolve, reject });
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
        const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
        try {
          await this.#open(async (store, trx) => {
            for (const call of batch) {
              await trx.executeQuery(savepoint('SAVEPOINT'));
              try {
                const value = await call.work(store);
                await trx.executeQuery(savepoint('RELEASE'));
                outcomes.push({ ok: true, value });
              } catch (error) {
                try {
                  await trx.executeQuery(savepoint('ROLLBACK TO'));
                  await trx.executeQuery(savepoint('RELEASE'));
                } catch {
                  // SQLite undid the whole transaction itself (a full disk): the batch fails with the cause.
                  throw error;
                }
                outcomes.push({ ok: false, error });
              }
            }
          });
        } catch (error) {
          // Nothing of the batch was committed (the disk refused it, or SQLite undid the transaction).
          for (const call of batch) call.reject(error);
          continue;
        }
        batch.forEach((call, i) => {
          const outcome = outcomes[i] as (typeof outcomes)[number];
          if (outcome.ok) call.resolve(outcome.value);
          else call.reject(outcome.error);
        });
      }
    } finally {
      this.#writing = false;
    }
  }
}
