/**
 * An acknowledgement made by a signed request (docs/receipts.md "Acknowledgement by a signed
 * request"): the agent named the receipt in a request it signed under svc-agent/1, and what makes
 * that checkable is kept as JSON (the signature base and signature, the key, the signed body).
 * `ack_jkt` is set for both forms; `ack_jws` only for an acknowledgement JWS.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('receipts').addColumn('ack_request', t.text).execute();
}
