/** The InboxStore over Kysely (SQLite or PostgreSQL): one object per database handle, re-made for each transaction. */
import { KyselyNetworkLogStore } from './network-log-store.js';
import type { Kysely } from 'kysely';
import type { ChangeStamps, ChangeTopic, DocumentCodec, InboxStore } from '../store.js';
import { KyselyCatalogueStore } from './catalogue-store.js';
import { KyselyFeedStore } from './feed-store.js';
import { openDatabase } from './database.js';
import { KyselyItemStore } from './item-store.js';
import { KyselyOAuthStore } from './oauth-store.js';
import { KyselyNetworkStatusStore } from './network-status-store.js';
import { KyselyRuleStore } from './rule-store.js';
import { KyselySigningKeyStore } from './signing-key-store.js';
import { KyselyReceiptStore } from './receipt-store.js';
import { KyselyReceiptPublicationStore } from './receipt-publication-store.js';
import { KyselyOwnerSessionStore } from './owner-session-store.js';
import { KyselyIdentityStore } from './identity-store.js';
import { KyselyMailStore } from './mail-store.js';
import { KyselyNotificationStore } from './notification-store.js';
import { KyselyPersonLinkStore } from './person-link-store.js';
import { KyselyEventStreamStore, PendingStreamRows } from './event-stream-store.js';
import { KyselyWebhookStore, OutboxSignal } from './webhook-store.js';
import type { Database } from './schema.js';
import { KyselyJobStore, WriteBatch, engineOf, transactionWithRetry, type StorageEngine, type StorageHealth, type StorageTarget, type TableWrites } from '@svc/shared';
import { KyselyApiKeyStore, KyselyDocumentStore, KyselyIdempotencyStore } from './service-stores.js';

/**
 * Whether the owner app's inbox and item pages show what a table holds (topic `owner_pages`). Each
 * table is named, so one added to the schema and not here does not compile. When in doubt: true (a
 * page rendered again is only slower). False: bookkeeping no such page shows, written while pages are
 * read (jobs claimed and leased, idempotency records, sessions' last use, keys' last use, OAuth,
 * mail queued, deliveries, secrets); a session is checked on every request anyway.
 */
const SHOWN_ON_OWNER_PAGES: Record<keyof Database, boolean> = {
  business: true,
  settings: true,
  services: true,
  products: true,
  opening_hours: true,
  closures: true,
  items: true,
  item_events: true,
  messages: true,
  rules: true,
  event_stream: true,
  network_status: true,
  webhook_endpoints: true,
  feeds: true,
  feed_products: true,
  receipts: true,
  receipt_publications: true,
  network_logs: true,
  agents: true,
  item_agents: true,
  item_proofs: true,
  item_persons: true,
  item_networks: true,
  inbound_mail: true,
  idempotency_keys: false,
  api_keys: false,
  oauth_clients: false,
  oauth_requests: false,
  oauth_grants: false,
  oauth_codes: false,
  oauth_tokens: false,
  jobs: false,
  scope_misses: false,
  webhook_deliveries: false,
  feed_runs: false,
  signing_keys: false,
  instance_secrets: false,
  owner_sessions: false,
  signature_uses: false,
  customer_codes: false,
  outbound_mail: false,
  // The owner's devices (Setup › Notifications reads them under any_table) and the notices' bookkeeping.
  push_subscriptions: false,
  owner_notices: false,
};

/** The tables each topic is read from. */
const TOPIC_TABLES: Record<ChangeTopic, readonly (keyof Database)[]> = {
  profile: ['business'],
  settings: ['settings'],
  services: ['services'],
  products: ['products'],
  schedule: ['opening_hours', 'closures'],
  items: ['items'],
  rules: ['rules'],
  webhooks: ['webhook_endpoints'],
  sessions: ['owner_sessions', 'api_keys'],
  push_subscriptions: ['push_subscriptions'],
  owner_pages: (Object.keys(SHOWN_ON_OWNER_PAGES) as (keyof Database)[]).filter((table) => SHOWN_ON_OWNER_PAGES[table]),
  any_table: Object.keys(SHOWN_ON_OWNER_PAGES) as (keyof Database)[],
};

/** Stamps from the database's TableWrites; without one (a handle that counts nothing) every stamp is new. */
class TableChangeStamps implements ChangeStamps {
  readonly #writes: TableWrites | null;
  #uncounted = 0;
  constructor(writes: TableWrites | null) {
    this.#writes = writes;
  }

  stamp(topics: readonly ChangeTopic[]): string {
    if (!this.#writes) return `uncounted-${++this.#uncounted}`;
    return this.#writes.stamp(topics.length === 1 ? TOPIC_TABLES[topics[0]!] : topics.flatMap((topic) => TOPIC_TABLES[topic]));
  }
}

export class KyselyInboxStore implements InboxStore {
  readonly changes: ChangeStamps;
  readonly business;
  readonly settings;
  readonly catalogue;
  readonly items;
  readonly idempotency;
  readonly apiKeys;
  readonly oauth;
  readonly jobs;
  readonly rules;
  readonly networkStatus;
  readonly networkLogs;
  readonly webhooks;
  readonly eventStream;
  readonly feeds;
  readonly signingKeys;
  readonly receipts;
  readonly receiptPublications;
  readonly ownerSessions;
  readonly identity;
  readonly mail;
  readonly persons;
  readonly notifications;
  readonly #outbox: OutboxSignal;
  readonly #db: Kysely<Database>;
  readonly #inTransaction: boolean;
  readonly #settingsCodec: DocumentCodec | null;

