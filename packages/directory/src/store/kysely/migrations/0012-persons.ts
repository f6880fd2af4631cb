/**
 * Persons (docs/identity.md "The network side"): a person known by the keyed hash of an address only,
 * keys mailed once to it, passes made from a key (full, or delegated to an agent's key), presentations
 * of passes at businesses, the outcomes reported on them, and issuances per instance (limited a day).
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // Safe to run again (a test that replays earlier migrations replays this one too).
  await db.schema
    .createTable('persons')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('email_mac', t.text, (c) => c.notNull().unique())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('email_proven_at', t.bigint)
    .addColumn('kept', t.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('broken', t.integer, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('person_keys')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('person_id', t.text, (c) => c.notNull())
    .addColumn('secret_hash', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('mailed_at', t.bigint)
    .addColumn('revoked_at', t.bigint)
    .execute();
  await db.schema
    .createTable('passes')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('person_id', t.text, (c) => c.notNull())
    .addColumn('key_id', t.text, (c) => c.notNull())
    .addColumn('secret_hash', t.text, (c) => c.notNull())
    .addColumn('delegated_jkt', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('revoked_at', t.bigint)
    .execute();
  await db.schema.createIndex('passes_person')
    .ifNotExists().on('passes').column('person_id').execute();
  await db.schema
    .createTable('presentations')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('person_id', t.text, (c) => c.notNull())
    .addColumn('pass_id', t.text, (c) => c.notNull())
    .addColumn('instance', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('presentations_person')
    .ifNotExists().on('presentations').columns(['person_id', 'created_at']).execute();
  await db.schema.createIndex('presentations_pass')
    .ifNotExists().on('presentations').columns(['pass_id', 'created_at']).execute();
  await db.schema
    .createTable('person_outcomes')
    .ifNotExists()
    .addColumn('presentation_id', t.text, (c) => c.notNull())
    .addColumn('receipt_id', t.text, (c) => c.notNull())
    .addColumn('person_id', t.text, (c) => c.notNull())
    .addColumn('side', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('person_outcomes_pk', ['presentation_id', 'receipt_id'])
    .execute();
  await db.schema
    .createTable('issuances')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance', t.text, (c) => c.notNull())
    .addColumn('person_id', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('issuances_instance')
    .ifNotExists().on('issuances').columns(['instance', 'created_at']).execute();
}
