/**
 * The agentic check (issue 14): one row per checked site (its registrable domain) holding the state
 * of its check as a durable queue entry (queued, checking with a lease, scoring) and the last result;
 * the day's crawler budget; and each caller's requests per hour (a keyed hash, never an address).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('checks')
    .ifNotExists()
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'bigint')
    .addColumn('queued_at', 'bigint')
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_state', 'text')
    .addColumn('last_reason', 'text')
    .addColumn('outcome', 'text')
    .addColumn('checked_at', 'bigint')
    .addColumn('next_check_at', 'bigint')
    .addColumn('score', 'integer')
    .addColumn('agent_ready', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ai_opt_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('kind', 'text')
    .addColumn('category', 'text')
    .addColumn('country', 'text')
    .addColumn('place', 'text')
    .addColumn('summary', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('checks_queue').ifNotExists().on('checks').columns(['state', 'queued_at']).execute();
  await db.schema.createIndex('checks_due').ifNotExists().on('checks').columns(['next_check_at']).execute();
  await db.schema.createIndex('checks_revision').ifNotExists().on('checks').columns(['revision']).execute();
  await db.schema
    .createTable('check_budget')
    .ifNotExists()
    .addColumn('day', 'text', (c) => c.primaryKey())
    .addColumn('checks', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('check_callers')
    .ifNotExists()
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('check_callers_pk', ['caller', 'window_start'])
    .execute();
}
