/**
 * Telling the owner (docs/mail.md "The owner's notices", docs/web.md "Push"): the browsers the owner
 * allowed to receive Web Push (endpoint and the keys its messages are encrypted to), and the notices
 * of what happened, each claimed by the job sending it (a lease) and marked once mailed and once
 * pushed, so a notice goes out once however many jobs run at a time.
 */
import { columnTypes } from '@svc/shared';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('endpoint', t.text, (c) => c.notNull().unique())
    .addColumn('p256dh', t.text, (c) => c.notNull())
    .addColumn('auth', t.text, (c) => c.notNull())
    .addColumn('key_id', t.text)
    .addColumn('label', t.text)
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('last_sent_at', t.bigint)
    .addColumn('last_error', t.text)
    .execute();
  await db.schema
    .createTable('owner_notices')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('event_id', t.text, (c) => c.notNull())
    .addColumn('item_id', t.text, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('mailed_at', t.bigint)
    .addColumn('pushed_at', t.bigint)
    .addColumn('mail_claimed_until', t.bigint)
    .addColumn('push_claimed_until', t.bigint)
    .execute();
  await db.schema.createIndex('owner_notices_mailed').on('owner_notices').columns(['mailed_at', 'id']).execute();
  await db.schema.createIndex('owner_notices_pushed').on('owner_notices').columns(['pushed_at', 'id']).execute();
}
