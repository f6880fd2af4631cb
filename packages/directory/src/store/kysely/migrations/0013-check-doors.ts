/**
 * The agentic check, second part (issue 14): each door's history across checks (when it last
 * answered, its failures of the last seven days, since when it is failing and when it was given up),
 * so a door is failing only after three failures in seven days and gone after thirty days failing.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('check_doors')
    .ifNotExists()
    .addColumn('domain', t.text, (c) => c.notNull())
    .addColumn('door_key', t.text, (c) => c.notNull())
    .addColumn('history', t.json, (c) => c.notNull())
    .addPrimaryKeyConstraint('check_doors_pk', ['domain', 'door_key'])
    .execute();
}
