/**
 * A business the check found, listed (directory spec §1, §2 `source: found`): checked at askable or
 * above, its site not telling AI systems to keep away, not hidden by its owner, of a category group
 * the directory lists for businesses that are not members (regulated.ts decides the rest when the
 * listing is stored), with a name it published. Only what the site published about itself is kept,
 * each value with where and when it was seen (`facts`); never a phone number or an e-mail address
 * (never read), never a street (never kept: an unclaimed entry shows its town). A member always takes
 * the place of a found entry for the same registrable domain: such an entry is never written, and
 * one written before is withdrawn when the member is verified.
 */
import { newId } from '@svc/shared';
import { parse } from 'tldts';
import { IANAZone } from 'luxon';
import { find as findTimeZones } from 'geo-tz/all';
import type { DirectoryStore } from '../../store/store.js';
import { evidenceTurn, writeCheck } from '../evidence/evidence-log.js';
import { isListed } from '../listings/regulated.js';
import type { Door, Fact, ListingRecord, ListingService, Place } from '../listings/listing.js';
import type { CategoryResolution } from '../registration/member-listing.js';
import { attributeKey } from '../vocab/attributes.js';
import { kindOfGroup } from '../vocab/groups.js';
import type { CheckOutcome } from './assess.js';

/** The registrable domain of a host (`127.0.0.1:8787` and other local names stay themselves). */
export function registrableDomain(host: string): string {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name.endsWith('.test')) return name.split('.').slice(-2).join('.');
  return parse(name, { allowPrivateDomains: true }).domain ?? name;
}

export function foundNote(checkedAt: number): string {
  return `found on its own website · not a member · checked ${new Date(checkedAt).toISOString().slice(0, 10)}`;
}

/** Why a done check is not listed, or null when it is. */
export function notListedBecause(o: CheckOutcome, hidden: boolean): string | null {
  if (hidden) return 'its owner hides the result';
  if (o.aiOptOut) return 'its site tells AI systems to keep away';
  if (!o.agentReady) return 'it is not agent-ready (askable or above) yet';
  if (o.group === null || o.kind === null) return 'its site does not say what kind of business it is';
  if (!o.facts.name) return 'its site does not publish its name';
  return null;
}

function timezoneOf(o: CheckOutcome): string | null {
  const geo = o.facts.geo?.v;
  if (!geo) return null;
  const zone = findTimeZones(geo.lat, geo.lng)[0];
  return zone && IANAZone.isValidZone(zone) ? zone : null;
}

/** The agent payment a live door that takes payment stands for. */
const AGENT_PAYMENT_OF_DOOR: Readonly<Record<string, string>> = { acp: 'acp', ucp: 'ucp', a2a: 'ap2' };

