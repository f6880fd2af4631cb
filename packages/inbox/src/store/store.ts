/**
 * The storage seam: what the domain needs from a database, in domain types. The only
 * implementation today is store/kysely (SQLite); PostgreSQL can slot in behind the same interface.
 */
import type {
  ActorKind,
  Closure,
  ItemEventRecord,
  ItemRecord,
  ItemType,
  MessageRecord,
  OpeningHoursRange,
  Product,
  Service,
} from '../domain/types.js';
import type { OAuthStore } from './oauth-store.js';
import type { EventStreamStore, WebhookStore } from './webhook-store.js';
import type { PageRequest } from './page-request.js';

export type { PageRequest } from './page-request.js';

export interface VersionedDocument {
  document: Record<string, unknown>;
  version: number;
}

/**
 * How a document is kept at rest when some of its values must not be (settings secrets are sealed):
 * `toStored` before writing, `fromStored` after reading. `fromStored` says whether it met a value kept
 * the old way, so the store can write the row again in the new form.
 */
export interface DocumentCodec {
  toStored(document: Record<string, unknown>): Record<string, unknown>;
  fromStored(document: Record<string, unknown>): { document: Record<string, unknown>; outdated: boolean };
}

export interface DocumentStore {
  get(): Promise<VersionedDocument | null>;
  /** Compare-and-set on version; false when someone else wrote first. */
  put(document: Record<string, unknown>, expectedVersion: number | null, nowMs: number): Promise<boolean>;
}

export interface CatalogueStore {
  listServices(options: PageRequest & { activeOnly: boolean }): Promise<Service[]>;
  getService(id: string): Promise<Service | null>;
  upsertService(service: Service): Promise<void>;
  listProducts(options: PageRequest & { activeOnly: boolean; search?: string[] | undefined }): Promise<Product[]>;
  getProduct(productId: string): Promise<Product | null>;
  getProductBySku(sku: string): Promise<Product | null>;
  upsertProduct(product: Product, searchText: string): Promise<void>;
  getOpeningHours(): Promise<OpeningHoursRange[]>;
  setOpeningHours(ranges: readonly OpeningHoursRange[]): Promise<void>;
  getClosures(): Promise<Closure[]>;
  setClosures(closures: readonly Closure[]): Promise<void>;
}

export interface ItemFilter {
  type?: ItemType | undefined;
  state?: string | undefined;
  needsHuman?: boolean | undefined;
  openOnly: boolean;
  sandbox?: boolean | undefined;
  /** Every word must appear in the item's search text (already normalised). */
  words?: string[] | undefined;
}

export interface BusyBooking {
  itemId: string;
  startAt: number;
  endAt: number;
  partySize: number;
}

export interface ItemStore {
  insert(item: ItemRecord): Promise<void>;
  get(id: string): Promise<ItemRecord | null>;
  /** Writes the item only if its stored version is still `expectedVersion`. */
  update(item: ItemRecord, expectedVersion: number): Promise<boolean>;
  /** Newest first, ids below `after`. */
  list(filter: ItemFilter, page: PageRequest): Promise<ItemRecord[]>;
  appendEvent(event: ItemEventRecord): Promise<void>;
  listEvents(itemId: string): Promise<ItemEventRecord[]>;
  addMessage(message: MessageRecord): Promise<void>;
  listMessages(itemId: string, includeInternal: boolean): Promise<MessageRecord[]>;
  /** Confirmed bookings of a service overlapping [fromMs, toMs). */
  confirmedBookings(serviceId: string, fromMs: number, toMs: number): Promise<BusyBooking[]>;
  /** Counts of earlier items by a contact's email, newest first, for the owner's customer view. */
  historyByEmail(email: string, excludeItemId: string): Promise<{ type: ItemType; state: string; sandbox: boolean }[]>;
  /** Whether any other item carries this e-mail address (one row looked at, not the history). */
  hasOtherWithEmail(email: string, excludeItemId: string): Promise<boolean>;
  /** Items created since an instant, by type (sandbox ones left out): what an inbox reports to networks. */
  countCreatedSince(sinceMs: number): Promise<Partial<Record<ItemType, number>>>;
  /** Open real items in the given states of their type: what waits for the owner (the owner app's title). */
  countAwaiting(states: AwaitingStates): Promise<number>;
  /** Real bookings (sandbox ones left out) in any state overlapping [fromMs, toMs), by start; at most `limit`. */
  bookingsBetween(fromMs: number, toMs: number, limit: number): Promise<ItemRecord[]>;
  /** Open real items in the given states of their type, oldest first: what waits for the owner; at most `limit`. */
  listAwaiting(states: AwaitingStates, limit: number): Promise<ItemRecord[]>;
  /** The last message each item has from these author kinds (internal notes left out), by item id. */
  lastMessagesBy(itemIds: readonly string[], authorKinds: readonly string[]): Promise<Map<string, string>>;
}

export interface StoredAnswer {
  requestHash: string;
  status: number;
  response: unknown;
}

/** An answer to keep under a key: its response already as the JSON text stored. */
export interface AnswerToStore {
  requestHash: string;
  status: number;
  responseJson: string;
}

