/**
 * Reads an inbox manifest (/.well-known/agent-inbox.json) into a member listing. The manifest must
 * name this origin and the svc-inbox spec; every other field is checked on its own and dropped
 * alone when it is not valid, so one bad field never loses the listing. Human channels (mail, phone)
 * never become doors.
 */
import { z } from 'zod';
import { IANAZone } from 'luxon';
import { ITEM_TYPES, WEEKDAYS, type Door, type Hours, type ListingRecord, type ListingService, type RequestKind } from '../listings/listing.js';

export class ManifestProblem extends Error {}

const CUSTOMER_PROTOCOLS = ['rest', 'openapi', 'mcp'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/);
const hoursSchema = z.object({
  timezone: z.string().refine((zone) => IANAZone.isValidZone(zone)),
  weekly: z.partialRecord(z.enum(WEEKDAYS as unknown as [string, ...string[]]), z.array(z.tuple([hhmm, hhmm])).max(6)),
  closures: z.array(z.object({ from: z.iso.date(), to: z.iso.date() })).max(100).default([]),
});

/** One field at a time: a value that does not parse is dropped, never fatal. */
function field<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function isCleanUrl(value: unknown, origin: string): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    const sameOriginHttp = url.protocol === 'http:' && url.origin === origin;
    return (url.protocol === 'https:' || sameOriginHttp) && !url.username && !url.password;
  } catch {
    return false;
  }
}

export interface ManifestReading {
  profileName: string;
  listing: Omit<ListingRecord, 'seq' | 'id' | 'createdAt' | 'memberSince'>;
}

/** Category terms are resolved by the caller (group slugs, place categories; the rest become tags). */
export interface CategoryResolution {
  groups: string[];
  place: { id: string; label: string } | null;
  alternates: { id: string; label: string }[];
  tags: string[];
  software: boolean;
}

export function readManifest(
  raw: unknown,
  origin: string,
  domain: string,
  nowMs: number,
  resolveCategories: (terms: string[]) => CategoryResolution,
): ManifestReading {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ManifestProblem('the manifest is not a JSON object');
  const manifest = raw as Record<string, unknown>;
  if (typeof manifest.spec !== 'string' || !manifest.spec.startsWith('svc-inbox/')) throw new ManifestProblem('spec is not svc-inbox/…');
  if (manifest.instance !== origin) throw new ManifestProblem(`instance is ${String(manifest.instance)}, not ${origin}`);
  const profile = (typeof manifest.profile === 'object' && manifest.profile !== null ? manifest.profile : {}) as Record<string, unknown>;
  const name = field(text(200), profile.name);
  if (!name) throw new ManifestProblem('the profile has no name');

  const itemTypes = (field(z.array(z.string()), manifest.item_types) ?? []).filter((t): t is (typeof ITEM_TYPES)[number] =>
    (ITEM_TYPES as readonly string[]).includes(t),
  );
  const protocols: Record<string, string> = {};
  const declared = (typeof manifest.protocols === 'object' && manifest.protocols !== null ? manifest.protocols : {}) as Record<string, unknown>;
  for (const key of CUSTOMER_PROTOCOLS) if (isCleanUrl(declared[key], origin)) protocols[key] = declared[key] as string;

  const address = field(
    z.object({
      streetAddress: text(300).optional(),
      addressLocality: text(200).optional(),
      postalCode: text(40).optional(),
      addressCountry: z.string().regex(/^[A-Z]{2}$/).optional(),
    }),
    profile.address,
  );
  const geo = field(z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }), profile.geo);
  const languages = (field(z.array(z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)).max(10), profile.languages) ?? []).map((l) => l.toLowerCase());
  const hours = field(hoursSchema, profile.hours) as Hours | undefined;
  const services = (field(z.array(z.object({ name: text(80), type: z.enum(['booking', 'order', 'quote_request']) })).max(30), profile.services) ??
    []) as ListingService[];
  const categories = resolveCategories(field(z.array(text(100)).max(10), profile.categories) ?? []);

  const kinds = new Set<RequestKind>();
  if (itemTypes.includes('message')) kinds.add('ask');
  if (itemTypes.includes('quote_request')) kinds.add('quote');
  if (itemTypes.includes('booking')) kinds.add('book');
  if (itemTypes.includes('order')) kinds.add('order');
  const level = kinds.has('book') || kinds.has('order') ? 'bookable' : kinds.size > 0 ? 'askable' : 'readable';
  const doors: Door[] = [
    {
      type: 'inbox',
      url: `${origin}/.well-known/agent-inbox.json`,
      level,
      status: 'live',
      kinds: [...kinds],
      src: 'declared',
      protocol: String(manifest.spec),
      checkedAt: new Date(nowMs).toISOString(),
    },
  ];

  return {
    profileName: name,
    listing: {
      domain,
      source: 'member',
      kind: categories.software ? 'software_and_ai' : 'local_and_retail',
      name,
      description: field(text(500), profile.description) ?? null,
      city: address?.addressLocality ?? null,
      region: null,
      country: address?.addressCountry ?? null,
      address: address
        ? {
            ...(address.streetAddress ? { street: address.streetAddress } : {}),
            ...(address.addressLocality ? { locality: address.addressLocality } : {}),
            ...(address.postalCode ? { postalCode: address.postalCode } : {}),
            ...(address.addressCountry ? { country: address.addressCountry } : {}),
          }
        : null,
      geo: geo ? { lat: geo.latitude, lng: geo.longitude } : null,
      categories: categories.groups,
      placeCategory: categories.place ? { ...categories.place, src: 'declared' } : null,
      placeAlternates: categories.alternates.slice(0, 2).map((c) => ({ ...c, src: 'declared' as const })),
      tags: categories.tags.slice(0, 20),
      languages,
      itemTypes,
      protocols,
      hours: hours ?? null,
      services,
      url: isCleanUrl(profile.url, origin) ? (profile.url as string) : null,
      doors,
      attributes: {},
      payments: [],
      priceBand: null,
      place: { kind: ['storefront'], ...(address?.addressLocality ? { locality: address.addressLocality } : {}), ...(address?.addressCountry ? { country: address.addressCountry } : {}) },
      claimed: true,
      proof: 'domain',
      software: null,
      manifestUrl: `${origin}/.well-known/agent-inbox.json`,
      verifiedAt: nowMs,
      lastPingAt: null,
      found: null,
      facts: [],
      receipts: { issued: 0, acknowledged: 0, customers: 0, lastAt: null },
      outcomes: {},
      delistedAt: null,
      dormantSince: null,
      updatedAt: nowMs,
    },
  };
}
