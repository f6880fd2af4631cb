/**
 * Persons (docs/identity.md "The network side"): a person known by the keyed hash of an address only,
 * keys mailed once to it, passes made from a key (full, or delegated to an agent's key), presentations
 * of passes at businesses, the outcomes reported on them, and issuances per instance (limited a day).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Safe to run again (a test that replays earlier migrations replays this one too).
  await db.schema
    .createTable('persons')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email_mac', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('email_proven_at', 'bigint')
    .addColumn('kept', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('broken', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('person_keys')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('mailed_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createTable('passes')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('delegated_jkt', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('passes_person')
    .ifNotExists().on('passes').column('person_id').execute();
  await db.schema
    .createTable('presentations')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('pass_id', 'text', (c) => c.notNull())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('presentations_person')
    .ifNotExists().on('presentations').columns(['person_id', 'created_at']).execute();
  await db.schema.createIndex('presentations_pass')
    .ifNotExists().on('presentations').columns(['pass_id', 'created_at']).execute();
  await db.schema
    .createTable('person_outcomes')
    .ifNotExists()
    .addColumn('presentation_id', 'text', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('person_outcomes_pk', ['presentation_id', 'receipt_id'])
    .execute();
  await db.schema
    .createTable('issuances')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('issuances_instance')
    .ifNotExists().on('issuances').columns(['instance', 'created_at']).execute();
}
