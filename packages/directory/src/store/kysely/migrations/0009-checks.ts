/**
 * The agentic check (issue 14): one row per checked site (its registrable domain) holding the state
 * of its check as a durable queue entry (queued, checking with a lease, scoring) and the last result;
 * the day's crawler budget; and each caller's requests per hour (a keyed hash, never an address).
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('checks')
    .ifNotExists()
    .addColumn('domain', t.text, (c) => c.primaryKey())
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('requested_at', t.bigint)
    .addColumn('queued_at', t.bigint)
    .addColumn('lease_until', t.bigint)
    .addColumn('attempts', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('last_state', t.text)
    .addColumn('last_reason', t.text)
    .addColumn('outcome', t.text)
    .addColumn('checked_at', t.bigint)
    .addColumn('next_check_at', t.bigint)
    .addColumn('score', t.integer)
    .addColumn('agent_ready', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('ai_opt_out', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('kind', t.text)
    .addColumn('category', t.text)
    .addColumn('country', t.text)
    .addColumn('place', t.text)
    .addColumn('summary', t.text)
    .addColumn('revision', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('checks_queue').ifNotExists().on('checks').columns(['state', 'queued_at']).execute();
  await db.schema.createIndex('checks_due').ifNotExists().on('checks').columns(['next_check_at']).execute();
  await db.schema.createIndex('checks_revision').ifNotExists().on('checks').columns(['revision']).execute();
  await db.schema
    .createTable('check_budget')
    .ifNotExists()
    .addColumn('day', t.text, (c) => c.primaryKey())
    .addColumn('checks', t.integer, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('check_callers')
    .ifNotExists()
    .addColumn('caller', t.text, (c) => c.notNull())
    .addColumn('window_start', t.bigint, (c) => c.notNull())
    .addColumn('count', t.integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('check_callers_pk', ['caller', 'window_start'])
    .execute();
}
