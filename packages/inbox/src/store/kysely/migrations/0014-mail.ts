/**
 * Mail (docs/mail.md): what the inbox sent (a notice of an item, a one-time code) with the Message-ID
 * a reply names in In-Reply-To; a code's text kept sealed only until it is sent; and the Message-IDs
 * of mail that came in, so the same message twice makes one entry.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbound_mail')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('sealed_text', 'text')
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  await db.schema.createIndex('outbound_mail_item').on('outbound_mail').column('item_id').execute();
  await db.schema
    .createTable('inbound_mail')
    .addColumn('message_key', 'text', (c) => c.primaryKey())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
}