export interface IdempotencyStore {
  find(scopeKey: string, nowMs: number): Promise<StoredAnswer | null>;
  save(scopeKey: string, answer: AnswerToStore, nowMs: number, keepMs: number): Promise<void>;
  prune(nowMs: number): Promise<number>;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  kind: 'owner' | 'integration';
  preset: string | null;
  scopes: string[];
  keyHash: string;
  keyHint: string;
  createdByKind: ActorKind;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export interface ApiKeyStore {
  insert(key: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  countActive(kind: ApiKeyRecord['kind'], nowMs: number): Promise<number>;
  touch(id: string, nowMs: number): Promise<void>;
  revoke(id: string, nowMs: number): Promise<boolean>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Newest first, ids below `after`. */
  listPage(page: PageRequest): Promise<ApiKeyRecord[]>;
  /** Counts one call made outside the principal's scopes (keyed by key id or OAuth grant id). */
  recordScopeMiss(miss: ScopeMissEvent): Promise<void>;
  /** The recorded misses of these principals, most recent first. */
  listScopeMisses(principalIds: readonly string[]): Promise<ScopeMissRecord[]>;
}

/** One call outside scopes: who (a key or an AI app's grant), what it called, the scope it needed. */
export interface ScopeMissEvent {
  principalId: string;
  principalKind: ActorKind;
  operation: string;
  scope: string;
  refused: boolean;
  atMs: number;
}

export interface ScopeMissRecord {
  principalId: string;
  principalKind: ActorKind;
  operation: string;
  scope: string;
  calls: number;
  refused: number;
  firstAt: number;
  lastAt: number;
}

export type { JobRecord, JobStore } from '@svc/shared';

import type { JobStore } from '@svc/shared';
import type { NetworkStatusStore } from './network-status-store.js';
import type { RuleStore } from './rule-store.js';
import type { FeedStore } from './feed-store.js';
import type { SigningKeyStore } from './signing-key-store.js';
import type { ReceiptStore } from './receipt-store.js';
import type { ReceiptPublicationStore } from './receipt-publication-store.js';
import type { NetworkLogStore } from './network-log-store.js';
import type { OwnerSessionStore } from './owner-session-store.js';
import type { IdentityStore, PersonLinkStore } from './identity-store.js';
import type { MailStore } from './mail-store.js';
import type { AwaitingStates, NotificationStore } from './notification-store.js';

/**
 * What an answer kept in memory may be built from (ChangeStamps). `owner_pages`: everything the owner
 * app's inbox and item pages show (an item with its events, conversation, receipts, customer and
 * moves, in the frame of the profile and settings): every table but the bookkeeping ones.
 * `sessions`: the owner app's sessions and the keys they were opened with. `any_table`: every table,
 * bookkeeping included (the owner app's screens of keys, deliveries, grants and feed runs).
 */
export type ChangeTopic = 'profile' | 'settings' | 'services' | 'products' | 'schedule' | 'items' | 'rules' | 'webhooks' | 'owner_pages' | 'sessions' | 'push_subscriptions' | 'any_table';

/** Tells whether what an answer was built from may have changed since (answers kept in memory, operations/kept-answers.ts). */
export interface ChangeStamps {
  /**
   * A stamp of `topics` now. It differs from every earlier stamp of them once any of them may have
   * changed, whichever process wrote it. Take it before reading what it covers.
   */
  stamp(topics: readonly ChangeTopic[]): string | Promise<string>;
}

export interface InboxStore {
  /** Whether the profile, settings, catalogue, schedule, items, rules or webhook endpoints may have changed since a stamp. */
  readonly changes: ChangeStamps;
  readonly business: DocumentStore;
  readonly settings: DocumentStore;
  readonly catalogue: CatalogueStore;
  readonly items: ItemStore;
  readonly idempotency: IdempotencyStore;
  readonly apiKeys: ApiKeyStore;
  /** OAuth 2.1 clients, consent requests, codes, grants and tokens (docs/oauth.md). */
  readonly oauth: OAuthStore;
  readonly jobs: JobStore;
  /** The owner's rules (docs/rules.md). */
  readonly rules: RuleStore;
  readonly networkStatus: NetworkStatusStore;
  /** Each network's evidence log as this inbox checks it (docs/receipts.md "The networks' logs"). */
  readonly networkLogs: NetworkLogStore;
  /** Webhook endpoints and the delivery outbox (docs/webhooks.md). */
  readonly webhooks: WebhookStore;
  /** Item events in commit order: the polled stream (docs/webhooks.md). */
  readonly eventStream: EventStreamStore;
  /** Product feeds, their import runs and the products they brought (docs/feeds.md). */
  readonly feeds: FeedStore;
  /** The instance's receipt signing keys and sealed instance secrets (docs/receipts.md). */
  readonly signingKeys: SigningKeyStore;
  /** Receipts issued and their acknowledgements (docs/receipts.md). */
  readonly receipts: ReceiptStore;
  /** What became of each receipt at each network (docs/receipts.md "Publication"). */
  readonly receiptPublications: ReceiptPublicationStore;
  /** Sessions of the owner app (docs/web.md). */
  readonly ownerSessions: OwnerSessionStore;
  /** Signed agents, signatures of changes taken, one-time codes and proofs (docs/identity.md). */
  readonly identity: IdentityStore;
  /** Mail sent and received (docs/mail.md). */
  readonly mail: MailStore;
  /** Passes presented per item and each network's status for it (docs/identity.md). */
  readonly persons: PersonLinkStore;
  /** The owner's push subscriptions and notices (docs/mail.md "The owner's notices"). */
  readonly notifications: NotificationStore;
  /** Runs `work` atomically; inside a transaction, nested calls join it. */
  transaction<T>(work: (store: InboxStore) => Promise<T>): Promise<T>;
  /**
   * Like `transaction`, for short writes answered to a caller: on SQLite the calls arriving together
   * share one commit, each in a savepoint of its own (shared write-batch.ts), and each settles after
   * that commit. On PostgreSQL it is `transaction`.
   */
  batchedTransaction<T>(work: (store: InboxStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
