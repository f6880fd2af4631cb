/**
 * The jobs table through Kysely; the same table shape in every service (see createJobsTable), the
 * same code on both engines. A claim is one UPDATE of the due rows it picks: on SQLite the one writer
 * makes it atomic; on PostgreSQL the pick is FOR UPDATE SKIP LOCKED, so processes claiming at once
 * each take other jobs and none waits for another (docs/storage.md "Concurrency").
 */
import type { Kysely, Selectable } from 'kysely';
import { columnTypes } from '../storage/column-types.js';
import { engineOf } from '../storage/engine.js';
import { compileOnce } from '../storage/compiled-query.js';
import type { JobRecord, JobStore, NewJob } from './job-store.js';

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  run_at: number;
  dedupe_key: string | null;
  status: string;
  attempts: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface JobsDatabase {
  jobs: JobsTable;
}

/** Creates the jobs table and its due index (used by each service's first migration). */
export async function createJobsTable(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('jobs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('payload', t.json, (c) => c.notNull())
    .addColumn('run_at', t.bigint, (c) => c.notNull())
    .addColumn('dedupe_key', t.text, (c) => c.unique())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('lease_until', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();
}

/** Moves and rules enqueue jobs in their write's transaction: compiled once. */
const enqueueJob = compileOnce((db: Kysely<JobsDatabase>, p: { id: string; kind: string; payload: string; runAt: number; dedupeKey: string | null; nowMs: number }) =>
  db
    .insertInto('jobs')
    .values({
      id: p.id,
      kind: p.kind,
      payload: p.payload,
      run_at: p.runAt,
      dedupe_key: p.dedupeKey,
      status: 'pending',
      attempts: 0,
      lease_until: null,
      last_error: null,
      created_at: p.nowMs,
      updated_at: p.nowMs,
    })
    .onConflict((oc) =>
      oc.column('dedupe_key').doUpdateSet({
        payload: p.payload,
        run_at: p.runAt,
        status: 'pending',
        attempts: 0,
        lease_until: null,
        last_error: null,
        updated_at: p.nowMs,
      }),
    ),
);

export class KyselyJobStore implements JobStore {
  readonly #db: Kysely<JobsDatabase>;
  /** Any Kysely handle whose database has the jobs table. */
  constructor(db: Kysely<JobsDatabase> | Kysely<never>) {
    this.#db = db as Kysely<JobsDatabase>;
  }

  async enqueue(job: NewJob, nowMs: number): Promise<void> {
    await enqueueJob.run(this.#db, { id: job.id, kind: job.kind, payload: JSON.stringify(job.payload), runAt: job.runAt, dedupeKey: job.dedupeKey, nowMs });
  }

  async claimDue(nowMs: number, leaseMs: number, limit: number): Promise<JobRecord[]> {
    let due = this.#db
      .selectFrom('jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', nowMs)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowMs)]),
        ]),
      )
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit);
    // Rows another process is claiming right now are passed over, not waited for.
    if (engineOf(this.#db) === 'postgres') due = due.forUpdate().skipLocked();
    const claimed = await this.#db
      .updateTable('jobs')
      .set((eb) => ({ status: 'running', lease_until: nowMs + leaseMs, attempts: eb('attempts', '+', 1), updated_at: nowMs }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
    // RETURNING follows no order: the due order again.
    return claimed.sort((a, b) => Number(a.run_at) - Number(b.run_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(toJob);
  }

  // finish, retry and bury end a lease: they only touch a job still running. A job scheduled again
  // (enqueue with its dedupe key) while leased is pending again, and the old run must not undo that.
  async finish(id: string, nowMs: number): Promise<void> {
    await this.#db
      .updateTable('jobs')
      .set({ status: 'done', lease_until: null, updated_at: nowMs })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async cancel(dedupeKey: string, nowMs: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('jobs')
      .set({ status: 'cancelled', lease_until: null, updated_at: nowMs })
      .where('dedupe_key', '=', dedupeKey)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async retry(id: string, runAt: number, error: string, nowMs: number): Promise<void> {
    await this.#db
      .updateTable('jobs')
      .set({ status: 'pending', run_at: runAt, lease_until: null, last_error: error.slice(0, 500), updated_at: nowMs })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async bury(id: string, error: string, nowMs: number): Promise<void> {
    await this.#db
      .updateTable('jobs')
      .set({ status: 'dead', lease_until: null, last_error: error.slice(0, 500), updated_at: nowMs })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async oldestDueAt(nowMs: number): Promise<number | null> {
    const row = await this.#db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('at'))
      .where('status', '=', 'pending')
      .where('run_at', '<=', nowMs)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }

  async prune(status: 'done' | 'dead' | 'cancelled', before: number): Promise<number> {
    const result = await this.#db.deleteFrom('jobs').where('status', '=', status).where('updated_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async list(kind?: string): Promise<JobRecord[]> {
    let query = this.#db.selectFrom('jobs').selectAll().orderBy('run_at');
    if (kind) query = query.where('kind', '=', kind);
    return (await query.execute()).map(toJob);
  }
}

function toJob(r: Selectable<JobsTable>): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    runAt: Number(r.run_at),
    dedupeKey: r.dedupe_key,
    status: r.status as JobRecord['status'],
    attempts: r.attempts,
    lastError: r.last_error,
  };
}
