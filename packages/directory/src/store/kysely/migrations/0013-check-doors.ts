/**
 * The agentic check, second part (issue 14): each door's history across checks (when it last
 * answered, its failures of the last seven days, since when it is failing and when it was given up),
 * so a door is failing only after three failures in seven days and gone after thirty days failing.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('check_doors')
    .ifNotExists()
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('door_key', 'text', (c) => c.notNull())
    .addColumn('history', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('check_doors_pk', ['domain', 'door_key'])
    .execute();
}
