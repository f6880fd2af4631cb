/** Opens the inbox's database (its SQLite file, or PostgreSQL under INBOX_DATABASE_URL) and brings its schema up to date. */
import { openStorage, type OpenedStorage, type StorageTarget } from '@svc/shared';
import * as core from './migrations/0001-core.js';
import * as eventsWebhooks from './migrations/0002-events-webhooks.js';
import * as keyScopes from './migrations/0003-key-scopes.js';
import * as rules from './migrations/0004-rules.js';
import * as oauth from './migrations/0005-oauth.js';
import * as feeds from './migrations/0006-feeds.js';
import * as deliveryDueOrder from './migrations/0007-delivery-due-order.js';
import * as signingKeys from './migrations/0008-signing-keys.js';
import * as receipts from './migrations/0009-receipts.js';
import * as receiptPublication from './migrations/0010-receipt-publication.js';
import * as ownerSessions from './migrations/0016-owner-sessions.js';
import * as identity from './migrations/0013-identity.js';
import * as mail from './migrations/0014-mail.js';
import * as persons from './migrations/0015-persons.js';
import * as signedAcknowledgements from './migrations/0017-signed-acknowledgements.js';
import * as networkReads from './migrations/0018-network-reads.js';
import * as deliveryEndpointDue from './migrations/0019-delivery-endpoint-due.js';
import * as notifications from './migrations/0020-notifications.js';
import * as networkLogs from './migrations/0021-network-logs.js';
import * as bookingsByTime from './migrations/0022-bookings-by-time.js';
import type { Database } from './schema.js';

export const INBOX_MIGRATIONS = { '0001-core': core, '0002-events-webhooks': eventsWebhooks, '0003-key-scopes': keyScopes, '0004-rules': rules, '0005-oauth': oauth, '0006-feeds': feeds, '0007-delivery-due-order': deliveryDueOrder, '0008-signing-keys': signingKeys, '0009-receipts': receipts, '0010-receipt-publication': receiptPublication, '0013-identity': identity, '0014-mail': mail, '0015-persons': persons, '0016-owner-sessions': ownerSessions, '0017-signed-acknowledgements': signedAcknowledgements, '0018-network-reads': networkReads, '0019-delivery-endpoint-due': deliveryEndpointDue, '0020-notifications': notifications, '0021-network-logs': networkLogs, '0022-bookings-by-time': bookingsByTime };

/**
 * The log size (pages) at which the server's connection finishes a checkpoint and the log starts
 * again. A worker thread copies the log back as it grows (shared wal-checkpointer.ts), so this
 * connection copies only the last few milliseconds of writes; should the worker be missing, it
 * copies everything, and 4,000 pages (16 MiB) then stalls a quarter as often as the default 1,000
 * (a create writes about 23 pages). Durability is unchanged either way. docs/inbox-performance.md.
 */
const WAL_CHECKPOINT_PAGES = 4000;

/** The database, whether its storage takes writes (StorageHealth: /healthz and 503 storage_full), and on SQLite its TableWrites. */
export function openDatabase(target: StorageTarget): Promise<OpenedStorage<Database>> {
  return openStorage<Database>(target, INBOX_MIGRATIONS, { applicationName: 'inbox', sqlitePragmas: [`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`] });
}
