/**
 * Sessions of the owner app (docs/web.md): the SHA-256 of each session token, the owner key that
 * opened it, and its clocks (last use for the idle end, the absolute end).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('owner_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('owner_sessions_expires').on('owner_sessions').column('expires_at').execute();
}
