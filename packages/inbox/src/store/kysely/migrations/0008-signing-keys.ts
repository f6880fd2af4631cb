/**
 * The instance's Ed25519 signing keys (docs/receipts.md "Keys"): the receipt key, also the key of its
 * signed requests to networks. The private half is sealed with the SecretBox; keys are retired, never
 * deleted, so receipts signed under an old key stay verifiable. `instance_secrets` holds other sealed
 * secrets of the instance made once (the receipt subject pepper).
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', t.text, (c) => c.primaryKey())
    .addColumn('public_jwk', t.text, (c) => c.notNull())
    .addColumn('sealed_private', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('retired_at', t.bigint)
    .execute();
  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', t.text, (c) => c.primaryKey())
    .addColumn('sealed', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
}
