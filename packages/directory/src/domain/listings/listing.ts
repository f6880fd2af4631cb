/**
 * A listing as the directory keeps it (directory spec §2 "Listing"): the business's own published
 * facts, how it came to be listed, its doors and levels. Storage, search and views all use this type.
 */
import type { ListingReputation } from '../reputation/reputation.js';

export const SOURCES = ['member', 'registered', 'found'] as const;
export type Source = (typeof SOURCES)[number];

export const KINDS = ['local_and_retail', 'software_and_ai'] as const;
export type Kind = (typeof KINDS)[number];

/** Readiness levels, ascending. `orderable` is accepted as a filter value and treated as bookable. */
export const LEVELS = ['listed', 'readable', 'askable', 'bookable', 'payable'] as const;
export type Level = (typeof LEVELS)[number];

export const DOOR_TYPES = ['inbox', 'mcp', 'a2a', 'openapi', 'api', 'ucp', 'acp', 'nlweb', 'webhook', 'other'] as const;
export const REQUEST_KINDS = ['ask', 'quote', 'book', 'order', 'pay'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const ITEM_TYPES = ['booking', 'order', 'quote_request', 'message', 'refund'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
export type ValueSource = 'declared' | 'seen' | 'probably';

export interface Door {
  /** One of DOOR_TYPES, or `platform:<name>`. */
  type: string;
  url: string;
  level: Level;
  status: 'live' | 'failing';
  kinds: RequestKind[];
  src: 'declared' | 'seen';
  protocol?: string;
  checkedAt?: string;
}

/** Weekly hours: up to 6 [opens, closes) windows per day in local HH:MM; closes <= opens runs past midnight. */
export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
export interface Hours {
  timezone: string;
  weekly: Partial<Record<Weekday, [string, string][]>>;
  /** Whole local days, both included. */
  closures: { from: string; to: string }[];
}

export interface PlaceCategoryRef {
  id: string;
  label: string;
  src: ValueSource;
}

export interface ListingService {
  name: string;
  type: 'booking' | 'order' | 'quote_request';
}

export interface Place {
  kind: ('storefront' | 'service_area' | 'online')[];
  locality?: string;
  region?: string;
  country?: string;
  serviceArea?: { radiusKm?: number; countries?: string[] };
  shipsTo?: string[];
}

export interface Fact {
  field: string;
  v: unknown;
  src: ValueSource;
  at: string;
  url?: string;
  via?: string;
}

export interface ListingRecord {
  /** Dense internal number (SQLite rowid), used by the search index and the stored order. */
  seq: number;
  /** Stable public id (ULID); the daily shuffle hashes it. */
  id: string;
  domain: string;
  source: Source;
  kind: Kind;
  name: string;
  description: string | null;
  city: string | null;
  region: string | null;
  country: string | null;
  address: { street?: string; locality?: string; postalCode?: string; country?: string } | null;
  geo: { lat: number; lng: number } | null;
  /** Group slugs of GET /v1/categories. */
  categories: string[];
  /** Place category (taxonomy id) with up to two alternates. */
  placeCategory: PlaceCategoryRef | null;
  placeAlternates: PlaceCategoryRef[];
  tags: string[];
  languages: string[];
  itemTypes: ItemType[];
  /** Protocol name → entry URL (members: from the manifest). */
  protocols: Record<string, string>;
  hours: Hours | null;
  services: ListingService[];
  url: string | null;
  doors: Door[];
  /** Attribute key → value and where it came from. */
  attributes: Record<string, { v: boolean | string | number; src: ValueSource }>;
  /** Payment tokens of GET /v1/attributes (methods, wallets, agent). */
  payments: string[];
  priceBand: number | null;
  place: Place | null;
  claimed: boolean;
  proof: 'domain' | 'key' | 'platform' | 'code' | null;
  software: { version: string; runtime: string } | null;
  manifestUrl: string | null;
  verifiedAt: number | null;
  lastPingAt: number | null;
  memberSince: number | null;
  /** A business the service found: its note and when it was checked (its about_url is the directory's own page, found-about.ts). */
  found: { note: string; checkedAt: number } | null;
  facts: Fact[];
  /** What the network holds of its promises (receipts it published here), kept by the intake. */
  receipts: { issued: number; acknowledged: number; customers: number; lastAt: number | null };
  /** How many promises closed with each outcome code. */
  outcomes: Record<string, number>;
  /** A member's reputation from the last nightly snapshot; absent or null before its first. */
  reputation?: ListingReputation | null;
  /** Not shown while set: left the directory (`delisted`), or set aside (`dormant`). */
  delistedAt: number | null;
  dormantSince: number | null;
  createdAt: number;
  updatedAt: number;
}

const LEVEL_RANK: Record<Level, number> = { listed: 0, readable: 1, askable: 2, bookable: 3, payable: 4 };

export function levelRank(level: Level): number {
  return LEVEL_RANK[level];
}

/** The highest level of the listing's live doors (`listed` when it has none). */
export function listingLevel(doors: readonly Door[]): Level {
  let best: Level = 'listed';
  for (const door of doors) if (door.status === 'live' && LEVEL_RANK[door.level] > LEVEL_RANK[best]) best = door.level;
  return best;
}

/** A business that is not a member shows its town, never its street or its precise point, until it claims its entry. */
export function showsStreet(l: Pick<ListingRecord, 'source' | 'claimed'>): boolean {
  return l.source === 'member' || l.claimed;
}

/** Places of the published point of a business that shows no street: two decimals, about a kilometre. */
const COARSE_PLACES = 2;

/**
 * The point a listing publishes as `geo`: its own for a member or a claimed entry, else rounded to
 * about a kilometre. Search measures `distance_km` and `radius_km` from this same point, so no answer
 * tells more about where a business is than its `geo` does.
 */
export function shownGeo(l: Pick<ListingRecord, 'geo' | 'source' | 'claimed'>): { lat: number; lng: number } | null {
  const g = l.geo;
  if (!g) return null;
  if (showsStreet(l)) return { lat: g.lat, lng: g.lng };
  const k = 10 ** COARSE_PLACES;
  return { lat: Math.round(g.lat * k) / k, lng: Math.round(g.lng * k) / k };
}