  /** `streamRows`: the transaction's event stream rows, written last (event-stream-store.ts); null on the root store. */
  constructor(
    db: Kysely<Database>,
    inTransaction = false,
    outbox = new OutboxSignal(),
    settingsCodec: DocumentCodec | null = null,
    changes: ChangeStamps = new TableChangeStamps(null),
    streamRows: PendingStreamRows | null = null,
  ) {
    this.#db = db;
    this.changes = changes;
    this.#inTransaction = inTransaction;
    this.#settingsCodec = settingsCodec;
    this.business = new KyselyDocumentStore(db, 'business');
    this.settings = new KyselyDocumentStore(db, 'settings', settingsCodec);
    this.catalogue = new KyselyCatalogueStore(db);
    this.items = new KyselyItemStore(db);
    this.idempotency = new KyselyIdempotencyStore(db);
    this.apiKeys = new KyselyApiKeyStore(db);
    this.oauth = new KyselyOAuthStore(db);
    this.jobs = new KyselyJobStore(db);
    this.rules = new KyselyRuleStore(db);
    this.networkStatus = new KyselyNetworkStatusStore(db);
    this.networkLogs = new KyselyNetworkLogStore(db);
    this.#outbox = outbox;
    this.webhooks = new KyselyWebhookStore(db, outbox, inTransaction);
    this.eventStream = new KyselyEventStreamStore(db, streamRows);
    this.feeds = new KyselyFeedStore(db);
    this.signingKeys = new KyselySigningKeyStore(db);
    this.receipts = new KyselyReceiptStore(db);
    this.receiptPublications = new KyselyReceiptPublicationStore(db);
    this.ownerSessions = new KyselyOwnerSessionStore(db);
    this.identity = new KyselyIdentityStore(db);
    this.mail = new KyselyMailStore(db);
    this.persons = new KyselyPersonLinkStore(db);
    this.notifications = new KyselyNotificationStore(db);
  }

  /**
   * SQLite has one writer; Kysely holds its single connection for the whole transaction, so writes
   * serialise. On PostgreSQL transactions run side by side; one that loses a race the database
   * decides (a constraint, a deadlock) is run again from the start (docs/storage.md "Concurrency").
   * The transaction's event stream rows are written last, just before the commit, in commit order.
   */
  async transaction<T>(work: (store: InboxStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    try {
      return await transactionWithRetry(this.#db, (trx) => this.#within(trx, work));
    } finally {
      // Deliveries queued by this transaction may go now that it has committed.
      this.#outbox.flush();
    }
  }

  #batch: WriteBatch<Database> | null = null;

  async batchedTransaction<T>(work: (store: InboxStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    if (engineOf(this.#db) === 'postgres') return this.transaction(work);
    this.#batch ??= new WriteBatch(this.#db);
    try {
      return await this.#batch.run((trx) => this.#within(trx, work));
    } finally {
      this.#outbox.flush();
    }
  }

  /** `work` on the store of transaction `trx`; its event stream rows are written last, in commit order. */
  async #within<T>(trx: Kysely<Database>, work: (store: InboxStore) => Promise<T>): Promise<T> {
    const streamRows = new PendingStreamRows();
    const result = await work(new KyselyInboxStore(trx, true, this.#outbox, this.#settingsCodec, this.changes, streamRows));
    await streamRows.write(trx);
    return result;
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

export type OpenedInboxStore = KyselyInboxStore & { storageHealth: StorageHealth; engine: StorageEngine };

/**
 * The inbox's store on its SQLite file or PostgreSQL database. `settingsCodec` keeps the settings'
 * secrets sealed at rest (domain/settings/sealed-settings.ts); `storageHealth` says whether the
 * storage takes writes (shared storage-health.ts).
 */
export async function openInboxStore(target: StorageTarget, options: { settingsCodec?: DocumentCodec } = {}): Promise<OpenedInboxStore> {
  const { db, health, engine, writes } = await openDatabase(target);
  // On PostgreSQL writes is null: other processes commit unseen, so every stamp is new and nothing read is kept (docs/storage.md).
  return Object.assign(new KyselyInboxStore(db, false, new OutboxSignal(), options.settingsCodec ?? null, new TableChangeStamps(writes)), { storageHealth: health, engine });
}

export function openSqliteStore(file: string, options: { settingsCodec?: DocumentCodec } = {}): Promise<OpenedInboxStore> {
  return openInboxStore({ engine: 'sqlite', file }, options);
}