export function foundListing(o: CheckOutcome, existing: ListingRecord | null, resolveCategories: (terms: string[]) => CategoryResolution): Omit<ListingRecord, 'seq'> {
  const f = o.facts;
  const at = new Date(o.checkedAt).toISOString();
  const facts: Fact[] = [];
  const fact = (field: string, v: unknown, seen: { url: string; via: string } | undefined) => {
    if (seen) facts.push({ field, v, src: 'seen', at, url: seen.url, via: seen.via });
  };
  const resolution = resolveCategories(f.categoryTerms.slice(0, 10));
  const group = o.group as string;
  const live = o.doors.filter((d) => !d.experimental && d.type !== 'webmcp');
  const doors: Door[] = live.map((d) => ({
    type: d.type,
    url: d.url,
    level: d.level,
    status: d.status,
    kinds: d.kinds,
    src: d.src,
    ...(d.protocol ? { protocol: d.protocol } : {}),
    checkedAt: d.checked_at,
  }));
  const kinds = new Set(doors.filter((d) => d.status === 'live').flatMap((d) => d.kinds));
  const itemTypes: ListingRecord['itemTypes'] = [];
  if (kinds.has('book')) itemTypes.push('booking');
  if (kinds.has('order')) itemTypes.push('order');
  if (kinds.has('quote')) itemTypes.push('quote_request');
  if (kinds.has('ask')) itemTypes.push('message');
  const zone = timezoneOf(o);
  const hours = f.hours && zone ? { timezone: zone, weekly: f.hours.v.weekly, closures: [] } : null;
  const services: ListingService[] = (f.services?.v ?? []).slice(0, 30);
  const place: Place = {
    kind: f.locality || f.geo ? ['storefront'] : ['online'],
    ...(f.locality ? { locality: f.locality.v } : {}),
    ...(f.region ? { region: f.region.v } : {}),
    ...(f.country ? { country: f.country.v } : {}),
  };
  fact('name', f.name?.v, f.name);
  fact('description', f.description?.v, f.description);
  fact('city', f.locality?.v, f.locality);
  fact('country', f.country?.v, f.country);
  fact('hours', hours, hours ? f.hours : undefined);
  fact('services', services, services.length > 0 ? f.services : undefined);
  fact('geo', f.geo?.v, f.geo);
  fact('languages', f.languages?.v, f.languages);
  fact('price_band', f.priceBand?.v, f.priceBand);
  fact('category', group, { url: f.name?.url ?? o.url, via: 'schema.org type of the business' });
  // Attributes the site states, of keys that apply to its group; each its own fact.
  const attributes: ListingRecord['attributes'] = {};
  for (const [key, v] of Object.entries(f.attributes?.v ?? {})) {
    const def = attributeKey(key);
    if (!def || def.evidence !== 'seen' || (def.appliesTo !== '*' && !def.appliesTo.includes(group))) continue;
    attributes[key] = { v, src: 'seen' };
    fact(`attributes.${key}`, v, f.attributes);
  }
  // Payments: what its schema.org data names, and the agent payments its live doors take (ACP, UCP, AP2 on an A2A card).
  const payments = [...(f.payments?.v ?? [])];
  const published = payments.length;
  for (const d of live) {
    const token = d.status === 'live' && d.kinds.includes('pay') ? AGENT_PAYMENT_OF_DOOR[d.type] : undefined;
    if (token && !payments.includes(token)) payments.push(token);
  }
  const payingDoor = live.find((d) => d.status === 'live' && d.kinds.includes('pay'))?.url ?? o.url;
  if (payments.length > 0) {
    fact('accepts.pay', payments, !f.payments ? { url: payingDoor, via: 'a door for agents that takes payment' } : payments.length > published ? { url: f.payments.url, via: `${f.payments.via} paymentAccepted, and a door for agents that takes payment` } : { url: f.payments.url, via: `${f.payments.via} paymentAccepted` });
  }
  const placeCategory = resolution.place ? { id: resolution.place.id, label: resolution.place.label, src: 'seen' as const } : null;
  return {
    id: existing?.id ?? newId(o.checkedAt),
    domain: o.domain,
    source: 'found',
    kind: kindOfGroup(group),
    name: f.name?.v ?? o.domain,
    description: f.description?.v ?? null,
    city: f.locality?.v ?? null,
    region: f.region?.v ?? null,
    country: f.country?.v ?? null,
    address: f.locality || f.country ? { ...(f.locality ? { locality: f.locality.v } : {}), ...(f.country ? { country: f.country.v } : {}) } : null,
    geo: f.geo?.v ?? null,
    categories: [group],
    placeCategory,
    placeAlternates: resolution.alternates.slice(0, 2).map((a) => ({ id: a.id, label: a.label, src: 'seen' as const })),
    tags: [],
    languages: f.languages?.v ?? [],
    itemTypes,
    protocols: {},
    hours,
    services,
    url: o.url,
    doors,
    attributes,
    payments,
    priceBand: f.priceBand?.v ?? null,
    place,
    claimed: false,
    proof: null,
    software: null,
    manifestUrl: null,
    verifiedAt: null,
    lastPingAt: null,
    memberSince: null,
    found: { note: foundNote(o.checkedAt), checkedAt: o.checkedAt },
    facts,
    receipts: { issued: 0, acknowledged: 0, customers: 0, lastAt: null },
    outcomes: {},
    delistedAt: null,
    dormantSince: null,
    createdAt: existing?.createdAt ?? o.checkedAt,
    updatedAt: o.checkedAt,
  };
}

/** Whether a member of the directory has this registrable domain (members take the place of found entries). */
export async function memberHolds(store: DirectoryStore, domain: string): Promise<boolean> {
  const instances = await store.instances.list();
  return instances.some((i) => i.verifiedAt !== null && registrableDomain(i.domain) === domain);
}

/**
 * Writes (or withdraws) the found listing of a finished check, in the caller's transaction. A
 * listing of another source on the domain (a member, a registered business) is never touched. What
 * the hour's order reads of it (its id while listed, its doors) is appended to the evidence log in
 * the same transaction (a `check` entry), whenever it is written or withdrawn.
 */
export async function syncFoundListing(
  store: DirectoryStore,
  domain: string,
  outcome: CheckOutcome | null,
  hidden: boolean,
  nowMs: number,
  resolveCategories: (terms: string[]) => CategoryResolution,
): Promise<'listed' | 'withdrawn' | 'unchanged'> {
  const existing = await store.listings.byDomain(domain);
  if (existing && existing.source !== 'found') return 'unchanged';
  const listable = outcome !== null && notListedBecause(outcome, hidden) === null && !(await memberHolds(store, domain));
  if (listable) {
    const turn = await evidenceTurn(store, nowMs);
    const listing = foundListing(outcome, existing, resolveCategories);
    await store.listings.upsert(listing);
    await writeCheck(store, turn, domain, isListed(listing) ? listing : null);
    return 'listed';
  }
  if (existing && existing.delistedAt === null) {
    await withdraw(store, existing, nowMs);
    return 'withdrawn';
  }
  return 'unchanged';
}

/** A found listing delisted, and its check entry saying so. */
async function withdraw(store: DirectoryStore, existing: ListingRecord, nowMs: number): Promise<void> {
  const turn = await evidenceTurn(store, nowMs);
  const { seq: _seq, ...rest } = existing;
  await store.listings.upsert({ ...rest, delistedAt: nowMs, updatedAt: nowMs });
  await writeCheck(store, turn, existing.domain, null);
}

/** A member was verified: a found entry for its registrable domain gives way to it. */
export async function retireFoundListingFor(store: DirectoryStore, memberDomain: string, nowMs: number): Promise<void> {
  const domain = registrableDomain(memberDomain);
  if (domain === memberDomain) return;
  const existing = await store.listings.byDomain(domain);
  if (!existing || existing.source !== 'found' || existing.delistedAt !== null) return;
  await withdraw(store, existing, nowMs);
}
