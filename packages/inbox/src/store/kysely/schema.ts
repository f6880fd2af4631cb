/**
 * Table shapes as Kysely sees them. Times are INTEGER milliseconds since the epoch (UTC);
 * documents are JSON TEXT; booleans are INTEGER 0/1. Only code under store/kysely reads these.
 */
import type { OwnerNoticesTable, PushSubscriptionsTable } from './notification-tables.js';
import type { JobsTable } from '@svc/shared';
import type { Generated } from 'kysely';
import type { OAuthClientsTable, OAuthCodesTable, OAuthGrantsTable, OAuthRequestsTable, OAuthTokensTable } from './oauth-schema.js';
import type { NetworkStatusTable, ScopeMissesTable } from './access-network-tables.js';
import type { InstanceSecretsTable, NetworkLogsTable, ReceiptPublicationsTable, ReceiptsTable, SigningKeysTable } from './receipt-tables.js';
import type { InboundMailTable, OutboundMailTable } from './mail-tables.js';
import type { AgentsTable, CustomerCodesTable, ItemAgentsTable, ItemNetworksTable, ItemPersonsTable, ItemProofsTable, SignatureUsesTable } from './identity-tables.js';

export interface BusinessTable {
  id: string; // always 'self': one business per instance
  document: string; // JSON business profile
  version: number;
  updated_at: number;
}

export interface SettingsTable {
  id: string;
  document: string;
  version: number;
  updated_at: number;
}

export interface ServicesTable {
  id: string;
  name: string;
  description: string | null;
  duration_min: number;
  price_model: string;
  price_minor: number | null;
  currency: string;
  capacity: number;
  max_party_size: number;
  slot_step_min: number;
  min_notice_min: number;
  active: number;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface ProductsTable {
  id: string;
  sku: string | null;
  name: string;
  description: string | null;
  price_minor: number;
  currency: string;
  category: string | null;
  image_url: string | null;
  url: string | null;
  in_stock: number;
  active: number;
  search_text: string;
  created_at: number;
  updated_at: number;
}

export interface OpeningHoursTable {
  id: Generated<number>;
  day_of_week: number; // ISO: 1 Monday … 7 Sunday
  opens: string; // HH:MM local time
  closes: string; // HH:MM local time; '24:00' allowed
}

export interface ClosuresTable {
  id: string;
  start_date: string; // YYYY-MM-DD local
  end_date: string; // inclusive
  reason: string | null;
}

export interface ItemsTable {
  id: string;
  type: string;
  state: string;
  version: number;
  payload: string;
  contact: string | null;
  contact_email: string | null;
  needs_human: number;
  priority: number;
  sandbox: number;
  access_token_hash: string;
  channel: string;
  service_id: string | null;
  start_at: number | null;
  end_at: number | null;
  party_size: number | null;
  linked_item_id: string | null;
  search_text: string;
  is_open: number;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
}

export interface ItemEventsTable {
  id: string; // ULID; also the webhook-id of its delivery
  item_id: string;
  seq: number | null; // transitions only: equals the version they produced
  type: string; // '<item type>.<event>'
  event: string;
  from_state: string | null;
  to_state: string;
  version: number;
  actor_kind: string;
  actor_id: string | null;
  actor_name: string | null;
  channel: string;
  sandbox: number;
  reason: string | null;
  data: string | null;
  created_at: number;
}

export interface MessagesTable {
  id: string;
  item_id: string;
  author_kind: string;
  author_id: string | null;
  author_name: string | null;
  body: string;
  internal: number;
  channel: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  scope_key: string;
  request_hash: string;
  status: number;
  response: string;
  created_at: number;
  expires_at: number;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  kind: string; // owner | integration
  preset: string | null;
  scopes: string; // JSON array
  key_hash: string;
  key_hint: string;
  created_by_kind: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}


export interface Database {
  business: BusinessTable;
  settings: SettingsTable;
  services: ServicesTable;
  products: ProductsTable;
  opening_hours: OpeningHoursTable;
  closures: ClosuresTable;
  items: ItemsTable;
  item_events: ItemEventsTable;
  messages: MessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  api_keys: ApiKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  jobs: JobsTable;
  scope_misses: ScopeMissesTable;
  network_status: NetworkStatusTable;
  rules: RulesTable;
  event_stream: EventStreamTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  feeds: FeedsTable;
  feed_runs: FeedRunsTable;
  feed_products: FeedProductsTable;
  signing_keys: SigningKeysTable;
  instance_secrets: InstanceSecretsTable;
  receipts: ReceiptsTable;
  receipt_publications: ReceiptPublicationsTable;
  network_logs: NetworkLogsTable;
  owner_sessions: OwnerSessionsTable;
  agents: AgentsTable;
  item_agents: ItemAgentsTable;
  signature_uses: SignatureUsesTable;
  customer_codes: CustomerCodesTable;
  item_proofs: ItemProofsTable;
  outbound_mail: OutboundMailTable;
  inbound_mail: InboundMailTable;
  item_persons: ItemPersonsTable;
  item_networks: ItemNetworksTable;
  push_subscriptions: PushSubscriptionsTable;
  owner_notices: OwnerNoticesTable;
}

export interface RulesTable {
  id: string;
  name: string;
  enabled: number;
  position: number;
  trigger_event: string; // event pattern, e.g. booking.create, *.provide_info
  after_hours: number | null; // a delayed rule's wait
  conditions: string; // JSON array
  action: string; // JSON object
  created_at: number;
  updated_at: number;
}

/** One row per item event, in commit order: the position is the event stream's cursor. */
export interface EventStreamTable {
  position: Generated<number>;
  event_id: string;
  type: string;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  url: string;
  events: string; // JSON array of patterns
  payload_style: string; // thin | full
  header_names: string; // JSON array
  sealed_headers: string; // JSON object: name -> SecretBox-sealed value
  sealed_secret: string;
  sealed_previous_secret: string | null;
  previous_secret_until: number | null;
  active: number;
  disabled_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string; // the webhook-id
  event_type: string;
  item_id: string | null;
  status: string; // pending | succeeded | failed
  attempts: number;
  max_attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  response_code: number | null;
  duration_ms: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  body: string | null; // fixed body of a test event
  created_at: number;
  updated_at: number;
}

/** Product feeds (docs/feeds.md). The URL is sealed: feed URLs often carry an access token. */
export interface FeedsTable {
  id: string;
  name: string;
  url_sealed: string;
  url_display: string; // query values redacted
  url_hash: string; // SHA-256 of the normalised URL; unique
  every_hours: number;
  created_at: number;
  updated_at: number;
  next_import_at: number;
  import_requests: number;
  last_success_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
}

export interface FeedRunsTable {
  id: string; // ULID: runs sort by start
  feed_id: string;
  trigger: string; // added | manual | scheduled | retry
  status: string; // running | succeeded | failed
  format: string | null; // rss | atom | tsv
  requests_seen: number;
  started_at: number;
  finished_at: number | null;
  counts: string; // JSON FeedRunCounts
  skipped_entries: string; // JSON array of {entry, id, reason}
  error: string | null;
}

/** Which products a feed brought; a product without a row was made by hand. */
export interface FeedProductsTable {
  product_id: string;
  feed_id: string;
}

/** Owner app sessions (migration 0016): the token's hash, never the token. */
export interface OwnerSessionsTable {
  token_hash: string;
  key_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  user_agent: string | null;
}
