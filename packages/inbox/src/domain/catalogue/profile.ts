/** The business profile (inbox spec §2 "Catalogue and profile"): schema.org-like fields, one per instance. */
import { z } from 'zod';
import { IANAZone } from 'luxon';
import { CUSTOMER_ITEM_TYPES } from '../types.js';

const timeZone = z.string().refine((zone) => IANAZone.isValidZone(zone), { message: 'timeZone must be an IANA time zone such as Europe/Lisbon.' });

export const postalAddress = z
  .object({
    streetAddress: z.string().max(300).optional(),
    addressLocality: z.string().max(200).optional(),
    addressRegion: z.string().max(200).optional(),
    postalCode: z.string().max(40).optional(),
    addressCountry: z.string().regex(/^[A-Z]{2}$/, 'addressCountry is an ISO 3166-1 alpha-2 code such as PT').optional(),
  })
  .strict();

export const businessProfileSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    timeZone: timeZone.describe('IANA time zone the opening hours are in.'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'currency is an ISO 4217 code such as EUR').describe('ISO 4217 currency of every price.'),
    languages: z.array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)).min(1).max(10).describe('BCP 47 language tags, most used first.'),
    itemTypes: z
      .array(z.enum(CUSTOMER_ITEM_TYPES, { error: `An item type a customer can create: ${CUSTOMER_ITEM_TYPES.join(', ')} (a refund opens from a cancelled paid order).` }))
      .min(1)
      .describe('The item types this business accepts from customers.'),
    address: postalAddress.optional(),
    geo: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }).strict().optional(),
    url: z.url().optional(),
    email: z.email().optional(),
    telephone: z.string().max(40).optional(),
    categories: z.array(z.string().min(1).max(100)).max(10).optional(),
    domain: z.string().max(253).optional().describe('The domain the inbox is published under.'),
  })
  .strict();

export type BusinessProfile = z.infer<typeof businessProfileSchema>;

/** Until the owner sets a profile, the instance answers with this minimal one. */
export const DEFAULT_PROFILE: BusinessProfile = Object.freeze({
  name: 'Unnamed business',
  timeZone: 'UTC',
  currency: 'EUR',
  languages: ['en'],
  itemTypes: ['message', 'quote_request', 'booking', 'order'],
}) as BusinessProfile;

/**
 * A stored profile as this release reads it: profiles written before listed `refund`, which no
 * customer can create, among the item types; it is dropped rather than make the document unreadable.
 */
export function storedProfileDocument(document: unknown): unknown {
  if (typeof document !== 'object' || document === null || !Array.isArray((document as { itemTypes?: unknown }).itemTypes)) return document;
  const itemTypes = (document as { itemTypes: unknown[] }).itemTypes.filter((type) => type !== 'refund');
  return { ...document, itemTypes };
}
