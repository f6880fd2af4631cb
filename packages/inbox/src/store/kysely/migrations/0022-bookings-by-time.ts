/**
 * The owner's Today and calendar read a day's or a week's bookings by their start (docs/web.md
 * "Today", "The calendar"): an index in (type, start, id) order lets that read seek to the days
 * shown instead of walking every item of the inbox.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('items_bookings_by_start').on('items').columns(['type', 'start_at', 'id']).execute();
}
