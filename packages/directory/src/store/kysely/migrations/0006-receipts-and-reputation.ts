/**
 * Trust between inboxes and the network (issue 13): signatures already used (kept until their
 * expiry plus a minute, so a restart does not reopen the replay window), receipts published by
 * verified inboxes with their acknowledgements, the running tallies every view reads, the outcome
 * that stands for each promise, and the nightly reputation snapshots with their scores.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // Small rows keyed by their primary key are kept in that key's tree alone (WITHOUT ROWID on SQLite): one page
  // written per row instead of two, on the path of every signed call and every receipt. Old signatures
  // are pruned by a scan every ten minutes (the table holds the last few minutes only), so no second index.
  await db.schema
    .createTable('used_signatures')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('keep_until', t.bigint, (c) => c.notNull())
    .$call(t.keyedOnly)
    .execute();

  await db.schema
    .createTable('receipts')
    .ifNotExists()
    .addColumn('iss', t.text, (c) => c.notNull())
    .addColumn('receipt_id', t.text, (c) => c.notNull())
    .addColumn('domain', t.text, (c) => c.notNull())
    .addColumn('kid', t.text, (c) => c.notNull())
    .addColumn('jws', t.text, (c) => c.notNull())
    .addColumn('sha256', t.text, (c) => c.notNull())
    .addColumn('typ', t.text, (c) => c.notNull())
    .addColumn('knd', t.text, (c) => c.notNull())
    .addColumn('out', t.text)
    .addColumn('ref', t.text)
    .addColumn('prv', t.text)
    .addColumn('sub', t.text, (c) => c.notNull())
    .addColumn('itm', t.text, (c) => c.notNull())
    .addColumn('iat', t.bigint, (c) => c.notNull())
    .addColumn('due', t.bigint, (c) => c.notNull())
    .addColumn('end_at', t.bigint)
    .addColumn('paid', t.integer, (c) => c.notNull())
    .addColumn('aut', t.integer, (c) => c.notNull())
    .addColumn('counted', t.integer, (c) => c.notNull())
    .addColumn('arrived_at', t.bigint, (c) => c.notNull())
    .addColumn('ack_jws', t.text)
    .addColumn('ack_jkt', t.text)
    .addColumn('ack_iat', t.bigint)
    .addColumn('ack_at', t.bigint)
    .execute();
  // A receipt is held once per issuer and id; the issuer is the domain's origin, so (domain, receipt_id)
  // is that key, and the same index serves reading a business's receipts: two trees written per receipt.
  await db.schema.createIndex('receipts_domain_id').ifNotExists().unique().on('receipts').columns(['domain', 'receipt_id']).execute();

  await db.schema
    .createTable('receipt_tallies')
    .ifNotExists()
    .addColumn('domain', t.text, (c) => c.primaryKey())
    .addColumn('issued', t.integer, (c) => c.notNull())
    .addColumn('acknowledged', t.integer, (c) => c.notNull())
    .addColumn('customers', t.integer, (c) => c.notNull())
    .addColumn('last_at', t.bigint)
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .$call(t.keyedOnly)
    .execute();
  await db.schema
    .createTable('receipt_customers')
    .ifNotExists()
    .addColumn('domain', t.text, (c) => c.notNull())
    .addColumn('sub', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('receipt_customers_pk', ['domain', 'sub'])
    .$call(t.keyedOnly)
    .execute();
  await db.schema
    .createTable('receipt_outcomes')
    .ifNotExists()
    .addColumn('domain', t.text, (c) => c.notNull())
    .addColumn('ref', t.text, (c) => c.notNull())
    .addColumn('receipt_id', t.text, (c) => c.notNull())
    .addColumn('code', t.text, (c) => c.notNull())
    .addColumn('iat', t.bigint, (c) => c.notNull())
    .addColumn('business_broken', t.integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('receipt_outcomes_pk', ['domain', 'ref'])
    .$call(t.keyedOnly)
    .execute();

  await db.schema
    .createTable('reputation_nights')
    .ifNotExists()
    .addColumn('night', t.text, (c) => c.primaryKey())
    .addColumn('scoring_time', t.bigint, (c) => c.notNull())
    .addColumn('rules_version', t.integer, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('cursor', t.text)
    .addColumn('members', t.integer, (c) => c.notNull())
    .addColumn('started_at', t.bigint, (c) => c.notNull())
    .addColumn('computed_at', t.bigint)
    .addColumn('published_at', t.bigint)
    .execute();
  await db.schema
    .createTable('reputation_scores')
    .ifNotExists()
    .addColumn('night', t.text, (c) => c.notNull())
    .addColumn('domain', t.text, (c) => c.notNull())
    .addColumn('score', t.real, (c) => c.notNull())
    .addColumn('score_int', t.integer, (c) => c.notNull())
    .addColumn('ranked', t.integer, (c) => c.notNull())
    .addColumn('tier', t.text, (c) => c.notNull())
    .addColumn('kept', t.integer, (c) => c.notNull())
    .addColumn('broken', t.integer, (c) => c.notNull())
    .addColumn('customers', t.integer, (c) => c.notNull())
    .addColumn('verified_share', t.real, (c) => c.notNull())
    .addColumn('units', t.real, (c) => c.notNull())
    .addPrimaryKeyConstraint('reputation_scores_pk', ['night', 'domain'])
    .execute();
}
