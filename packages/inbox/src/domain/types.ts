/** Domain vocabulary shared by every part of the inbox. No storage or transport here. */
import type { CallIdentity } from './identity/network-status.js';

export const ITEM_TYPES = ['message', 'quote_request', 'booking', 'order', 'refund'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
/**
 * What a customer can create, and so what a business can say it accepts (inbox spec §4 creates):
 * a refund is never asked for by a customer; it opens from a cancelled paid order.
 */
export const CUSTOMER_ITEM_TYPES = ['message', 'quote_request', 'booking', 'order'] as const satisfies readonly ItemType[];
export type CustomerItemType = (typeof CUSTOMER_ITEM_TYPES)[number];

/** Who did something (inbox spec §2 "Actor and channel"). */
export const ACTOR_KINDS = [
  'owner',
  'owner_ai',
  'integration',
  'connector',
  'rule',
  'system',
  'customer_agent',
  'customer_human',
] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export interface Actor {
  kind: ActorKind;
  /** User, AI app or key id; a customer's id is never given out and is null. */
  id: string | null;
  /** Name of the key or AI app. */
  name: string | null;
}

/** The door a call came through; an open list. */
export type Channel = 'rest' | 'mcp_public' | 'mcp_owner' | 'owner_ui' | 'email' | 'system' | (string & {});

/**
 * An agent whose request signature verified (svc-agent/1, docs/identity.md): its key's thumbprint,
 * the platform that vouches for the key (Signature-Agent) or null for its own key, and whether the
 * signature is bound to this very request (covers method and path), so it may stand in for a token.
 */
export interface SignedAgent {
  jkt: string;
  platform: string | null;
  publicJwk: Record<string, unknown>;
  bound: boolean;
  /** base64url SHA-256 of the signature: a change's signature is taken once (signature_uses). */
  signatureId: string;
  /** Until when its use is remembered (ms). */
  keepUntilMs: number;
  /** Why the signature may not be forwarded to a network, or null. */
  forwardRefusal: 'covers_other_headers' | 'secret_in_url' | null;
  /** What a network needs to check the signature itself. */
  forward: { label: string; signature_input: string; signature: string; signature_base: string };
  /** The signature's `created`, Unix seconds. */
  created: number;
  /** The body the signature covers (its Content-Digest), exactly as received; empty when none. */
  body: Uint8Array;
}

/** An authenticated owner-side principal, or a customer (anonymous capability holder, maybe a signed agent). */
export type Caller =
  | {
      kind: 'customer';
      actor: Actor;
      channel: Channel;
      agent?: SignedAgent | undefined;
      identity?: CallIdentity | undefined;
      /** The item whose page (docs/web.md "The customer's page") this call comes from, its page session checked by the page. */
      pageItem?: string | undefined;
    }
  | { kind: 'owner'; actor: Actor; channel: Channel; keyId: string | null; scopes: readonly string[] }
  | { kind: 'system'; actor: Actor; channel: Channel };

export interface Contact {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
}

export interface ItemRecord {
  id: string;
  type: ItemType;
  state: string;
  version: number;
  payload: Record<string, unknown>;
  contact: Contact | null;
  needsHuman: boolean;
  priority: number;
  sandbox: boolean;
  accessTokenHash: string;
  channel: Channel;
  serviceId: string | null;
  startAt: number | null;
  endAt: number | null;
  partySize: number | null;
  linkedItemId: string | null;
  searchText: string;
  isOpen: boolean;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface ItemEventRecord {
  id: string;
  itemId: string;
  seq: number | null;
  type: string;
  event: string;
  fromState: string | null;
  toState: string;
  version: number;
  actor: Actor;
  channel: Channel;
  sandbox: boolean;
  reason: string | null;
  data: Record<string, unknown> | null;
  createdAt: number;
}

export interface MessageRecord {
  id: string;
  itemId: string;
  authorKind: ActorKind;
  authorId: string | null;
  authorName: string | null;
  body: string;
  internal: boolean;
  channel: Channel;
  createdAt: number;
}

export type PriceModel = 'fixed' | 'from' | 'quote' | 'none';

export interface Service {
  id: string;
  name: string;
  description: string | null;
  durationMinutes: number;
  priceModel: PriceModel;
  /** Minor units; the exact price when fixed, the lowest when `from`, null otherwise. */
  price: number | null;
  priceCurrency: string;
  /** Places taken at once (seats, chairs): the sum of party sizes of overlapping confirmed bookings may not exceed it. */
  capacity: number;
  maxPartySize: number;
  slotStepMinutes: number;
  minNoticeMinutes: number;
  active: boolean;
  position: number;
  createdAt: number;
  updatedAt: number;
}

export interface Product {
  productId: string;
  sku: string | null;
  name: string;
  description: string | null;
  /** Minor units. */
  price: number;
  priceCurrency: string;
  category: string | null;
  image: string | null;
  url: string | null;
  inStock: boolean;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface OpeningHoursRange {
  /** ISO day of week: 1 Monday … 7 Sunday. */
  dayOfWeek: number;
  opens: string;
  closes: string;
}

export interface Closure {
  id: string;
  startDate: string;
  endDate: string;
  reason: string | null;
}

/** The clock and id maker every domain function receives, so tests can move time. */
export interface Clock {
  now(): number;
}
