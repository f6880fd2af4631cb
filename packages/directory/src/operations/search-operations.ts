/** GET /v1/businesses and GET /v1/businesses/{domain} (directory spec §4). */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { ITEM_TYPES, type ListingRecord } from '../domain/listings/listing.js';
import { membersOnlyCategoryOf } from '../domain/listings/regulated.js';
import { READ, directoryOperation } from './context.js';

const listingSchema = z.looseObject({
  domain: z.string(),
  id: z.string().describe('The listing\'s public id: the day\'s shuffle key hashes it and the order\'s last tie-break compares it (GET /v1/ranking).'),
  name: z.string(),
  categories: z.array(z.string()),
  tags: z.array(z.string()),
  languages: z.array(z.string()),
  item_types: z.array(z.string()),
  protocols: z.record(z.string(), z.string()),
  open_now: z.boolean().nullable(),
  services: z.array(z.object({ name: z.string(), type: z.enum(['booking', 'order', 'quote_request']) })),
  receipts: z.looseObject({ issued: z.number().int().min(0), acknowledged: z.number().int().min(0) }),
  answering: z.boolean(),
  online: z.boolean(),
  not_answering_since: z.string().nullable(),
  rank_pos: z.number().int().min(1).optional(),
  rank_shuffle: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  source: z.enum(['member', 'registered', 'found']).optional(),
  level: z.enum(['listed', 'readable', 'askable', 'bookable', 'payable']).optional(),
  why: z.string().optional(),
}).describe('A listing (directory spec §2): the business\'s own published facts, its doors and its place in the order.');

export const searchBusinesses = directoryOperation({
  name: 'search_businesses',
  title: 'Search businesses',
  description:
    'Businesses in the published hourly order (GET /v1/ranking). Every parameter only leaves businesses out; nothing a profile says and nothing paid moves anyone. Page with next_cursor; a cursor is bound to its search and to the hour.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/businesses' },
  answers: { etag: true },
  input: z.object({
    q: z.string().max(80).optional().describe('Every word must be in the name, city, description, categories, tags or services (case and accents ignored).'),
    near: z.string().max(60).optional().describe('"lat,lng": only businesses within radius_km, with distance_km.'),
    radius_km: z.number().optional().describe('With near: above 0, at most 1000; default 10. In a query string a decimal number (digits, optional sign and fraction).'),
    category: z.string().min(1).max(120).optional().describe('A group slug of GET /v1/categories, or a place category (id, slug, label or synonym) with every category below it.'),
    item_type: z.enum(ITEM_TYPES).optional(),
    language: z.string().max(12).optional().describe('pt keeps pt and pt-br; pt-br keeps pt-br only.'),
    open_now: z.boolean().optional().describe('Only businesses open now by their published hours in their own time zone; no hours means left out.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Page size, 1 to 100; in a query string decimal digits only (0x10 or 1e2 are refused).'),
    cursor: z.string().max(512).optional(),
    attributes: z.string().max(620).optional().describe('Comma-separated keys of GET /v1/attributes (key=value for one with values), at most 10, each named once (a repeat is refused with 400).'),
    country: z.string().max(2).optional().describe('ISO 3166-1 alpha-2: located in, serving, or shipping to.'),
    price_band: z.string().max(3).optional().describe('1 to 4, or a range such as 1-2.'),
    accepts: z.string().max(330).optional().describe('Comma-separated, at most 8, each named once (a repeat is refused with 400): ask, quote, book, order, pay, or payments of GET /v1/attributes.'),
    requestable: z.enum(['ask', 'quote']).optional(),
    door_type: z.string().max(250).optional().describe('Comma-separated, at most 5, each named once (a repeat is refused with 400): inbox, mcp, a2a, openapi, api, ucp, acp, nlweb, other, platform or platform:<name>.'),
    level: z.enum(['listed', 'readable', 'askable', 'bookable', 'orderable', 'payable']).optional(),
    has_inbox: z.boolean().optional(),
    source: z.string().max(40).optional().describe('Comma-separated: member, registered, found; any of them. Each is named once: a repeated value is refused with 400 naming it.'),
    order: z.enum(['rank', 'nearest']).optional().describe('rank (default), or nearest with near (from rules 7).'),
  }),
  output: z.object({ businesses: z.array(listingSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: ['bad_request', 'cursor_expired', 'category_unresolved', 'search_timeout'],
  run: async (ctx, input, extras) => {
    const { cursor, limit, ...raw } = input;
    const answer = await ctx.search.search(raw, { cursor, limit });
    // A cached answer may be a few minutes old, and at most a minute old with open_now.
    extras.headers = { 'cache-control': `public, max-age=${input.open_now ? 60 : 180}` };
    // listingView builds the documented shape; tests check it against this schema (VALIDATE_OUTPUT).
    return answer as never;
  },
});

export const getBusiness = directoryOperation({
  name: 'get_business',
  title: 'Read one business',
  description: 'One listing with its outcomes, receipts.customers and, for a business that is not a member, every fact with its source and date.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/businesses/{domain}' },
  // A business the service found is served with X-Robots-Tag: noindex (directory spec §4).
  answers: { etag: true, robotsTag: true },
  input: z.object({ domain: z.string().min(1).max(253) }),
  output: listingSchema,
  annotations: READ,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input, extras) => {
    const domain = input.domain.trim().toLowerCase().replace(/\.$/, '');
    // Kept between reads while the listings' revision, the hour and the moment hold (business-views.ts).
    const view = await ctx.businesses.read(domain, (listing) => shownListing(domain, listing));
    extras.headers = { 'cache-control': 'public, max-age=180', ...(view.source === 'found' ? { 'x-robots-tag': 'noindex' } : {}) };
    return view as never;
  },
});

/** The listing at `domain` when the directory shows it; 404 with the reason otherwise. */
function shownListing(domain: string, listing: ListingRecord | null): ListingRecord {
  if (!listing) throw new Problem('not_found', `No business is listed at ${domain}.`);
  if (listing.delistedAt !== null) {
    throw new Problem('not_found', `${domain} left the directory on ${new Date(listing.delistedAt).toISOString().slice(0, 10)}.`);
  }
  if (listing.dormantSince !== null) {
    throw new Problem('not_found', `${domain} was set aside on ${new Date(listing.dormantSince).toISOString().slice(0, 10)}: its inbox stopped answering.`);
  }
  const regulated = membersOnlyCategoryOf(listing);
  if (regulated) throw new Problem('not_found', `${domain} is set aside: it is in ${regulated.label} (${regulated.key}), where only members are listed. ${regulated.note}`);
  return listing;
}
