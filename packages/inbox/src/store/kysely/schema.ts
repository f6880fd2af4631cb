/**
 * Table shapes as Kysely sees them. Times are INTEGER milliseconds since the epoch (UTC);
 * documents are JSON TEXT; booleans are INTEGER 0/1. Only code under store/kysely reads these.
 */
import type { JobsTable } from '@svc/shared';
import type { Generated } from 'kysely';

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
  jobs: JobsTable;
}
