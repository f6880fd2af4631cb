/** Opens the directory's database (its SQLite file with a larger page cache, or PostgreSQL) and brings its schema up to date. */
import { openStorage, type OpenedStorage, type StorageTarget } from '@svc/shared';
import * as initial from './migrations/0001-directory.js';
import * as listingPages from './migrations/0002-listing-pages.js';
import * as membersOnly from './migrations/0003-members-only-categories.js';
import * as paymentSpellings from './migrations/0004-payment-spellings.js';
import * as revisions from './migrations/0005-listing-revisions.js';
import * as receipts from './migrations/0006-receipts-and-reputation.js';
import * as networkReceipts from './migrations/0007-receipts-from-the-network.js';
import * as checks from './migrations/0009-checks.js';
import * as persons from './migrations/0012-persons.js';
import * as checkDoors from './migrations/0013-check-doors.js';
import * as evidenceLog from './migrations/0014-evidence-log.js';
import * as checkEvidence from './migrations/0015-check-evidence.js';
import * as indexSnapshots from './migrations/0016-index-snapshots.js';
import * as startIndexes from './migrations/0017-listing-start-indexes.js';
import * as snapshotStorage from './migrations/0018-index-snapshot-storage.js';
import * as pageVersions from './migrations/0019-listing-page-versions.js';
import * as loadStaging from './migrations/0020-listing-load-staging.js';
import * as statementKeys from './migrations/0021-listing-statement-keys.js';
import * as lz4Compression from './migrations/0022-listing-lz4-compression.js';
import * as contentStampIndex from './migrations/0023-drop-content-stamp-index.js';
import type { DirectoryDatabase } from './schema.js';

/** SQLite's page cache per connection, in KiB. */
export const DIRECTORY_CACHE_KIB = 65_536;

/**
 * SQLite's page cache, in KiB, on a connection while it reads every listing once (ListingStore.readingEveryListing,
 * the hour's statement's reader of keys): pages read once would only fill the cache, and its memory stays with the process.
 */
export const READING_ALL_CACHE_KIB = 2_048;

/**
 * SQLite's page size for a new directory file (a file made before keeps its own). A listing's row
 * (~4 KB of document) and its page's row (~2.2 KB) each filled a 4 KB page alone; in 16 KB pages
 * they share them: 6.8 KB stored a listing instead of 8.4, and the bare writes of 100,000 take 8.0 s
 * instead of 9.7-10.0 (docs/directory.md "Loading listings"; at 5 M the indexes' leaves, written
 * whole, make the disk take more bytes, and the load is no faster for the pages alone).
 */
export const DIRECTORY_PAGE_BYTES = 16_384;

/**
 * The bulk load's writer connection's page cache, in KiB, held while a load runs and freed after it.
 * A transaction of 10,000 listings changes leaves all over the domain and id indexes (their keys come
 * in no order): at 5 M some 200 MB of pages, which with the node's 64 MB cache SQLite read back from
 * the system again for every transaction (5 M stored in 913 s; with this cache 734 s, 120 s less
 * system time, the same bytes written: docs/directory.md "Loading listings").
 */
export const LOAD_WRITER_CACHE_KIB = 1_048_576;

export const DIRECTORY_MIGRATIONS = { '0001-directory': initial, '0002-listing-pages': listingPages, '0003-members-only-categories': membersOnly, '0004-payment-spellings': paymentSpellings, '0005-listing-revisions': revisions, '0006-receipts-and-reputation': receipts, '0007-receipts-from-the-network': networkReceipts, '0009-checks': checks, '0012-persons': persons, '0013-check-doors': checkDoors, '0014-evidence-log': evidenceLog, '0015-check-evidence': checkEvidence, '0016-index-snapshots': indexSnapshots, '0017-listing-start-indexes': startIndexes, '0018-index-snapshot-storage': snapshotStorage, '0019-listing-page-versions': pageVersions, '0020-listing-load-staging': loadStaging, '0021-listing-statement-keys': statementKeys, '0022-listing-lz4-compression': lz4Compression, '0023-drop-content-stamp-index': contentStampIndex };

export function openDirectoryDatabase(target: StorageTarget): Promise<OpenedStorage<DirectoryDatabase>> {
  return openStorage<DirectoryDatabase>(target, DIRECTORY_MIGRATIONS, { applicationName: 'directory', sqlitePragmas: [`cache_size = -${DIRECTORY_CACHE_KIB}`], sqliteNewFilePageBytes: DIRECTORY_PAGE_BYTES });
}
