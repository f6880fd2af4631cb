/**
 * Trust between inboxes and the network (issue 13): signatures already used (kept until their
 * expiry plus a minute, so a restart does not reopen the replay window), receipts published by
 * verified inboxes with their acknowledgements, the running tallies every view reads, the outcome
 * that stands for each promise, and the nightly reputation snapshots with their scores.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Small rows keyed by their primary key are kept in that key's tree alone (WITHOUT ROWID): one page
  // written per row instead of two, on the path of every signed call and every receipt. Old signatures
  // are pruned by a scan every ten minutes (the table holds the last few minutes only), so no second index.
  await db.schema
    .createTable('used_signatures')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('keep_until', 'bigint', (c) => c.notNull())
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();

  await db.schema
    .createTable('receipts')
    .ifNotExists()
    .addColumn('iss', 'text', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('kid', 'text', (c) => c.notNull())
    .addColumn('jws', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('typ', 'text', (c) => c.notNull())
    .addColumn('knd', 'text', (c) => c.notNull())
    .addColumn('out', 'text')
    .addColumn('ref', 'text')
    .addColumn('prv', 'text')
    .addColumn('sub', 'text', (c) => c.notNull())
    .addColumn('itm', 'text', (c) => c.notNull())
    .addColumn('iat', 'bigint', (c) => c.notNull())
    .addColumn('due', 'bigint', (c) => c.notNull())
    .addColumn('end_at', 'bigint')
    .addColumn('paid', 'integer', (c) => c.notNull())
    .addColumn('aut', 'integer', (c) => c.notNull())
    .addColumn('counted', 'integer', (c) => c.notNull())
    .addColumn('arrived_at', 'bigint', (c) => c.notNull())
    .addColumn('ack_jws', 'text')
    .addColumn('ack_jkt', 'text')
    .addColumn('ack_iat', 'bigint')
    .addColumn('ack_at', 'bigint')
    .execute();
  // A receipt is held once per issuer and id; the issuer is the domain's origin, so (domain, receipt_id)
  // is that key, and the same index serves reading a business's receipts: two trees written per receipt.
  await db.schema.createIndex('receipts_domain_id').ifNotExists().unique().on('receipts').columns(['domain', 'receipt_id']).execute();

  await db.schema
    .createTable('receipt_tallies')
    .ifNotExists()
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('issued', 'integer', (c) => c.notNull())
    .addColumn('acknowledged', 'integer', (c) => c.notNull())
    .addColumn('customers', 'integer', (c) => c.notNull())
    .addColumn('last_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();
  await db.schema
    .createTable('receipt_customers')
    .ifNotExists()
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('sub', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('receipt_customers_pk', ['domain', 'sub'])
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();
  await db.schema
    .createTable('receipt_outcomes')
    .ifNotExists()
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('iat', 'bigint', (c) => c.notNull())
    .addColumn('business_broken', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('receipt_outcomes_pk', ['domain', 'ref'])
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();

  await db.schema
    .createTable('reputation_nights')
    .ifNotExists()
    .addColumn('night', 'text', (c) => c.primaryKey())
    .addColumn('scoring_time', 'bigint', (c) => c.notNull())
    .addColumn('rules_version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('cursor', 'text')
    .addColumn('members', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('computed_at', 'bigint')
    .addColumn('published_at', 'bigint')
    .execute();
  await db.schema
    .createTable('reputation_scores')
    .ifNotExists()
    .addColumn('night', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('score', 'real', (c) => c.notNull())
    .addColumn('score_int', 'integer', (c) => c.notNull())
    .addColumn('ranked', 'integer', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('kept', 'integer', (c) => c.notNull())
    .addColumn('broken', 'integer', (c) => c.notNull())
    .addColumn('customers', 'integer', (c) => c.notNull())
    .addColumn('verified_share', 'real', (c) => c.notNull())
    .addColumn('units', 'real', (c) => c.notNull())
    .addPrimaryKeyConstraint('reputation_scores_pk', ['night', 'domain'])
    .execute();
}
