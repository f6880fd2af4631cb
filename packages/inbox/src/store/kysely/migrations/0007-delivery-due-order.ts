/**
 * The claim takes due deliveries in (next_attempt_at, id) order. An index on next_attempt_at alone
 * left ties (every delivery of one commit shares its time) to a sort of all due rows on every claim,
 * so draining a backlog of n cost n²; with the id in the index the claim reads only what it takes.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_due').execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
