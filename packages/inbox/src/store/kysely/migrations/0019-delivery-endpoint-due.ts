/**
 * The dispatcher reads each endpoint's due deliveries on their own (docs/webhooks.md, "The
 * dispatcher": every endpoint has its own share, so a dead receiver delays only itself): an index in
 * (endpoint, next attempt, id) order over pending rows lets that read seek straight to one endpoint's
 * due rows instead of walking past another endpoint's backlog.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
