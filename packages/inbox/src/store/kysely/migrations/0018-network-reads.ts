/**
 * What each network last read of this business (issue 38): when it last read the manifest (as its
 * ping answer said), whether that read is what the inbox publishes now, and when the inbox last told
 * it of a change.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('network_status').addColumn('manifest_read_at', t.bigint).execute();
  await db.schema.alterTable('network_status').addColumn('manifest_current', t.integer).execute();
  await db.schema.alterTable('network_status').addColumn('change_sent_at', t.bigint).execute();
}
