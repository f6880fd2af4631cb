/**
 * What a node reads of every listing when it prepares an hour, from indexes rather than from the
 * listings' rows (issue 40, docs/directory.md "A node ready in seconds"): the rows hold each
 * listing's document (8 KB a listing in SQLite), so reading the rank columns of a million listings,
 * the members, or the stamp of what is listed read the whole table (5 s each at 1 M on SQLite) where
 * these indexes hold tens of bytes a listing.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // rankRows: seq order, the rank columns only.
  await db.schema.createIndex('listings_rank_inputs').ifNotExists().on('listings').columns(['listed', 'seq', 'id', 'source', 'last_ping_at', 'level', 'agent_door']).execute();
  // allListed({ source: 'member' }): the members' rows only.
  await db.schema.createIndex('listings_source_listed').ifNotExists().on('listings').columns(['source', 'listed', 'seq']).execute();
  // contentStamp: how many are listed and their last content change.
  await db.schema.createIndex('listings_listed_content').ifNotExists().on('listings').columns(['listed', 'content_at']).execute();
}
