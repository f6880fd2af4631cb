/**
 * What a check saw on a site, before it is scored: the doors it found (each live or failing), the
 * capabilities they declare with where that was seen, the facts the site publishes about itself,
 * and what the site says about AI use. The crawler (src/checks) writes it; assess.ts scores it.
 */
import type { Level, RequestKind } from '../listings/listing.js';
import type { CapabilityId } from './capabilities.js';

/** Door types a check may find (listing doors, plus the experimental webmcp, which is never a listing door). */
export type SeenDoorType = 'inbox' | 'mcp' | 'a2a' | 'openapi' | 'ucp' | 'acp' | 'nlweb' | 'webmcp';

export type Basis = 'tool_name' | 'skill' | 'operation' | 'item_types' | 'protocol' | 'structured_data' | 'page' | 'manifest';

export interface SeenDoor {
  type: SeenDoorType;
  url: string;
  status: 'live' | 'failing';
  /** Where the door was declared (its document, card or page). */
  declaredAt: string;
  src: 'declared' | 'seen';
  protocol?: string;
  /** Why it is failing, in our words. */
  note?: string;
  experimental?: boolean;
}

export interface Evidence {
  capability: CapabilityId;
  state: 'yes' | 'partial';
  basis: Basis;
  /** What declared it, in our words with the site's name for it cleaned (a tool name, an operation id). */
  via: string;
  door?: { type: SeenDoorType; url: string };
  sourceUrl: string;
  experimental?: boolean;
}

export interface PublishedValue<T> {
  v: T;
  /** The page or document it was read from. */
  url: string;
  via: string;
}

export interface SiteFacts {
  name?: PublishedValue<string>;
  description?: PublishedValue<string>;
  locality?: PublishedValue<string>;
  region?: PublishedValue<string>;
  country?: PublishedValue<string>;
  geo?: PublishedValue<{ lat: number; lng: number }>;
  hours?: PublishedValue<{ weekly: Partial<Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', [string, string][]>>; timezone: string | null }>;
  languages?: PublishedValue<string[]>;
  services?: PublishedValue<{ name: string; type: 'booking' | 'order' | 'quote_request' }[]>;
  priceBand?: PublishedValue<number>;
  /** Payment tokens of GET /v1/attributes from schema.org paymentAccepted (published-terms.ts). */
  payments?: PublishedValue<string[]>;
  /** Attribute keys read off the site (amenityFeature, petsAllowed): only keys marked seen. */
  attributes?: PublishedValue<Record<string, boolean>>;
  /** schema.org types and other category words the site gives itself (AutoRepair, "bakery"). */
  categoryTerms: string[];
  /** It calls itself software, an app or an API (schema.org SoftwareApplication, WebAPI). */
  software: boolean;
  /** It describes a business at all (schema.org Organization or LocalBusiness, an inbox manifest, an agent door). */
  business: boolean;
}

export interface ProbeNote {
  probe: string;
  url: string;
  outcome: 'found' | 'absent' | 'invalid' | 'skipped' | 'failed';
  /** In our words, never the site's text. */
  detail?: string;
}

export interface SiteObservation {
  domain: string;
  /** The site's home page as it answered (after redirects on the site). */
  url: string;
  checkedAt: number;
  doors: SeenDoor[];
  evidence: Evidence[];
  facts: SiteFacts;
  /** Data an agent can read without a door: schema.org data, llms.txt, NLWeb. */
  readable: string[];
  aiOptOut: string | null;
  probes: ProbeNote[];
  usage: { requests: number; bytes: number; skipped: number };
}

/** The kinds a capability lets an agent ask for at a door. */
export function kindOf(capability: CapabilityId): RequestKind | null {
  switch (capability) {
    case 'message':
      return 'ask';
    case 'negotiate':
      return 'quote';
    case 'book':
    case 'signup':
      return 'book';
    case 'order':
      return 'order';
    case 'pay':
      return 'pay';
    default:
      return null;
  }
}

/** A door's level from what it declares: payable, bookable (book, order, sign up), askable (message, quote), else readable. */
export function levelOfCapabilities(capabilities: Iterable<CapabilityId>): Level {
  const set = new Set(capabilities);
  if (set.has('pay')) return 'payable';
  if (set.has('book') || set.has('order') || set.has('signup')) return 'bookable';
  if (set.has('message') || set.has('negotiate')) return 'askable';
  return 'readable';
}
